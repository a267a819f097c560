/**
 * The Prometheus API's side of the error catalogue (errors/catalogue.ts, the `prometheus` family):
 * its own refusals are `Prom*` kinds named after Prometheus' errorTypes, and the PromQL engine's
 * typed error becomes one here, where it leaves the engine. Prometheus clients switch on
 * Prometheus' errorTypes, so those follow Prometheus, not GreptimeDB (docs/promql-api.md).
 */
import { PromqlError, type PromqlErrorType } from '../../query/promql/types.js';
import { ClientError, type ClientErrorKind } from '../errors/catalogue.js';

const KIND_OF: Record<PromqlErrorType, ClientErrorKind> = {
  bad_data: 'PromBadData',
  execution: 'PromExecution',
  timeout: 'PromTimeout',
  canceled: 'PromCanceled',
  internal: 'PromInternal',
};

/** A `bad_data` refusal (400). */
export function badData(message: string): ClientError {
  return new ClientError('PromBadData', message);
}

/** The engine's PromqlError as its catalogue kind; anything else unchanged. */
export function fromPromqlError(err: unknown): unknown {
  return err instanceof PromqlError ? new ClientError(KIND_OF[err.errorType], err.message) : err;
}
