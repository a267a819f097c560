/**
 * Stage 5 of a request (lifecycle.ts): admission once the body is in. A write holds its body's
 * size against `max_in_flight_write_bytes` (it bounds the work — parsing, shard queues — that
 * concurrent writes hold, many times the raw size); a query takes a place under
 * `max_concurrent_queries`.
 */
import type { Route } from './context.js';
import type { QueryGate } from './query-gate.js';
import type { WriteBytesLimiter } from './write-bytes-limiter.js';

export interface Admission {
  writeLimiter?: WriteBytesLimiter | null | undefined;
  queryGate?: QueryGate | null | undefined;
}

/** Admits the request; resolves to its release (call it once the request is answered), or null. */
export async function admit(
  admission: Admission,
  route: Route,
  bodyBytes: number,
  controller: AbortController,
): Promise<(() => void) | null> {
  let releaseWrite: (() => void) | null = null;
  if (route.protocol && admission.writeLimiter) {
    releaseWrite = await admission.writeLimiter.acquire(bodyBytes, controller.signal);
  }
  if (!(route.query && admission.queryGate)) return releaseWrite;
  let releaseQuery: () => void;
  try {
    releaseQuery = admission.queryGate.admit(controller);
  } catch (err) {
    releaseWrite?.();
    throw err;
  }
  if (releaseWrite === null) return releaseQuery;
  const write = releaseWrite;
  return () => {
    write();
    releaseQuery();
  };
}
