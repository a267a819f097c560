/**
 * A decoded `ExportMetricsServiceRequest` → `TableInsert`s in the remote-write layout (reference
 * ingest §3.3; docs/otlp.md "Metrics"). One table per metric name in the request's database:
 *
 *   Gauge, Sum                 <name>                          one row per point
 *   Histogram                  <name>_bucket{le}, _sum, _count cumulative buckets, le="+Inf" last
 *   ExponentialHistogram       <name>_bucket{le}, _sum, _count converted to classic buckets
 *   Summary                    <name>{quantile}, _sum, _count
 *   (resources)                target_info                     non-promoted resource attributes
 *
 * Temporality is not converted: delta points are stored as the deltas they are (GreptimeDB's
 * behaviour). Points flagged "no recorded value" become Prometheus stale markers.
 *
 * Two kinds of bad input: a request that does not make sense as a whole (a metric without a name,
 * bucket_counts that do not match explicit_bounds) throws `OtlpBadRequest` and nothing is
 * written; a point whose values break a rule (no value, no timestamp, NaN quantile, a name that
 * escapes to nothing...) is left out and counted in `partial_success`.
 */

import { encodeStoredHistogram } from '../../../query/promql/histogram/stored-histogram.js';
import { histogramProblem } from '../../../query/promql/histogram/wire-validate.js';
import type { TableLookup } from '../../ingest/prom-remote/to-inserts.js';
import type { DecodedMetadata } from '../../ingest/prom-remote/write-decode.js';
import type { TableInsert } from '../../insert.js';
import {
  DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK,
  type ExponentialHistogramDataPoint,
  type ExportMetricsServiceRequest,
  type HistogramDataPoint,
  type KeyValue,
  type Metric,
  type NumberDataPoint,
  type SummaryDataPoint,
} from '../../proto/otlp.js';
import { OtlpMalformed } from './malformed.js';
import { classicBucketsOf, exponentialPointProblem } from './metrics-exponential.js';
import {
  plainDecimal,
  pointLabels,
  resourceLabels,
  scopeLabels,
  TARGET_INFO_METRIC,
  targetInfoLabels,
} from './metrics-labels.js';
import { metricNameOf, type NamedMetricKind, prometheusUnit } from './metrics-naming.js';
import { nativeHistogramOf } from './metrics-native.js';
import type { OtlpMetricsOptions } from './metrics-options.js';
import { MetricTableBuilder, seriesKeyOf } from './metrics-table-builder.js';

/** `MetricMetadata.MetricType` numbers used in the metadata store. */
const METADATA_TYPE = { counter: 1, gauge: 2, histogram: 3, summary: 5 } as const;

/** How many distinct rejection reasons the partial-success message lists. */
const REJECTION_REASONS_MAX = 10;

const NANOS_PER_MS = 1_000_000n;

export interface OtlpMetricsConversion {
  inserts: TableInsert[];
  /** Sample rows in `inserts` (target_info included). */
  sampleRows: number;
  metadata: DecodedMetadata[];
  acceptedPoints: number;
  rejectedPoints: number;
  /** Distinct reasons with their counts, empty when nothing was rejected. */
  rejectionMessage: string;
}

/** Where in the request a metric sits, for messages. */
function pathOf(r: number, s: number, m: number): string {
  return `resource_metrics[${r}].scope_metrics[${s}].metrics[${m}]`;
}

function metricKindOf(metric: Metric): NamedMetricKind | 'exponential-histogram' | null {
  if (metric.gauge) return 'gauge';
  if (metric.sum) return metric.sum.isMonotonic ? 'monotonic-sum' : 'sum';
  if (metric.histogram) return 'histogram';
  if (metric.exponentialHistogram) return 'exponential-histogram';
  if (metric.summary) return 'summary';
  return null;
}

function isStale(flags: number): boolean {
  return (flags & DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK) !== 0;
}

/** Maps one request. Throws `OtlpBadRequest` for malformed metrics. */
export class MetricsConversion {
  private readonly builders = new Map<string, MetricTableBuilder>();
  private readonly metadata = new Map<string, DecodedMetadata>();
  private readonly rejections = new Map<string, number>();
  private accepted = 0;
  private rejected = 0;

  constructor(
    private readonly db: string,
    private readonly options: OtlpMetricsOptions,
    private readonly lookup: TableLookup,
  ) {}

