/**
 * OTLP log records as pipeline records (reference ingest §3.4, with `x-greptime-pipeline-name`):
 * one record per log record with GreptimeDB's key names, attribute maps as objects, ids as
 * lowercase hex, times as integer nanoseconds and the body as text (non-string bodies as JSON).
 */
import type { PipelineRecord, PipelineValue } from '../../../pipeline/value.js';
import { anyValueToText, hexOf } from '../../../shared/ingest/otlp/attributes.js';
import type { AnyValue, ExportLogsServiceRequest, KeyValue } from '../../../shared/proto/otlp.js';

function pipelineValueOf(value: AnyValue | null | undefined): PipelineValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const n = value.intValue;
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  }
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return value.arrayValue.values.map(pipelineValueOf);
  if (value.kvlistValue) return objectOf(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return hexOf(value.bytesValue);
  return null;
}

/** A key/value list as an object; the last of repeated keys wins. */
function objectOf(attributes: readonly KeyValue[]): PipelineRecord {
  const out: PipelineRecord = {};
  for (const kv of attributes) out[kv.key] = pipelineValueOf(kv.value);
  return out;
}

export function logsToRecords(request: ExportLogsServiceRequest): PipelineRecord[] {
  const records: PipelineRecord[] = [];
  for (const resourceLogs of request.resourceLogs) {
    const resourceAttributes = objectOf(resourceLogs.resource?.attributes ?? []);
    for (const scopeLogs of resourceLogs.scopeLogs) {
      const scope = scopeLogs.scope;
      const scopeAttributes = objectOf(scope?.attributes ?? []);
      for (const record of scopeLogs.logRecords) {
        records.push({
          Timestamp: record.timeUnixNano,
          ObservedTimestamp: record.observedTimeUnixNano,
          TraceId: hexOf(record.traceId),
          SpanId: hexOf(record.spanId),
          TraceFlags: record.flags,
          SeverityText: record.severityText,
          SeverityNumber: record.severityNumber,
          Body: anyValueToText(record.body) ?? '',
          ResourceSchemaUrl: resourceLogs.schemaUrl,
          // Copies: a pipeline edits its records in place, and these maps are shared by records.
          ResourceAttributes: structuredClone(resourceAttributes),
          ScopeSchemaUrl: scopeLogs.schemaUrl,
          ScopeName: scope?.name ?? '',
          ScopeVersion: scope?.version ?? '',
          ScopeAttributes: structuredClone(scopeAttributes),
          LogAttributes: objectOf(record.attributes),
        });
      }
    }
  }
  return records;
}
