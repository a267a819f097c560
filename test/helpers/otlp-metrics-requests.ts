/**
 * Builders for hand-made OTLP metrics requests in the decoded shape (lowerCamelCase fields,
 * 64-bit integers as bigint), encoded with `metricsRequestBytes` / `metricsRequestJson` from
 * `otlp-metrics.ts`.
 */
import type { MetricsRequest } from './otlp-metrics.js';

export type AttributeValue = string | number | bigint | boolean | string[];

/** One attribute: strings, doubles (number), ints (bigint), bools, and string arrays. */
export function kv(key: string, value: AttributeValue): Record<string, unknown> {
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  if (typeof value === 'bigint') return { key, value: { intValue: value } };
  if (typeof value === 'number') return { key, value: { doubleValue: value } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  return { key, value: { arrayValue: { values: value.map((v) => ({ stringValue: v })) } } };
}

export function attributes(map: Record<string, AttributeValue>): Array<Record<string, unknown>> {
  return Object.entries(map).map(([k, v]) => kv(k, v));
}

/** Nanoseconds of a millisecond time plus extra nanoseconds (which the server drops). */
export function ns(ms: number, extraNs = 0): bigint {
  return BigInt(ms) * 1_000_000n + BigInt(extraNs);
}

export interface ResourceSpec {
  attributes?: Record<string, AttributeValue>;
  scope?: { name?: string; version?: string; attributes?: Record<string, AttributeValue> };
  scopeSchemaUrl?: string;
  metrics: Array<Record<string, unknown>>;
}

/** A request of one or more resources, each with one scope. */
export function metricsRequest(...resources: ResourceSpec[]): MetricsRequest {
  return {
    resourceMetrics: resources.map((r) => ({
      resource: { attributes: attributes(r.attributes ?? {}) },
      scopeMetrics: [
        {
          scope: {
            name: r.scope?.name ?? '',
            version: r.scope?.version ?? '',
            attributes: attributes(r.scope?.attributes ?? {}),
          },
          schemaUrl: r.scopeSchemaUrl ?? '',
          metrics: r.metrics,
        },
      ],
    })),
  };
}

export interface NumberPoint {
  timeMs: number;
  value?: number | bigint;
  attributes?: Record<string, AttributeValue>;
  flags?: number;
  /** Raw time in nanoseconds, overriding timeMs. */
  timeNs?: bigint;
}

function numberPoint(p: NumberPoint): Record<string, unknown> {
  const out: Record<string, unknown> = {
    attributes: attributes(p.attributes ?? {}),
    timeUnixNano: p.timeNs ?? ns(p.timeMs),
    flags: p.flags ?? 0,
  };
  if (typeof p.value === 'bigint') out.asInt = p.value;
  else if (typeof p.value === 'number') out.asDouble = p.value;
  return out;
}

export function gauge(name: string, points: NumberPoint[], unit = '', description = ''): Record<string, unknown> {
  return { name, unit, description, gauge: { dataPoints: points.map(numberPoint) } };
}

export function sum(
  name: string,
  points: NumberPoint[],
  options: { monotonic?: boolean; temporality?: number; unit?: string; description?: string } = {},
): Record<string, unknown> {
  return {
    name,
    unit: options.unit ?? '',
    description: options.description ?? '',
    sum: {
      dataPoints: points.map(numberPoint),
      aggregationTemporality: options.temporality ?? 2,
      isMonotonic: options.monotonic ?? true,
    },
  };
}

export interface HistogramPoint {
  timeMs: number;
  bounds: number[];
  counts: number[];
  sum?: number;
  count?: number;
  attributes?: Record<string, AttributeValue>;
  flags?: number;
}

export function histogram(name: string, points: HistogramPoint[], unit = ''): Record<string, unknown> {
  return {
    name,
    unit,
    histogram: {
      aggregationTemporality: 2,
      dataPoints: points.map((p) => {
        const out: Record<string, unknown> = {
          attributes: attributes(p.attributes ?? {}),
          timeUnixNano: ns(p.timeMs),
          count: BigInt(p.count ?? p.counts.reduce((a, b) => a + b, 0)),
          bucketCounts: p.counts.map((c) => BigInt(c)),
          explicitBounds: p.bounds,
          flags: p.flags ?? 0,
        };
        if (p.sum !== undefined) out.sum = p.sum;
        return out;
      }),
    },
  };
}

export interface SummaryPoint {
  timeMs: number;
  /** Raw time in nanoseconds, overriding timeMs. */
  timeNs?: bigint;
  count: number;
  sum: number;
  quantiles: Array<[number, number]>;
  attributes?: Record<string, AttributeValue>;
  flags?: number;
}

export function summary(name: string, points: SummaryPoint[], unit = '', description = ''): Record<string, unknown> {
  return {
    name,
    unit,
    description,
    summary: {
      dataPoints: points.map((p) => ({
        attributes: attributes(p.attributes ?? {}),
        timeUnixNano: p.timeNs ?? ns(p.timeMs),
        count: BigInt(p.count),
        sum: p.sum,
        quantileValues: p.quantiles.map(([quantile, value]) => ({ quantile, value })),
        flags: p.flags ?? 0,
      })),
    },
  };
}

export interface ExponentialPoint {
  timeMs: number;
  scale: number;
  zeroCount: number;
  positive?: { offset: number; counts: number[] };
  negative?: { offset: number; counts: number[] };
  sum?: number;
  count?: number;
  zeroThreshold?: number;
  attributes?: Record<string, AttributeValue>;
}

export function exponentialHistogram(name: string, points: ExponentialPoint[], unit = ''): Record<string, unknown> {
  return {
    name,
    unit,
    exponentialHistogram: {
      aggregationTemporality: 2,
      dataPoints: points.map((p) => {
        const all = [...(p.positive?.counts ?? []), ...(p.negative?.counts ?? [])];
        const out: Record<string, unknown> = {
          attributes: attributes(p.attributes ?? {}),
          timeUnixNano: ns(p.timeMs),
          count: BigInt(p.count ?? all.reduce((a, b) => a + b, p.zeroCount)),
          scale: p.scale,
          zeroCount: BigInt(p.zeroCount),
          zeroThreshold: p.zeroThreshold ?? 0,
          flags: 0,
        };
        if (p.positive) out.positive = { offset: p.positive.offset, bucketCounts: p.positive.counts.map(BigInt) };
        if (p.negative) out.negative = { offset: p.negative.offset, bucketCounts: p.negative.counts.map(BigInt) };
        if (p.sum !== undefined) out.sum = p.sum;
        return out;
      }),
    },
  };
}
