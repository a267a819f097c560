/**
 * Errors of the Prometheus HTTP API in Prometheus' own terms: `errorType` is one of Prometheus'
 * values and picks the status as `getDefaultErrorCode` in `web/api/v1/api.go` does. GreptimeDB
 * answers its status-code names here (`InvalidArguments`, ...), but clients of this API are built
 * against Prometheus and switch on Prometheus' values, so we follow Prometheus (docs/promql-api.md).
 */
import { PromqlError } from '../../query/promql/types.js';
import { DbError, ErrorCode, httpStatusOf, resourceErrorOf } from '../../shared/errors.js';

export type PromErrorType = 'bad_data' | 'execution' | 'timeout' | 'canceled' | 'internal' | 'not_found';

/** HTTP status per errorType; 499 is Prometheus' "client closed connection" for cancellations. */
const STATUS_OF: Record<PromErrorType, number> = {
  bad_data: 400,
  execution: 422,
  timeout: 503,
  canceled: 499,
  internal: 500,
  not_found: 404,
};

/** An API error as Prometheus reports it: `{"status":"error","errorType":...,"error":...}`. */
export class PromApiError extends Error {
  constructor(
    readonly errorType: PromErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'PromApiError';
  }

  get status(): number {
    return STATUS_OF[this.errorType];
  }
}

/** Codes whose errors are the request's fault before anything ran (Prometheus: bad_data). */
const BAD_DATA_CODES: ReadonlySet<number> = new Set([
  ErrorCode.Unsupported,
  ErrorCode.InvalidArguments,
  ErrorCode.InvalidSyntax,
]);

/** True for errors the server's auth layer answers itself (401/403 with the native body). */
export function isAuthError(err: unknown): boolean {
  return err instanceof DbError && err.code >= 7000 && err.code < 8000;
}

/**
 * The Prometheus form of any error raised while answering: engine errors keep their type,
 * cancellation and deadline codes become `canceled`/`timeout`, server-side failures `internal`
 * (with the masked message), other query failures and exhausted resources `execution`. Unknown
 * errors are internal.
 */
export function toPromApiError(thrown: unknown): PromApiError {
  if (thrown instanceof PromApiError) return thrown;
  if (thrown instanceof PromqlError) return new PromApiError(thrown.errorType, thrown.message);
  const err = resourceErrorOf(thrown) ?? thrown;
  if (err instanceof DbError) {
    if (err.code === ErrorCode.Cancelled) return new PromApiError('canceled', err.message);
    // Prometheus reports a query past its sample limit as an execution error (422).
    if (err.code === ErrorCode.RuntimeResourcesExhausted) return new PromApiError('execution', err.message);
    if (err.code === ErrorCode.DeadlineExceeded) return new PromApiError('timeout', err.message);
    if (httpStatusOf(err.code) >= 500) return new PromApiError('internal', err.publicMessage());
    if (BAD_DATA_CODES.has(err.code)) return new PromApiError('bad_data', err.message);
    return new PromApiError('execution', err.message);
  }
  return new PromApiError('internal', `Internal error: ${ErrorCode.Internal}`);
}