  run(request: ExportMetricsServiceRequest): OtlpMetricsConversion {
    request.resourceMetrics.forEach((resourceMetrics, r) => {
      const resource = resourceLabels(resourceMetrics.resource, this.options);
      const times = new Set<number>();
      resourceMetrics.scopeMetrics.forEach((scopeMetrics, s) => {
        const scope = resource.labels ? scopeLabels(resource.labels, scopeMetrics, this.options) : resource;
        scopeMetrics.metrics.forEach((metric, m) => {
          this.addMetric(metric, pathOf(r, s, m), scope.labels, scope.error, times);
        });
      });
      const info = targetInfoLabels(resourceMetrics.resource, this.options);
      if (info && times.size > 0) {
        const builder = this.builder(TARGET_INFO_METRIC);
        if (builder.collidingLabel(info) === null) {
          const series = builder.series(seriesKeyOf(info), info);
          for (const timeMs of [...times].sort((a, b) => a - b)) builder.add(series, timeMs, 1);
          this.describe(TARGET_INFO_METRIC, METADATA_TYPE.gauge, 'Target metadata', '');
        }
      }
    });
    const inserts = [...this.builders.values()].filter((b) => b.rowCount > 0).map((b) => b.toInsert());
    return {
      inserts,
      sampleRows: inserts.reduce((n, i) => n + i.rowCount, 0),
      metadata: [...this.metadata.values()],
      acceptedPoints: this.accepted,
      rejectedPoints: this.rejected,
      rejectionMessage: this.rejectionMessage(),
    };
  }

  /** Distinct reasons with their counts; past REJECTION_REASONS_MAX only how many more. */
  private rejectionMessage(): string {
    const reasons = [...this.rejections.entries()];
    const parts = reasons
      .slice(0, REJECTION_REASONS_MAX)
      .map(([reason, count]) => `${reason} (${count} data point${count === 1 ? '' : 's'})`);
    if (reasons.length > REJECTION_REASONS_MAX) parts.push(`${reasons.length - REJECTION_REASONS_MAX} more reasons`);
    return parts.join('; ');
  }

  private builder(table: string): MetricTableBuilder {
    let builder = this.builders.get(table);
    if (!builder) {
      builder = new MetricTableBuilder(this.db, table, this.lookup(this.db, table));
      this.builders.set(table, builder);
    }
    return builder;
  }

  private reject(reason: string, points = 1): void {
    if (points === 0) return;
    this.rejected += points;
    this.rejections.set(reason, (this.rejections.get(reason) ?? 0) + points);
  }

  private describe(family: string, type: number, help: string, unit: string): void {
    this.metadata.set(family, { family, type, help, unit });
  }

  private addMetric(
    metric: Metric,
    path: string,
    base: Map<string, string> | null,
    baseError: string | null,
    times: Set<number>,
  ): void {
    if (metric.name === '') throw new OtlpMalformed(`${path}: metric name is required`);
    const kind = metricKindOf(metric);
    if (kind === null) return; // no data: nothing to store, nothing to reject
    const pointCount = (
      metric.gauge ??
      metric.sum ??
      metric.histogram ??
      metric.exponentialHistogram ??
      metric.summary ?? { dataPoints: [] }
    ).dataPoints.length;
    if (metric.histogram) checkHistogramShape(metric.histogram.dataPoints, path);
    if (base === null) {
      this.reject(`${baseError ?? 'invalid labels'} in ${path}`, pointCount);
      return;
    }
    const name = metricNameOf(
      metric.name,
      metric.unit,
      kind === 'exponential-histogram' ? 'histogram' : kind,
      this.options.strategy,
    );
    if (name === '') {
      this.reject(`metric name ${JSON.stringify(metric.name)} gives no valid metric name`, pointCount);
      return;
    }
    const acceptedBefore = this.accepted;
    const context: PointContext = { name, base, times, path };
    if (metric.gauge) for (const p of metric.gauge.dataPoints) this.addNumberPoint(context, p);
    else if (metric.sum) for (const p of metric.sum.dataPoints) this.addNumberPoint(context, p);
    else if (metric.histogram) for (const p of metric.histogram.dataPoints) this.addHistogramPoint(context, p);
    else if (metric.exponentialHistogram) {
      for (const p of metric.exponentialHistogram.dataPoints) this.addExponentialPoint(context, p);
    } else if (metric.summary) for (const p of metric.summary.dataPoints) this.addSummaryPoint(context, p);
    if (this.accepted === acceptedBefore) return;
    const unit = prometheusUnit(metric.unit);
    const type =
      kind === 'monotonic-sum'
        ? METADATA_TYPE.counter
        : kind === 'gauge' || kind === 'sum'
          ? METADATA_TYPE.gauge
          : kind === 'summary'
            ? METADATA_TYPE.summary
            : METADATA_TYPE.histogram;
    this.describe(name, type, metric.description, unit);
  }

