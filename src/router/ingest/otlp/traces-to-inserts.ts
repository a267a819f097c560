/**
 * OTLP spans → rows of the trace table, GreptimeDB's `greptime_trace_v1` model (reference ingest
 * §3.5). One row per span, columns in the order GreptimeDB's row writer creates them:
 *
 *   timestamp TIMESTAMP(9) TIME INDEX (start), timestamp_end TIMESTAMP(9), duration_nano UINT64,
 *   parent_span_id (NULL for roots), trace_id, span_id, span_kind, span_name, span_status_code,
 *   span_status_message, trace_state, scope_name, scope_version STRING,
 *   service_name STRING TAG,
 *   span_attributes.<key>, scope_attributes.<key>, resource_attributes.<key> (one typed column per
 *     attribute, in first-seen order; resource `service.name` is not repeated),
 *   span_events JSON, span_links JSON
 *
 * plus the auxiliary tables `<table>_services(timestamp, service_name TAG)` and
 * `<table>_operations(timestamp, service_name, span_name, span_kind TAGs)`, one row per distinct
 * value at the fixed time 2100-01-01 so that re-sending a service updates the same row.
 *
 * An attribute whose type differs from its column (an existing table column, or the first use in
 * this request) is coerced when GreptimeDB would (int→double/string, double/bool→string,
 * string→int/double/bool by parsing); a span with a value that cannot be coerced, a malformed id
 * or an out-of-range time is rejected on its own and counted in `rejected`.
 */

import {
  anyValueToColumnValue,
  attributesToJsonNode,
  type ColumnValue,
  coerceColumnValue,
  hexOf,
} from '../../../shared/ingest/otlp/attributes.js';
import type { TableInsert } from '../../../shared/insert.js';
import { type JsonNode, jsonText } from '../../../shared/json-value.js';
import {
  type ExportTraceServiceRequest,
  type KeyValue,
  type Resource,
  SPAN_KIND_NAMES,
  type Span,
  STATUS_CODE_NAMES,
} from '../../../shared/proto/otlp.js';
import type { DataType, TableSchema } from '../../../shared/types.js';
import { type CellValue, InsertBuilder } from './insert-builder.js';
import { idProblem, isoNanos, SPAN_ID_BYTES, TRACE_ID_BYTES, timeNanosOrNull } from './record-values.js';

/** The table spans go to without `x-greptime-trace-table-name`. */
export const DEFAULT_TRACE_TABLE = 'opentelemetry_traces';
/** The only trace model served: GreptimeDB's current one (its `greptime_trace_v0` is legacy). */
export const TRACE_PIPELINE_V1 = 'greptime_trace_v1';

/** Time of the auxiliary tables' rows: 2100-01-01T00:00:00Z in ns, after any real span. */
const AUXILIARY_TIME_NANOS = 4_102_444_800_000_000_000n;

const SERVICE_NAME_KEY = 'service.name';
const PROCESS_EXECUTABLE_NAME_KEY = 'process.executable.name';
/** OpenTelemetry's fallback when a resource names no service (resource semantic conventions). */
const UNKNOWN_SERVICE = 'unknown_service';

/** The trace table's insert and the auxiliary ones, with the count of spans refused. */
export interface TraceInserts {
  /** The main table's insert (rowCount 0 when every span was rejected). */
  spans: TableInsert;
  /** `<table>_services` and `<table>_operations` (merge mode last_row, not append). */
  auxiliary: TableInsert[];
  accepted: number;
  rejected: number;
  /** The first rejection's reason, for `partial_success.error_message`; '' when none. */
  firstRejection: string;
}

/**
 * `service.name` of a resource (a string, or bytes read as UTF-8 as GreptimeDB does); when it is
 * missing or empty, `unknown_service:<process.executable.name>` or `unknown_service`, the value
 * OpenTelemetry SDKs are required to use.
 */
export function serviceNameOf(resource: Resource | null): string {
  const attributes = resource?.attributes ?? [];
  const text = (key: string): string | null => {
    let found: string | null = null;
    for (const kv of attributes) {
      if (kv.key !== key || !kv.value) continue;
      if (kv.value.stringValue !== undefined) found = kv.value.stringValue;
      else if (kv.value.bytesValue !== undefined) found = Buffer.from(kv.value.bytesValue).toString('utf8');
    }
    return found === '' ? null : found;
  };
  const service = text(SERVICE_NAME_KEY);
  if (service !== null) return service;
  const executable = text(PROCESS_EXECUTABLE_NAME_KEY);
  return executable === null ? UNKNOWN_SERVICE : `${UNKNOWN_SERVICE}:${executable}`;
}

