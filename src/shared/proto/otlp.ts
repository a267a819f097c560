/**
 * The OTLP protobuf schema (packages `opentelemetry.proto.*` and `google.rpc`), as `.proto` text
 * inside a TS module (otlp-texts.ts) so that it ships in dist/ with the code. Field numbers are the wire contract:
 * they follow open-telemetry/opentelemetry-proto (common, resource, metrics, trace, logs and the
 * three collector services) and reference ingest §3.2. Fields we never read (profiles' string
 * indexes, entity refs' details) are still declared where they exist upstream so that encoding a
 * request in tests produces what an SDK would send.
 *
 * Decoding: `decodeOtlp(type, bytes)` gives plain objects in "the decoded shape", which is also
 * what `json.ts` produces from OTLP/JSON, so mapping code is written once for both encodings:
 *   - field names in lowerCamelCase (`timeUnixNano`, `resourceSpans`);
 *   - every 64-bit integer (int64, uint64, fixed64, sfixed64) as a `bigint` (nanosecond timestamps
 *     exceed 2^53), every 32-bit integer and double as a `number`;
 *   - bytes as `Uint8Array` (trace and span ids raw, 16 and 8 bytes when set, empty when unset);
 *   - enums as numbers;
 *   - proto3 scalars always present with their default (0, "", false, 0n, empty bytes), repeated
 *     fields always arrays, absent sub-messages `null`;
 *   - oneof members (AnyValue's value, Metric's data, NumberDataPoint's value) and proto3
 *     `optional` fields (histogram sum/min/max) present only when set: test with `!== undefined`.
 * The TypeScript interfaces below describe that shape.
 */
import type protobuf from 'protobufjs';
import {
  COLLECTOR_LOGS_PROTO,
  COLLECTOR_METRICS_PROTO,
  COLLECTOR_TRACE_PROTO,
  GOOGLE_ANY_PROTO,
  LOGS_PROTO,
  METRICS_PROTO,
  OTLP_PROTO,
  RESOURCE_PROTO,
  RPC_STATUS_PROTO,
  TRACE_PROTO,
} from './otlp-texts.js';
import { lazyTypes } from './protobufjs.js';

function buildRoot(protobuf: typeof import('protobufjs')): protobuf.Root {
  const root = new protobuf.Root();
  // Each text is parsed into the same root, so cross-package references need no `import` lines;
  // they are resolved once at the end, which also fails fast on a typo in a type name.
  for (const text of [
    OTLP_PROTO,
    RESOURCE_PROTO,
    METRICS_PROTO,
    TRACE_PROTO,
    LOGS_PROTO,
    COLLECTOR_METRICS_PROTO,
    COLLECTOR_TRACE_PROTO,
    COLLECTOR_LOGS_PROTO,
    GOOGLE_ANY_PROTO,
    RPC_STATUS_PROTO,
  ]) {
    protobuf.parse(text, root, { keepCase: false });
  }
  root.resolveAll();
  return root;
}

/** Message types used by the endpoints, by their fully qualified names; parsed on first use. */
export const OtlpTypes = lazyTypes(buildRoot, {
  exportMetricsRequest: 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest',
  exportMetricsResponse: 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse',
  exportTraceRequest: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  exportTraceResponse: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
  exportLogsRequest: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest',
  exportLogsResponse: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse',
  rpcStatus: 'google.rpc.Status',
});

/** `toObject` options that produce the decoded shape described at the top of this file. */
export const DECODED_SHAPE_OPTIONS: protobuf.IConversionOptions = {
  longs: BigInt as unknown as NonNullable<protobuf.IConversionOptions['longs']>,
  enums: Number,
  defaults: true,
  arrays: true,
};

/**
 * Decodes protobuf `bytes` as message `type` into the decoded shape. Throws protobufjs' errors
 * (`RangeError: index out of range`, `Error: invalid wire type`) on malformed input: callers turn
 * them into 400 answers.
 */
export function decodeOtlp<T>(type: protobuf.Type, bytes: Uint8Array): T {
  return type.toObject(type.decode(bytes), DECODED_SHAPE_OPTIONS) as T;
}

// ---- The decoded shape -------------------------------------------------------------------------

