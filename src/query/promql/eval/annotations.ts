/**
 * Warnings and infos a query returns next to its result (Prometheus' `util/annotations`). Each
 * text is `PromQL warning: <what> (<line>:<col>)`, the position pointing into the query; equal
 * texts are reported once.
 */

import type { PositionRange } from '../ast.js';
import { formatFloatG } from '../go-format.js';
import { positionText } from '../parse-error.js';

/** What a histogram operation was doing when it hit a conflict, as Prometheus words it. */
export type HistogramOperation = 'addition' | 'subtraction' | 'aggregation';

/** Prometheus merges these across steps and series into one info per metric name. */
interface MonotonicityFix {
  metricName: string;
  pos: PositionRange;
  minTimeMs: number;
  maxTimeMs: number;
  minBucket: number;
  maxBucket: number;
  maxDiff: number;
  samples: number;
}

export class Annotations {
  readonly warnings = new Set<string>();
  private readonly plainInfos = new Set<string>();
  private readonly monotonicityFixes = new Map<string, MonotonicityFix>();

  constructor(private readonly query: string) {}

  /** Info texts, the merged monotonicity fixes included. */
  get infos(): string[] {
    const out = [...this.plainInfos];
    for (const fix of this.monotonicityFixes.values()) {
      const subject = withMetricName(
        'input to histogram_quantile needed to be fixed for monotonicity (see https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile)',
        fix.metricName,
      );
      if (this.query === '') {
        out.push(`PromQL info: ${subject}`);
        continue;
      }
      out.push(
        `PromQL info: ${subject}, from buckets ${formatFloatG(fix.minBucket)} to ${formatFloatG(fix.maxBucket)}, with a max diff of ${formatFloatG(fix.maxDiff, 2)}, over ${fix.samples} samples from ${rfc3339(fix.minTimeMs)} to ${rfc3339(fix.maxTimeMs)}${this.at(fix.pos)}`,
      );
    }
    return out;
  }

  /** histogram_quantile had to lift decreasing bucket counts. */
  forcedMonotonicity(
    metricName: string,
    pos: PositionRange,
    timeMs: number,
    minBucket: number,
    maxBucket: number,
    maxDiff: number,
  ): void {
    const existing = this.monotonicityFixes.get(metricName);
    if (existing === undefined) {
      this.monotonicityFixes.set(metricName, {
        metricName,
        pos,
        minTimeMs: timeMs,
        maxTimeMs: timeMs,
        minBucket,
        maxBucket,
        maxDiff,
        samples: 1,
      });
      return;
    }
    existing.minTimeMs = Math.min(existing.minTimeMs, timeMs);
    existing.maxTimeMs = Math.max(existing.maxTimeMs, timeMs);
    existing.minBucket = Math.min(existing.minBucket, minBucket);
    existing.maxBucket = Math.max(existing.maxBucket, maxBucket);
    existing.maxDiff = Math.max(existing.maxDiff, maxDiff);
    existing.samples++;
  }

  private at(pos: PositionRange): string {
    return this.query === '' ? '' : ` (${positionText(this.query, pos.start)})`;
  }

  /** Adds texts already formatted elsewhere (a shard's evaluation of part of this query). */
  addTexts(warnings: readonly string[], infos: readonly string[]): void {
    for (const text of warnings) this.warnings.add(text);
    for (const text of infos) this.plainInfos.add(text);
  }

  warn(message: string, pos: PositionRange): void {
    this.warnings.add(`PromQL warning: ${message}${this.at(pos)}`);
  }

  info(message: string, pos: PositionRange): void {
    this.plainInfos.add(`PromQL info: ${message}${this.at(pos)}`);
  }

  invalidQuantile(q: number, pos: PositionRange): void {
    this.warn(`quantile value should be between 0 and 1, got ${formatFloatG(q)}`, pos);
  }

  possibleNonCounter(metricName: string, pos: PositionRange): void {
    this.info(
      `metric might not be a counter, name does not end in _total/_sum/_count/_bucket: ${JSON.stringify(metricName)}`,
      pos,
    );
  }