/** One attribute cell of a span before it is committed: column, its type and the value. */
interface AttributeCell {
  column: string;
  type: DataType;
  value: CellValue;
}

class SpanRejected extends Error {}

/**
 * Maps a decoded request to inserts into `db.table`. `existing` is the trace table as the catalog
 * has it now (undefined when it does not exist yet): its column types win over the request's.
 */
export function tracesToInserts(
  request: ExportTraceServiceRequest,
  db: string,
  table: string,
  existing: TableSchema | undefined,
): TraceInserts {
  const builder = new InsertBuilder();
  builder.column('timestamp', 'TIMESTAMP', 'TimestampNanosecond');
  for (const [name, type] of FIXED_COLUMNS) builder.column(name, name === 'service_name' ? 'TAG' : 'FIELD', type);
  const existingTypes = new Map<string, DataType>(existing?.columns.map((c) => [c.name, c.type]) ?? []);
  const services = new Set<string>();
  const operations = new Map<string, [string, string, string]>();
  let accepted = 0;
  let rejected = 0;
  let firstRejection = '';

  /** The type an attribute column has or will have: the table's, else this request's first use. */
  const columnTypeOf = (column: string, natural: DataType): DataType =>
    existingTypes.get(column) ?? builder.typeOf(column) ?? natural;

  const attributeCells = (prefix: string, attributes: readonly KeyValue[], skip: string | null): AttributeCell[] => {
    const cells: AttributeCell[] = [];
    for (const kv of attributes) {
      if (kv.key === skip) continue;
      const value = anyValueToColumnValue(kv.value);
      if (!value) continue;
      const column = `${prefix}.${kv.key}`;
      const type = columnTypeOf(column, value.type);
      const coerced = coerceColumnValue(value, type);
      if (coerced === undefined) {
        throw new SpanRejected(`attribute ${column}: ${describe(value)} cannot be stored in a ${type} column`);
      }
      cells.push({ column, type, value: coerced });
    }
    return cells;
  };

  for (const resourceSpans of request.resourceSpans) {
    const resource = resourceSpans.resource;
    const serviceName = serviceNameOf(resource);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      const scope = scopeSpans.scope;
      for (const span of scopeSpans.spans) {
        let cells: AttributeCell[];
        let fixed: Map<string, CellValue | null>;
        try {
          fixed = fixedCells(span, serviceName, scope?.name ?? '', scope?.version ?? '');
          // Resource and scope cells are recomputed per span on purpose: a span's own attribute
          // may fix a column type that a later resource attribute then has to follow.
          cells = [
            ...attributeCells('span_attributes', span.attributes, null),
            ...attributeCells('scope_attributes', scope?.attributes ?? [], null),
            ...attributeCells('resource_attributes', resource?.attributes ?? [], SERVICE_NAME_KEY),
          ];
        } catch (err) {
          if (!(err instanceof SpanRejected)) throw err;
          rejected++;
          if (firstRejection === '') firstRejection = `span ${hexOf(span.spanId)}: ${err.message}`;
          continue;
        }
        builder.startRow();
        for (const [name, value] of fixed) builder.set(name, value);
        for (const cell of cells) {
          builder.column(cell.column, 'FIELD', cell.type);
          builder.set(cell.column, cell.value);
        }
        builder.column('span_events', 'FIELD', 'Json');
        builder.column('span_links', 'FIELD', 'Json');
        builder.set('span_events', eventsJson(span));
        builder.set('span_links', linksJson(span));
        accepted++;
        services.add(serviceName);
        const kind = fixed.get('span_kind') as string;
        operations.set(JSON.stringify([serviceName, span.name, kind]), [serviceName, span.name, kind]);
      }
    }
  }
  return {
    spans: builder.toInsert(db, table),
    auxiliary: accepted === 0 ? [] : [servicesInsert(db, table, services), operationsInsert(db, table, operations)],
    accepted,
    rejected,
    firstRejection,
  };
}