/** One of its members is set, or none (an empty AnyValue, which GreptimeDB reads as null). */
export interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: bigint;
  doubleValue?: number;
  arrayValue?: { values: AnyValue[] } | null;
  kvlistValue?: { values: KeyValue[] } | null;
  bytesValue?: Uint8Array;
  /** Profiles only: an index into a dictionary we do not have; treated as absent. */
  stringValueStrindex?: number;
}
export interface KeyValue {
  key: string;
  value: AnyValue | null;
}
export interface InstrumentationScope {
  name: string;
  version: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}
export interface Resource {
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

export interface ExportMetricsServiceRequest {
  resourceMetrics: ResourceMetrics[];
}
export interface ResourceMetrics {
  resource: Resource | null;
  scopeMetrics: ScopeMetrics[];
  schemaUrl: string;
}
export interface ScopeMetrics {
  scope: InstrumentationScope | null;
  metrics: Metric[];
  schemaUrl: string;
}
export interface Metric {
  name: string;
  description: string;
  unit: string;
  gauge?: { dataPoints: NumberDataPoint[] } | null;
  sum?: { dataPoints: NumberDataPoint[]; aggregationTemporality: number; isMonotonic: boolean } | null;
  histogram?: { dataPoints: HistogramDataPoint[]; aggregationTemporality: number } | null;
  exponentialHistogram?: {
    dataPoints: ExponentialHistogramDataPoint[];
    aggregationTemporality: number;
  } | null;
  summary?: { dataPoints: SummaryDataPoint[] } | null;
  metadata: KeyValue[];
}
/** AggregationTemporality numbers. */
export const AggregationTemporality = { UNSPECIFIED: 0, DELTA: 1, CUMULATIVE: 2 } as const;
/** DataPointFlags bit: the point carries no value (a staleness marker). */
export const DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK = 1;
export interface Exemplar {
  filteredAttributes: KeyValue[];
  timeUnixNano: bigint;
  asDouble?: number;
  asInt?: bigint;
  spanId: Uint8Array;
  traceId: Uint8Array;
}
export interface NumberDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  asDouble?: number;
  asInt?: bigint;
  exemplars: Exemplar[];
  flags: number;
}
export interface HistogramDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum?: number;
  bucketCounts: bigint[];
  explicitBounds: number[];
  exemplars: Exemplar[];
  flags: number;
  min?: number;
  max?: number;
}
export interface ExponentialHistogramBuckets {
  offset: number;
  bucketCounts: bigint[];
}
export interface ExponentialHistogramDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum?: number;
  scale: number;
  zeroCount: bigint;
  positive: ExponentialHistogramBuckets | null;
  negative: ExponentialHistogramBuckets | null;
  flags: number;
  exemplars: Exemplar[];
  min?: number;
  max?: number;
  zeroThreshold: number;
}
export interface SummaryDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum: number;
  quantileValues: { quantile: number; value: number }[];
  flags: number;
}

export interface ExportTraceServiceRequest {
  resourceSpans: ResourceSpans[];
}
export interface ResourceSpans {
  resource: Resource | null;
  scopeSpans: ScopeSpans[];
  schemaUrl: string;
}
export interface ScopeSpans {
  scope: InstrumentationScope | null;
  spans: Span[];
  schemaUrl: string;
}
export interface SpanEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}
export interface SpanLink {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  flags: number;
}
export interface Span {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState: string;
  parentSpanId: Uint8Array;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  events: SpanEvent[];
  droppedEventsCount: number;
  links: SpanLink[];
  droppedLinksCount: number;
  status: { message: string; code: number } | null;
}
/** Span.SpanKind names by number, as GreptimeDB stores them in `span_kind`. */
export const SPAN_KIND_NAMES = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
] as const;
/** Status.StatusCode names by number, as GreptimeDB stores them in `span_status_code`. */
export const STATUS_CODE_NAMES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'] as const;

export interface ExportLogsServiceRequest {
  resourceLogs: ResourceLogs[];
}
export interface ResourceLogs {
  resource: Resource | null;
  scopeLogs: ScopeLogs[];
  schemaUrl: string;
}
export interface ScopeLogs {
  scope: InstrumentationScope | null;
  logRecords: LogRecord[];
  schemaUrl: string;
}
export interface LogRecord {
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  severityNumber: number;
  severityText: string;
  body: AnyValue | null;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  flags: number;
  traceId: Uint8Array;
  spanId: Uint8Array;
  eventName: string;
}
