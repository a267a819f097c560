/**
 * Remote read requests: decode a `ReadRequest` (protobufjs, schema in shared/proto/prometheus.ts) into
 * queries with PromQL matchers, and negotiate the response type as Prometheus' server does.
 */

import type { Matcher, MatchOp } from '../../../query/promql/types.js';
import { InvalidArgument } from '../../../shared/errors.js';
import { int64ToNumber, MatcherType, prometheusTypes, ResponseType } from '../../../shared/proto/prometheus.js';

export interface RemoteReadQuery {
  /** Inclusive bounds in ms. */
  startMs: number;
  endMs: number;
  matchers: Matcher[];
}

export interface RemoteReadRequest {
  queries: RemoteReadQuery[];
  acceptedResponseTypes: number[];
}

const OPS: Record<number, MatchOp> = {
  [MatcherType.EQ]: '=',
  [MatcherType.NEQ]: '!=',
  [MatcherType.RE]: '=~',
  [MatcherType.NRE]: '!~',
};

interface RawReadRequest {
  queries?: Array<{
    start_timestamp_ms?: unknown;
    end_timestamp_ms?: unknown;
    matchers?: Array<{ type?: number; name?: string; value?: string }>;
  }>;
  accepted_response_types?: number[];
}

/** Decodes a ReadRequest; throws Error (protobuf) or InvalidArgument (content) on bad input. */
export function decodeReadRequest(bytes: Uint8Array): RemoteReadRequest {
  const raw = prometheusTypes.ReadRequest.toObject(prometheusTypes.ReadRequest.decode(bytes), {
    longs: Number,
  }) as RawReadRequest;
  const queries = (raw.queries ?? []).map((q, index): RemoteReadQuery => {
    const matchers = (q.matchers ?? []).map((m): Matcher => {
      const op = OPS[m.type ?? 0];
      if (op === undefined) throw new InvalidArgument(`query ${index}: unknown label matcher type ${m.type}`);
      return { name: m.name ?? '', op, value: m.value ?? '' };
    });
    return {
      startMs: int64ToNumber(q.start_timestamp_ms),
      endMs: int64ToNumber(q.end_timestamp_ms),
      matchers,
    };
  });
  return { queries, acceptedResponseTypes: raw.accepted_response_types ?? [] };
}

/**
 * The response type Prometheus' server would pick: the first of the client's list it supports
 * (SAMPLES when the list is empty), or null when it supports none of them.
 */
export function negotiateResponseType(accepted: readonly number[]): number | null {
  if (accepted.length === 0) return ResponseType.SAMPLES;
  for (const type of accepted) {
    if (type === ResponseType.SAMPLES || type === ResponseType.STREAMED_XOR_CHUNKS) return type;
  }
  return null;
}
