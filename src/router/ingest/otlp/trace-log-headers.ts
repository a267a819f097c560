/**
 * Request headers of the trace and log endpoints: the target table and the pipeline choice.
 *
 * Logs may name any stored pipeline (or greptime_identity); without a name the built-in OTLP log
 * model is used. Traces take only the built-in `greptime_trace_v1` model: any other name is
 * refused with 400 instead of being silently ignored, which would store data in a shape the
 * client did not ask for. GreptimeDB requires the header for traces; we default it, so plain
 * OpenTelemetry exporters work without extra configuration.
 */
import { ClientError } from '../../errors/catalogue.js';
import { TRACE_PIPELINE_V1 } from './traces-to-inserts.js';

const PIPELINE_HEADER = 'x-greptime-pipeline-name';
const LOG_PIPELINE_HEADER = 'x-greptime-log-pipeline-name';

/** Refuses a trace request that names a pipeline other than the built-in `greptime_trace_v1`. */
export function checkTracePipeline(headers: ReadonlyMap<string, string>): void {
  const name = headers.get(PIPELINE_HEADER)?.trim() ?? '';
  if (name === '' || name === TRACE_PIPELINE_V1) return;
  throw new ClientError(
    'OtlpBadRequest',
    `Pipeline '${name}' not found: named pipelines are not supported yet; omit ${PIPELINE_HEADER} or use '${TRACE_PIPELINE_V1}'`,
  );
}

/** The pipeline a log request names (`x-greptime-log-pipeline-name` first), or null for the built-in model. */
export function logPipelineOf(headers: ReadonlyMap<string, string>): string | null {
  const name = (headers.get(LOG_PIPELINE_HEADER) || headers.get(PIPELINE_HEADER))?.trim() ?? '';
  return name === '' ? null : name;
}

/** The table a request writes to: the header's value, or `fallback` when absent or blank. */
export function tableNameOf(headers: ReadonlyMap<string, string>, header: string, fallback: string): string {
  const name = headers.get(header)?.trim() ?? '';
  return name === '' ? fallback : name;
}