  badBucketLabel(metricName: string, le: string, pos: PositionRange): void {
    this.warn(
      withMetricName(`bucket label "le" is missing or has a malformed value of ${JSON.stringify(le)}`, metricName),
      pos,
    );
  }

  sortInRangeQuery(pos: PositionRange): void {
    this.warn('sort is ineffective for range queries since results are always ordered by labels', pos);
  }

  // Native histograms (Prometheus' util/annotations texts).

  mixedFloatsHistograms(metricName: string, pos: PositionRange): void {
    this.warn(`encountered a mix of histograms and floats for metric name ${JSON.stringify(metricName)}`, pos);
  }

  mixedFloatsHistogramsInAggregation(pos: PositionRange): void {
    this.warn('encountered a mix of histograms and floats for aggregation', pos);
  }

  mixedClassicNativeHistograms(metricName: string, pos: PositionRange): void {
    this.warn(withMetricName('vector contains a mix of classic and native histograms', metricName), pos);
  }

  histogramNotCounter(metricName: string, pos: PositionRange): void {
    this.warn(`this native histogram metric is not a counter: ${JSON.stringify(metricName)}`, pos);
  }

  histogramNotGauge(metricName: string, pos: PositionRange): void {
    this.warn(`this native histogram metric is not a gauge: ${JSON.stringify(metricName)}`, pos);
  }

  mixedExponentialCustomHistograms(metricName: string, pos: PositionRange): void {
    this.warn(
      `vector contains a mix of histograms with exponential and custom buckets schemas for metric name ${JSON.stringify(metricName)}`,
      pos,
    );
  }

  incompatibleBucketLayout(operator: string, pos: PositionRange): void {
    this.warn(`incompatible bucket layout encountered for binary operator ${operator}`, pos);
  }

  counterResetCollision(operation: HistogramOperation, pos: PositionRange): void {
    this.warn(`conflicting counter resets during histogram ${operation}`, pos);
  }

  customBucketsReconciled(operation: HistogramOperation, pos: PositionRange): void {
    this.info(`mismatched custom buckets were reconciled during ${operation}`, pos);
  }

  incompatibleTypesInBinOp(lhsType: string, operator: string, rhsType: string, pos: PositionRange): void {
    this.info(
      `incompatible sample types encountered for binary operator ${JSON.stringify(operator)}: ${lhsType} ${operator} ${rhsType}`,
      pos,
    );
  }

  histogramIgnoredInAggregation(aggregation: string, pos: PositionRange): void {
    this.info(`ignored histogram in ${aggregation} aggregation`, pos);
  }

  histogramIgnoredInMixedRange(metricName: string, pos: PositionRange): void {
    this.info(
      `ignored histograms in a range containing both floats and histograms for metric name ${JSON.stringify(metricName)}`,
      pos,
    );
  }

  histogramQuantileNaN(kind: 'result' | 'skew', metricName: string, pos: PositionRange): void {
    const what = kind === 'result' ? 'result is NaN' : 'result is skewed higher';
    this.info(withMetricName(`input to histogram_quantile has NaN observations, ${what}`, metricName), pos);
  }

  histogramFractionNaNs(metricName: string, pos: PositionRange): void {
    this.info(
      withMetricName(
        'input to histogram_fraction has NaN observations, which are excluded from all fractions',
        metricName,
      ),
      pos,
    );
  }

  invalidRatio(ratio: number, capped: number, pos: PositionRange): void {
    this.warn(
      `ratio value should be between -1 and 1, got ${formatFloatG(ratio)}, capping to ${formatFloatG(capped)}`,
      pos,
    );
  }
}

function withMetricName(subject: string, metricName: string): string {
  return metricName === '' ? subject : `${subject} for metric name ${JSON.stringify(metricName)}`;
}

/** Go's RFC 3339 rendering of whole seconds in UTC. */
function rfc3339(timeMs: number): string {
  return `${new Date(Math.trunc(timeMs / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}