/** Fixed columns after the time index, with their types (column order of the created table). */
const FIXED_COLUMNS: ReadonlyArray<[string, DataType]> = [
  ['timestamp_end', 'TimestampNanosecond'],
  ['duration_nano', 'UInt64'],
  ['parent_span_id', 'String'],
  ['trace_id', 'String'],
  ['span_id', 'String'],
  ['span_kind', 'String'],
  ['span_name', 'String'],
  ['span_status_code', 'String'],
  ['span_status_message', 'String'],
  ['trace_state', 'String'],
  ['scope_name', 'String'],
  ['scope_version', 'String'],
  ['service_name', 'String'],
];

function fixedCells(
  span: Span,
  serviceName: string,
  scopeName: string,
  scopeVersion: string,
): Map<string, CellValue | null> {
  const problem =
    idProblem(span.traceId, TRACE_ID_BYTES, 'trace_id', false) ??
    idProblem(span.spanId, SPAN_ID_BYTES, 'span_id', false) ??
    idProblem(span.parentSpanId, SPAN_ID_BYTES, 'parent_span_id', true);
  if (problem) throw new SpanRejected(problem);
  const start = timeNanosOrNull(span.startTimeUnixNano);
  const end = timeNanosOrNull(span.endTimeUnixNano);
  if (start === null || end === null) throw new SpanRejected('start or end time beyond year 2262');
  if (end < start) throw new SpanRejected('end time is before start time');
  return new Map<string, CellValue | null>([
    ['timestamp', start],
    ['timestamp_end', end],
    ['duration_nano', end - start],
    ['parent_span_id', span.parentSpanId.length === 0 ? null : hexOf(span.parentSpanId)],
    ['trace_id', hexOf(span.traceId)],
    ['span_id', hexOf(span.spanId)],
    ['span_kind', SPAN_KIND_NAMES[span.kind] ?? String(span.kind)],
    ['span_name', span.name],
    ['span_status_code', span.status ? (STATUS_CODE_NAMES[span.status.code] ?? String(span.status.code)) : ''],
    ['span_status_message', span.status?.message ?? ''],
    ['trace_state', span.traceState],
    ['scope_name', scopeName],
    ['scope_version', scopeVersion],
    ['service_name', serviceName],
  ]);
}

function describe(value: ColumnValue): string {
  return `${value.type} value ${JSON.stringify(typeof value.value === 'bigint' ? value.value.toString() : value.value)}`;
}

function objectNode(entries: Array<[string, JsonNode]>): JsonNode {
  return { kind: 'object', entries: entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/** `[{"attributes":{...},"name":"...","time":"<ISO-8601>"}]` (keys sorted, as JSONB keeps them). */
function eventsJson(span: Span): string {
  const items = span.events.map((e) =>
    objectNode([
      ['name', { kind: 'string', value: e.name }],
      ['time', { kind: 'string', value: isoNanos(e.timeUnixNano) }],
      ['attributes', attributesToJsonNode(e.attributes)],
    ]),
  );
  return jsonText({ kind: 'array', items });
}

/** `[{"attributes":{...},"span_id":"..","trace_id":"..","trace_state":".."}]`. */
function linksJson(span: Span): string {
  const items = span.links.map((l) =>
    objectNode([
      ['trace_id', { kind: 'string', value: hexOf(l.traceId) }],
      ['span_id', { kind: 'string', value: hexOf(l.spanId) }],
      ['trace_state', { kind: 'string', value: l.traceState }],
      ['attributes', attributesToJsonNode(l.attributes)],
    ]),
  );
  return jsonText({ kind: 'array', items });
}

function servicesInsert(db: string, table: string, services: Set<string>): TableInsert {
  const builder = new InsertBuilder();
  builder.column('timestamp', 'TIMESTAMP', 'TimestampNanosecond');
  builder.column('service_name', 'TAG', 'String');
  for (const service of services) {
    builder.startRow();
    builder.set('timestamp', AUXILIARY_TIME_NANOS);
    builder.set('service_name', service);
  }
  return builder.toInsert(db, `${table}_services`);
}

function operationsInsert(db: string, table: string, operations: Map<string, [string, string, string]>): TableInsert {
  const builder = new InsertBuilder();
  builder.column('timestamp', 'TIMESTAMP', 'TimestampNanosecond');
  for (const name of ['service_name', 'span_name', 'span_kind']) builder.column(name, 'TAG', 'String');
  for (const [service, spanName, kind] of operations.values()) {
    builder.startRow();
    builder.set('timestamp', AUXILIARY_TIME_NANOS);
    builder.set('service_name', service);
    builder.set('span_name', spanName);
    builder.set('span_kind', kind);
  }
  return builder.toInsert(db, `${table}_operations`);
}