  /**
   * The labels and time of a point, or null when the point is rejected (the reason recorded).
   * `overwritten` is the label the table sets itself (`le`, `quantile`), dropped from the point's.
   */
  private prepare(
    context: PointContext,
    attributes: readonly KeyValue[],
    timeUnixNano: bigint,
    tables: readonly string[],
    overwritten: string | null,
  ): { labels: Map<string, string>; key: string; timeMs: number } | null {
    const result = pointLabels(context.base, attributes, this.options);
    if (result.labels === null) {
      this.reject(`${result.error} in ${context.path}`);
      return null;
    }
    const labels = result.labels;
    if (overwritten !== null) labels.delete(overwritten);
    if (labels.has('__name__')) {
      this.reject(`attribute __name__ is reserved in ${context.path}`);
      return null;
    }
    for (const table of tables) {
      const colliding = this.builder(table).collidingLabel(labels);
      if (colliding !== null) {
        this.reject(`label ${colliding} collides with a column of table ${table} in ${context.path}`);
        return null;
      }
    }
    if (timeUnixNano <= 0n) {
      this.reject(`data point without time_unix_nano in ${context.path}`);
      return null;
    }
    const timeMs = Number(timeUnixNano / NANOS_PER_MS);
    return { labels, key: seriesKeyOf(labels), timeMs };
  }

  private accept(context: PointContext, timeMs: number): void {
    this.accepted++;
    context.times.add(timeMs);
  }

  private addNumberPoint(context: PointContext, point: NumberDataPoint): void {
    const stale = isStale(point.flags);
    const value = point.asDouble ?? (point.asInt === undefined ? undefined : Number(point.asInt));
    if (value === undefined && !stale) {
      this.reject(`data point without a value in ${context.path}`);
      return;
    }
    const prepared = this.prepare(context, point.attributes, point.timeUnixNano, [context.name], null);
    if (!prepared) return;
    const builder = this.builder(context.name);
    builder.add(builder.series(prepared.key, prepared.labels), prepared.timeMs, value ?? 0, stale);
    this.accept(context, prepared.timeMs);
  }

  /** Writes `_sum` (when given) and `_count` of a histogram or summary point. */
  private addSumAndCount(
    context: PointContext,
    prepared: { labels: Map<string, string>; key: string; timeMs: number },
    sum: number | undefined,
    count: number,
    stale: boolean,
  ): void {
    if (sum !== undefined) {
      const sums = this.builder(`${context.name}_sum`);
      sums.add(sums.series(prepared.key, prepared.labels), prepared.timeMs, sum, stale);
    }
    const counts = this.builder(`${context.name}_count`);
    counts.add(counts.series(prepared.key, prepared.labels), prepared.timeMs, count, stale);
  }

  /** Writes one `_bucket` row per (le, cumulative count). */
  private addBuckets(
    context: PointContext,
    prepared: { labels: Map<string, string>; key: string; timeMs: number },
    les: readonly string[],
    counts: readonly number[],
    stale: boolean,
  ): void {
    const buckets = this.builder(`${context.name}_bucket`);
    for (let k = 0; k < les.length; k++) {
      const series = buckets.extendedSeries(prepared.key, prepared.labels, 'le', les[k] as string);
      buckets.add(series, prepared.timeMs, counts[k] as number, stale);
    }
  }

  private histogramTables(name: string): string[] {
    return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  }

  private addHistogramPoint(context: PointContext, point: HistogramDataPoint): void {
    const stale = isStale(point.flags);
    const bounds = point.explicitBounds;
    if (!stale) {
      for (let k = 0; k < bounds.length; k++) {
        if (Number.isNaN(bounds[k]) || (k > 0 && !((bounds[k] as number) > (bounds[k - 1] as number)))) {
          this.reject(`histogram explicit_bounds are not strictly increasing in ${context.path}`);
          return;
        }
      }
      if (point.bucketCounts.length > 0) {
        let total = 0n;
        for (const c of point.bucketCounts) total += c;
        if (total !== point.count) {
          this.reject(
            `histogram count ${point.count} differs from the sum of bucket_counts ${total} in ${context.path}`,
          );
          return;
        }
      }
    }
    const prepared = this.prepare(
      context,
      point.attributes,
      point.timeUnixNano,
      this.histogramTables(context.name),
      'le',
    );
    if (!prepared) return;
    // A stale point marks every bucket series, even when it carries no counts.
    if (point.bucketCounts.length > 0 || stale) {
      const les: string[] = [];
      const counts: number[] = [];
      let cumulative = 0n;
      for (let k = 0; k < bounds.length; k++) {
        cumulative += point.bucketCounts[k] ?? 0n;
        les.push(plainDecimal(bounds[k] as number));
        counts.push(Number(cumulative));
      }
      les.push('+Inf');
      counts.push(Number(point.count));
      this.addBuckets(context, prepared, les, counts, stale);
    }
    this.addSumAndCount(context, prepared, point.sum, Number(point.count), stale);
    this.accept(context, prepared.timeMs);
  }

