/**
 * Counter-reset detection between consecutive samples of a counter histogram (Prometheus'
 * `FloatHistogram.DetectReset`). An explicit hint decides; otherwise any population that went
 * down, or a layout change that cannot be an increase (finer schema, narrower zero bucket, new
 * custom bounds that lose counts) is a reset. Gauge histograms are compared like counters: the
 * caller warns that they are not counters.
 */

import { intersectBounds, reduceBuckets, widenedThreshold, withZeroThreshold } from './arithmetic.js';
import { type Buckets, type FloatHistogram, usesCustomBuckets } from './float-histogram.js';

export function isCounterReset(current: FloatHistogram, previous: FloatHistogram): boolean {
  if (current.hint === 'reset') return true;
  if (current.hint === 'not_reset') return false;
  if (current.count < previous.count) return true;
  if (usesCustomBuckets(current) || usesCustomBuckets(previous)) {
    if (!usesCustomBuckets(current) || !usesCustomBuckets(previous)) return true;
    return customBucketsDecreased(current, previous);
  }
  if (current.schema > previous.schema) return true;
  if (current.zeroThreshold < previous.zeroThreshold) return true;
  if (widenedThreshold(previous, current.zeroThreshold) !== current.zeroThreshold) return true;
  const widened = withZeroThreshold(previous, current.zeroThreshold);
  if (current.zeroCount < widened.zeroCount) return true;
  return (
    anyBucketDecreased(current.positive, reduceBuckets(widened.positive, previous.schema, current.schema)) ||
    anyBucketDecreased(current.negative, reduceBuckets(widened.negative, previous.schema, current.schema))
  );
}

function anyBucketDecreased(current: Buckets, previous: Buckets): boolean {
  const now = new Map<number, number>();
  for (let k = 0; k < current.index.length; k++) now.set(current.index[k] as number, current.count[k] as number);
  for (let k = 0; k < previous.index.length; k++) {
    const before = previous.count[k] as number;
    if (before === 0) continue;
    const after = now.get(previous.index[k] as number);
    if (after === undefined || after < before) return true;
  }
  return false;
}

/** Per range between the bounds both share, the population must not go down. */
function customBucketsDecreased(current: FloatHistogram, previous: FloatHistogram): boolean {
  const bounds = [...intersectBounds(current.customValues, previous.customValues), Number.POSITIVE_INFINITY];
  const now = segmentSums(current, bounds);
  const before = segmentSums(previous, bounds);
  return now.some((v, k) => v < (before[k] as number));
}

function segmentSums(h: FloatHistogram, bounds: readonly number[]): number[] {
  const sums = new Array<number>(bounds.length).fill(0);
  let segment = 0;
  for (let k = 0; k < h.positive.index.length; k++) {
    const idx = h.positive.index[k] as number;
    const upper = idx < h.customValues.length ? (h.customValues[idx] as number) : Number.POSITIVE_INFINITY;
    while ((bounds[segment] as number) < upper) segment++;
    sums[segment] = (sums[segment] as number) + (h.positive.count[k] as number);
  }
  return sums;
}
