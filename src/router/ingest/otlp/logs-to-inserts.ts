/**
 * OTLP log records → rows of the log table, GreptimeDB's built-in OTLP log model (reference ingest
 * §3.4). One row per record, columns in GreptimeDB's order:
 *
 *   timestamp TIMESTAMP(9) TIME INDEX   time_unix_nano, else observed_time_unix_nano, else the
 *                                       time the request arrived (GreptimeDB would store 0)
 *   trace_id, span_id STRING            lowercase hex, '' when absent
 *   severity_text STRING, severity_number INT32
 *   body STRING                         string bodies as they are, other values as JSON text,
 *                                       NULL when absent
 *   log_attributes JSON                 the record's attributes as an object
 *   trace_flags UINT32                  `flags`
 *   scope_name STRING TAG, scope_version STRING  (NULL when the record has no scope)
 *   scope_attributes JSON, scope_schema_url STRING
 *   resource_attributes JSON, resource_schema_url STRING
 *
 * A record with a trace id that is not 16 bytes, a span id that is not 8 bytes or a time beyond
 * 2262 is rejected on its own and counted.
 *
 * The columns are filled straight into typed arrays (no per-row objects): this is the hot path of
 * log ingestion, see bench/ingest/otlp-logs.ts.
 */

import { anyValueToText, attributesToJsonText, hexOf } from '../../../shared/ingest/otlp/attributes.js';
import type { TableInsert } from '../../../shared/insert.js';
import type { ExportLogsServiceRequest } from '../../../shared/proto/otlp.js';
import { idProblem, SPAN_ID_BYTES, TRACE_ID_BYTES, timeNanosOrNull } from './record-values.js';

/** The table records go to without `x-greptime-log-table-name`. */
export const DEFAULT_LOG_TABLE = 'opentelemetry_logs';

/** The log table's insert and the count of records refused. */
export interface LogInserts {
  insert: TableInsert;
  accepted: number;
  rejected: number;
  /** The first rejection's reason, for `partial_success.error_message`; '' when none. */
  firstRejection: string;
}

/** Maps a decoded request to one insert into `db.table`; `receivedNanos` stands in for absent times. */
export function logsToInserts(
  request: ExportLogsServiceRequest,
  db: string,
  table: string,
  receivedNanos: bigint,
): LogInserts {
  let total = 0;
  for (const r of request.resourceLogs) for (const s of r.scopeLogs) total += s.logRecords.length;

  const timestamp = new BigInt64Array(total);
  const traceId = new Array<string | null>(total);
  const spanId = new Array<string | null>(total);
  const severityText = new Array<string | null>(total);
  const severityNumber = new Float64Array(total);
  const body = new Array<string | null>(total);
  const logAttributes = new Array<string | null>(total);
  const traceFlags = new Float64Array(total);
  const scopeName = new Array<string | null>(total);
  const scopeVersion = new Array<string | null>(total);
  const scopeAttributes = new Array<string | null>(total);
  const scopeSchemaUrl = new Array<string | null>(total);
  const resourceAttributes = new Array<string | null>(total);
  const resourceSchemaUrl = new Array<string | null>(total);

  let n = 0;
  let rejected = 0;
  let firstRejection = '';
  for (const resourceLogs of request.resourceLogs) {
    const resourceJson = resourceLogs.resource ? attributesToJsonText(resourceLogs.resource.attributes) : null;
    for (const scopeLogs of resourceLogs.scopeLogs) {
      const scope = scopeLogs.scope;
      const scopeJson = scope ? attributesToJsonText(scope.attributes) : null;
      for (const record of scopeLogs.logRecords) {
        const problem =
          idProblem(record.traceId, TRACE_ID_BYTES, 'trace_id', true) ??
          idProblem(record.spanId, SPAN_ID_BYTES, 'span_id', true);
        const time = timeNanosOrNull(
          record.timeUnixNano !== 0n
            ? record.timeUnixNano
            : record.observedTimeUnixNano !== 0n
              ? record.observedTimeUnixNano
              : receivedNanos,
        );
        if (problem !== null || time === null) {
          rejected++;
          if (firstRejection === '')
            firstRejection = `log record ${n + rejected}: ${problem ?? 'time beyond year 2262'}`;
          continue;
        }
        timestamp[n] = time;
        traceId[n] = record.traceId.length === 0 ? '' : hexOf(record.traceId);
        spanId[n] = record.spanId.length === 0 ? '' : hexOf(record.spanId);
        severityText[n] = record.severityText;
        severityNumber[n] = record.severityNumber;
        body[n] = anyValueToText(record.body);
        logAttributes[n] = attributesToJsonText(record.attributes);
        traceFlags[n] = record.flags;
        scopeName[n] = scope ? scope.name : null;
        scopeVersion[n] = scope ? scope.version : null;
        scopeAttributes[n] = scopeJson;
        scopeSchemaUrl[n] = scopeLogs.schemaUrl;
        resourceAttributes[n] = resourceJson;
        resourceSchemaUrl[n] = resourceLogs.schemaUrl;
        n++;
      }
    }
  }

  const str = (values: Array<string | null>) => ({
    kind: 'str' as const,
    values: n === total ? values : values.slice(0, n),
  });
  const insert: TableInsert = {
    db,
    table,
    rowCount: n,
    columns: [
      {
        name: 'timestamp',
        semantic: 'TIMESTAMP',
        type: 'TimestampNanosecond',
        vector: { kind: 'i64', values: timestamp.subarray(0, n) },
      },
      { name: 'trace_id', semantic: 'FIELD', type: 'String', vector: str(traceId) },
      { name: 'span_id', semantic: 'FIELD', type: 'String', vector: str(spanId) },
      { name: 'severity_text', semantic: 'FIELD', type: 'String', vector: str(severityText) },
      {
        name: 'severity_number',
        semantic: 'FIELD',
        type: 'Int32',
        vector: { kind: 'f64', values: severityNumber.subarray(0, n) },
      },
      { name: 'body', semantic: 'FIELD', type: 'String', vector: str(body) },
      { name: 'log_attributes', semantic: 'FIELD', type: 'Json', vector: str(logAttributes) },
      {
        name: 'trace_flags',
        semantic: 'FIELD',
        type: 'UInt32',
        vector: { kind: 'f64', values: traceFlags.subarray(0, n) },
      },
      { name: 'scope_name', semantic: 'TAG', type: 'String', vector: str(scopeName) },
      { name: 'scope_version', semantic: 'FIELD', type: 'String', vector: str(scopeVersion) },
      { name: 'scope_attributes', semantic: 'FIELD', type: 'Json', vector: str(scopeAttributes) },
      { name: 'scope_schema_url', semantic: 'FIELD', type: 'String', vector: str(scopeSchemaUrl) },
      { name: 'resource_attributes', semantic: 'FIELD', type: 'Json', vector: str(resourceAttributes) },
      { name: 'resource_schema_url', semantic: 'FIELD', type: 'String', vector: str(resourceSchemaUrl) },
    ],
  };
  return { insert, accepted: n, rejected, firstRejection };
}
