/**
 * Helpers for OTLP metrics tests: a real OpenTelemetry JS SDK pipeline (MeterProvider → reader →
 * OTLP/HTTP exporter, protobuf or JSON) pointed at a test server, hand-built requests encoded with
 * the server's own schema, and PromQL queries through the Prometheus HTTP API.
 */
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import { encodeOtlpJson } from '../../src/shared/ingest/otlp/json.js';
import { OtlpTypes } from '../../src/shared/proto/otlp.js';

export type SdkEncoding = 'proto' | 'json';

export interface SdkPipelineOptions {
  url: string;
  encoding: SdkEncoding;
  temporality?: 'cumulative' | 'delta';
  resource?: Record<string, string | number | boolean>;
  views?: ViewOptions[];
  headers?: Record<string, string>;
}

/** What one collection exported: the SDK's data and the exporter's result. */
export interface Export {
  resourceMetrics: ResourceMetrics;
  code: number;
  error: Error | undefined;
}

export interface SdkPipeline {
  provider: MeterProvider;
  /** Collects every instrument now and exports it; resolves with what was sent. */
  collect(): Promise<Export>;
  /** Shuts the SDK down without exporting again. */
  close(): Promise<void>;
}

/**
 * A MeterProvider whose reader exports only when `collect()` asks (the periodic timer is an hour),
 * so a test decides when points are taken and knows each point's exact timestamp.
 */
export function sdkPipeline(options: SdkPipelineOptions): SdkPipeline {
  const exporterOptions = {
    url: `${options.url}/v1/otlp/v1/metrics`,
    headers: options.headers ?? {},
    temporalityPreference:
      options.temporality === 'delta' ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE,
  };
  const inner: PushMetricExporter =
    options.encoding === 'proto' ? new ProtoMetricExporter(exporterOptions) : new JsonMetricExporter(exporterOptions);
  const exports: Export[] = [];
  let closed = false;
  const exporter: PushMetricExporter = {
    export(metrics, done) {
      if (closed) {
        done({ code: 0 });
        return;
      }
      inner.export(metrics, (result) => {
        exports.push({ resourceMetrics: metrics, code: result.code, error: result.error });
        done(result);
      });
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
  if (inner.selectAggregationTemporality)
    exporter.selectAggregationTemporality = inner.selectAggregationTemporality.bind(inner);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({
    resource: resourceFromAttributes(options.resource ?? {}),
    readers: [reader],
    views: options.views ?? [],
  });
  return {
    provider,
    async collect() {
      const before = exports.length;
      await reader.forceFlush();
      const sent = exports[before];
      if (!sent) throw new Error('the reader exported nothing');
      return sent;
    },
    async close() {
      closed = true;
      await provider.shutdown();
    },
  };
}

/** [seconds, nanoseconds] → milliseconds since the epoch, floored as the server stores it. */
export function hrTimeToMs(time: [number, number]): number {
  return time[0] * 1000 + Math.floor(time[1] / 1_000_000);
}

/** The end time (ms) of the first point of metric `name` in an export. */
export function pointTimeMs(sent: Export, name: string): number {
  for (const scope of sent.resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name === name) {
        const point = metric.dataPoints[0];
        if (point) return hrTimeToMs(point.endTime);
      }
    }
  }
  throw new Error(`metric ${name} not in the export`);
}

/** A hand-built request (decoded-shape field names, 64-bit integers as bigint or decimal text). */
export type MetricsRequest = Record<string, unknown>;

/**
 * A copy with every bigint as decimal text (protobufjs' `fromObject` takes that for 64-bit fields).
 * Not a JSON round trip: that would turn NaN and infinities into null.
 */
function withDecimalLongs(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(withDecimalLongs);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withDecimalLongs(v)]));
  }
  return value;
}

