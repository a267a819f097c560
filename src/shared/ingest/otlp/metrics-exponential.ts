/**
 * OTLP exponential histogram points → classic cumulative buckets (`le` upper bounds), so that they
 * are stored like explicit-bucket histograms (`<name>_bucket`, `_sum`, `_count`) and PromQL's
 * `histogram_quantile(φ, rate(<name>_bucket[5m]))` works on them unchanged. docs/otlp.md
 * ("Exponential histograms") is the user-facing description of this layout.
 *
 * Bucket `i` of scale `s` holds values whose magnitude lies in (base^i, base^(i+1)] with
 * base = 2^(2^-s). The cumulative buckets run from the most negative upwards:
 *
 *   negative bucket i (highest i first)   le = -base^i
 *   zero bucket (|v| <= zero_threshold)   le = zero_threshold            (always written)
 *   positive bucket i (lowest i first)    le = base^(i+1)
 *   overflow                              le = +Inf, value = count
 *
 * Bounds that round to the same label text (underflow to 0) share one row, the larger count;
 * bounds that overflow to ±Infinity have no row of their own (their counts are in every row above
 * them and in +Inf). Bounds are computed as `2 ** (k / 2 ** s)`, the same way for every point, so
 * a series keeps its `le` labels as long as the exporter keeps its scale.
 */

import type { ExponentialHistogramDataPoint } from '../../proto/otlp.js';
import { plainDecimal } from './metrics-labels.js';

/** Scales the OTLP data model allows (metrics data model, "Exponential Scale"). */
export const EXPONENTIAL_SCALE_MIN = -10;
export const EXPONENTIAL_SCALE_MAX = 20;

/** Classic cumulative buckets: `les[k]` is the label of `counts[k]`; the last is `+Inf`. */
export interface ClassicBuckets {
  les: string[];
  counts: number[];
}

/** The upper bound of bucket index `index` at `scale`: base^index. */
function boundOf(index: number, scale: number): number {
  return 2 ** (index / 2 ** scale);
}

/**
 * Why a point cannot be converted (a value the data model forbids), or null. Checked before
 * `classicBucketsOf`; points flagged "no recorded value" are not checked.
 */
export function exponentialPointProblem(point: ExponentialHistogramDataPoint): string | null {
  if (!Number.isInteger(point.scale) || point.scale < EXPONENTIAL_SCALE_MIN || point.scale > EXPONENTIAL_SCALE_MAX) {
    return `exponential histogram scale ${point.scale} is outside [${EXPONENTIAL_SCALE_MIN}, ${EXPONENTIAL_SCALE_MAX}]`;
  }
  if (!(point.zeroThreshold >= 0) || point.zeroThreshold === Number.POSITIVE_INFINITY) {
    return `exponential histogram zero_threshold ${point.zeroThreshold} is not a finite non-negative number`;
  }
  let total = point.zeroCount;
  for (const c of point.positive?.bucketCounts ?? []) total += c;
  for (const c of point.negative?.bucketCounts ?? []) total += c;
  if (total !== point.count) {
    return `exponential histogram count ${point.count} differs from the sum of its buckets ${total}`;
  }
  return null;
}

/** The classic buckets of a point (see the file comment for the layout). */
export function classicBucketsOf(point: ExponentialHistogramDataPoint): ClassicBuckets {
  const les: string[] = [];
  const counts: number[] = [];
  let cumulative = 0;
  const push = (bound: number, count: number): void => {
    cumulative += count;
    if (!Number.isFinite(bound)) return;
    const le = plainDecimal(bound);
    if (les.length > 0 && les[les.length - 1] === le) counts[counts.length - 1] = cumulative;
    else {
      les.push(le);
      counts.push(cumulative);
    }
  };
  const scale = point.scale;
  const negative = point.negative;
  if (negative) {
    for (let k = negative.bucketCounts.length - 1; k >= 0; k--) {
      push(-boundOf(negative.offset + k, scale), Number(negative.bucketCounts[k]));
    }
  }
  push(point.zeroThreshold, Number(point.zeroCount));
  const positive = point.positive;
  if (positive) {
    for (let k = 0; k < positive.bucketCounts.length; k++) {
      push(boundOf(positive.offset + k + 1, scale), Number(positive.bucketCounts[k]));
    }
  }
  les.push('+Inf');
  counts.push(Number(point.count));
  return { les, counts };
}
