/**
 * Stage 2 of a request (lifecycle.ts): the limits every route gets from `[http]` and `[query]`,
 * decided in one place: the deadline (`http.timeout`, the client's `x-greptime-timeout` within it,
 * `query.timeout` for queries) and the body limit (`http.body_limit`). Debug routes are outside
 * both, as in GreptimeDB: no deadline, and a fixed body cap instead of the configured one.
 */
import type { Config } from '../../shared/config.js';
import { countRejection } from '../../shared/rejections.js';
import { parseDurationMs } from '../../shared/size-duration.js';
import { ClientError } from '../errors/catalogue.js';
import type { Route } from './context.js';

/** The body cap of debug routes (the web framework's own cap in GreptimeDB). */
export const DEBUG_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export interface RequestLimits {
  /** 0 = none. */
  deadlineMs: number;
  /** 0 = none; bounds the body as sent and once decompressed. */
  bodyLimitBytes: number;
}

export function limitsOf(route: Route, config: Config, timeoutHeader: string | undefined): RequestLimits {
  if (route.debug) return { deadlineMs: 0, bodyLimitBytes: DEBUG_BODY_LIMIT_BYTES };
  return { deadlineMs: requestDeadlineMs(route, config, timeoutHeader), bodyLimitBytes: config.http.bodyLimitBytes };
}

/**
 * A request's deadline: `http.timeout` (or the client's `x-greptime-timeout` within it), and for
 * queries also `query.timeout`, whichever is sooner (0 = none). The Prometheus API answers its
 * own timeout error instead (it caps its `timeout` parameter with `query.timeout`).
 */
export function requestDeadlineMs(route: Route, config: Config, header: string | undefined): number {
  const http = effectiveTimeoutMs(config.http.timeoutMs, header);
  const query = route.query && route.errors !== 'prometheus' ? config.query.timeoutMs : 0;
  if (http > 0 && query > 0) return Math.min(http, query);
  return Math.max(http, query);
}

/** `x-greptime-timeout` overrides the configured timeout, but only when one is configured. */
export function effectiveTimeoutMs(configuredMs: number, header: string | undefined): number {
  if (configuredMs <= 0) return 0;
  if (header === undefined || header.trim() === '') return configuredMs;
  try {
    return parseDurationMs(header.trim());
  } catch {
    return configuredMs;
  }
}

/** `http.body_limit` crossed (declared, streamed, or once decompressed). */
export function bodyTooLarge(): ClientError {
  countRejection('body_limit');
  return new ClientError('BodyTooLarge', 'Failed to buffer the request body: length limit exceeded');
}

/** Refuses a body whose declared length is over the limit before reading any of it. */
export function checkDeclaredLength(declared: number, limitBytes: number): void {
  if (limitBytes > 0 && declared > limitBytes) throw bodyTooLarge();
}