/** Protobuf bytes of a hand-built ExportMetricsServiceRequest. */
export function metricsRequestBytes(request: MetricsRequest): Uint8Array {
  const type = OtlpTypes.exportMetricsRequest;
  const wire = withDecimalLongs(request) as Record<string, unknown>;
  const message = type.fromObject(wire);
  const error = type.verify(message);
  if (error) throw new Error(`test request does not fit the schema: ${error}`);
  return type.encode(message).finish();
}

/** OTLP/JSON text of a hand-built ExportMetricsServiceRequest. */
export function metricsRequestJson(request: MetricsRequest): string {
  return encodeOtlpJson(OtlpTypes.exportMetricsRequest, request);
}

export interface OtlpAnswer {
  status: number;
  contentType: string | null;
  body: Uint8Array;
}

/** POSTs a raw body to the metrics endpoint. */
export async function postMetrics(
  url: string,
  body: Uint8Array | string,
  contentType: string | null = 'application/x-protobuf',
  headers: Record<string, string> = {},
): Promise<OtlpAnswer> {
  const all: Record<string, string> = { ...headers };
  if (contentType !== null) all['content-type'] = contentType;
  const res = await fetch(`${url}/v1/otlp/v1/metrics`, { method: 'POST', headers: all, body });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: new Uint8Array(await res.arrayBuffer()),
  };
}

/** Decodes a protobuf ExportMetricsServiceResponse into a plain object (longs as numbers). */
export function decodeMetricsResponse(body: Uint8Array): { partialSuccess?: Record<string, unknown> } {
  const type = OtlpTypes.exportMetricsResponse;
  return type.toObject(type.decode(body), { longs: Number }) as { partialSuccess?: Record<string, unknown> };
}

/** Decodes a protobuf google.rpc.Status. */
export function decodeStatus(body: Uint8Array): { code?: number; message?: string } {
  const type = OtlpTypes.rpcStatus;
  return type.toObject(type.decode(body)) as { code?: number; message?: string };
}

export interface PromVector {
  metric: Record<string, string>;
  value: [number, string];
}

/** An instant PromQL query at `timeMs`; returns the vector (throws on an error answer). */
export async function promQuery(url: string, query: string, timeMs: number, db?: string): Promise<PromVector[]> {
  const params = new URLSearchParams({ query, time: String(timeMs / 1000) });
  if (db) params.set('db', db);
  const res = await fetch(`${url}/v1/metricsapi/api/v1/query?${params}`);
  const body = (await res.json()) as { status: string; data?: { resultType: string; result: PromVector[] } };
  if (res.status !== 200 || body.status !== 'success' || !body.data) {
    throw new Error(`query ${query} failed: ${res.status} ${JSON.stringify(body)}`);
  }
  return body.data.result;
}

/** The vector's elements sorted by their label text, for order-free comparisons. */
export function sortedVector(vector: PromVector[]): PromVector[] {
  return [...vector].sort((a, b) => (JSON.stringify(a.metric) < JSON.stringify(b.metric) ? -1 : 1));
}

/**
 * Prometheus' `rate()` of a counter with exactly two samples in the window (promql/functions.go
 * `extrapolatedRate`), the oracle for rate checks on SDK data whose timestamps are real time.
 */
export function expectedRate(
  first: { t: number; v: number },
  last: { t: number; v: number },
  evalMs: number,
  rangeMs: number,
): number {
  const rangeStart = evalMs - rangeMs;
  const result = last.v - first.v;
  let toStart = (first.t - rangeStart) / 1000;
  let toEnd = (evalMs - last.t) / 1000;
  const sampled = (last.t - first.t) / 1000;
  const average = sampled;
  const threshold = average * 1.1;
  if (toStart >= threshold) toStart = average / 2;
  if (result > 0 && first.v >= 0) {
    const toZero = sampled * (first.v / result);
    if (toZero < toStart) toStart = toZero;
  }
  if (toEnd >= threshold) toEnd = average / 2;
  return (result * ((sampled + toStart + toEnd) / sampled)) / (rangeMs / 1000);
}