  private addExponentialPoint(context: PointContext, point: ExponentialHistogramDataPoint): void {
    if (this.options.exponentialHistograms === 'native') {
      this.addNativePoint(context, point);
      return;
    }
    const stale = isStale(point.flags);
    if (!stale) {
      const problem = exponentialPointProblem(point);
      if (problem !== null) {
        this.reject(`${problem} in ${context.path}`);
        return;
      }
    }
    const prepared = this.prepare(
      context,
      point.attributes,
      point.timeUnixNano,
      this.histogramTables(context.name),
      'le',
    );
    if (!prepared) return;
    // A stale point usually has no buckets: then only +Inf is marked (the other bucket series
    // end by the lookback delta).
    const { les, counts } =
      stale && exponentialPointProblem(point) !== null ? { les: ['+Inf'], counts: [0] } : classicBucketsOf(point);
    this.addBuckets(context, prepared, les, counts, stale);
    this.addSumAndCount(context, prepared, point.sum, Number(point.count), stale);
    this.accept(context, prepared.timeMs);
  }

  /**
   * An exponential histogram point as one native histogram row of the metric's own table. A
   * point flagged "no recorded value" ends the series with a float stale marker in that table
   * (the engine drops it as it drops every stale marker).
   */
  private addNativePoint(context: PointContext, point: ExponentialHistogramDataPoint): void {
    const stale = isStale(point.flags);
    let stored: string | null = null;
    if (!stale) {
      const problem = exponentialPointProblem(point);
      if (problem !== null) {
        this.reject(`${problem} in ${context.path}`);
        return;
      }
    }
    const prepared = this.prepare(context, point.attributes, point.timeUnixNano, [context.name], null);
    if (!prepared) return;
    if (!stale) {
      const native = nativeHistogramOf(point, prepared.timeMs);
      const problem = 'problem' in native ? native.problem : histogramProblem(native);
      if (problem !== null || 'problem' in native) {
        this.reject(`${problem} in ${context.path}`);
        return;
      }
      stored = encodeStoredHistogram(native);
    }
    const builder = this.builder(context.name);
    const series = builder.series(prepared.key, prepared.labels);
    if (stored === null) builder.add(series, prepared.timeMs, 0, true);
    else builder.addHistogram(series, prepared.timeMs, stored);
    this.accept(context, prepared.timeMs);
  }

  private addSummaryPoint(context: PointContext, point: SummaryDataPoint): void {
    const stale = isStale(point.flags);
    if (!stale) {
      for (const q of point.quantileValues) {
        if (!(q.quantile >= 0 && q.quantile <= 1)) {
          this.reject(`summary quantile ${q.quantile} is outside [0, 1] in ${context.path}`);
          return;
        }
      }
    }
    const prepared = this.prepare(
      context,
      point.attributes,
      point.timeUnixNano,
      [context.name, `${context.name}_sum`, `${context.name}_count`],
      'quantile',
    );
    if (!prepared) return;
    const quantiles = this.builder(context.name);
    for (const q of point.quantileValues) {
      const label = plainDecimal(q.quantile);
      const series = quantiles.extendedSeries(prepared.key, prepared.labels, 'quantile', label);
      quantiles.add(series, prepared.timeMs, q.value, stale);
    }
    this.addSumAndCount(context, prepared, point.sum, Number(point.count), stale);
    this.accept(context, prepared.timeMs);
  }
}

interface PointContext {
  /** The metric name, before table suffixes. */
  name: string;
  base: Map<string, string>;
  /** Times (ms) of the resource's accepted points: where its target_info rows go. */
  times: Set<number>;
  path: string;
}

/**
 * bucket_counts must have one entry more than explicit_bounds (or none at all): anything else is
 * a malformed request, not a bad value.
 */
function checkHistogramShape(points: readonly HistogramDataPoint[], path: string): void {
  points.forEach((point, k) => {
    const buckets = point.bucketCounts.length;
    if (buckets !== 0 && buckets !== point.explicitBounds.length + 1) {
      throw new OtlpMalformed(
        `${path}.histogram.data_points[${k}]: ${buckets} bucket_counts for ${point.explicitBounds.length} explicit_bounds (expected ${point.explicitBounds.length + 1})`,
      );
    }
  });
}

/** Maps a decoded request into inserts for database `db`. */
export function otlpMetricsToInserts(
  request: ExportMetricsServiceRequest,
  db: string,
  options: OtlpMetricsOptions,
  lookup: TableLookup,
): OtlpMetricsConversion {
  return new MetricsConversion(db, options, lookup).run(request);
}
