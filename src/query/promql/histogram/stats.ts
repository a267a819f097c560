/**
 * Estimations over one native histogram: quantile, fraction, variance (Prometheus'
 * `HistogramQuantile`, `HistogramFraction`, `histogramVariance`). Within an exponential bucket
 * observations are assumed spread exponentially (evenly on a log scale); within the zero bucket
 * and custom buckets, linearly. A NaN sum means some observations were NaN: they are not in any
 * bucket, which the callers report.
 */

import { allBuckets, type Bucket, type FloatHistogram, usesCustomBuckets } from './float-histogram.js';

export interface Estimate {
  value: number;
  /** The estimate is NaN because of NaN observations. */
  nanResult?: boolean;
  /** NaN observations made the estimate higher than it would be. */
  nanSkew?: boolean;
  /** NaN observations were left out of the fraction. */
  nanExcluded?: boolean;
}

function isZeroBucket(b: Bucket): boolean {
  return b.lower <= 0 && b.upper >= 0;
}

/** The φ-quantile of the observations. */
export function histogramQuantile(q: number, h: FloatHistogram): Estimate {
  if (q < 0) return { value: Number.NEGATIVE_INFINITY };
  if (q > 1) return { value: Number.POSITIVE_INFINITY };
  if (h.count === 0 || Number.isNaN(q)) return { value: Number.NaN };
  const fromBelow = Number.isNaN(h.sum) || q < 0.5;
  const buckets = allBuckets(h);
  if (!fromBelow) buckets.reverse();
  let rank = fromBelow ? q * h.count : (1 - q) * h.count;
  let count = 0;
  let k = 0;
  let bucket: Bucket = { lower: 0, upper: 0, count: 0, lowerInclusive: false };
  for (; k < buckets.length; k++) {
    bucket = { ...(buckets[k] as Bucket) };
    if (bucket.count === 0) continue;
    count += bucket.count;
    if (count >= rank) break;
  }
  if (!usesCustomBuckets(h) && bucket.lower < 0 && bucket.upper > 0) {
    // With observations on one side only, the zero bucket's other half is empty.
    if (h.negative.index.length === 0 && h.positive.index.length > 0) bucket.lower = 0;
    else if (h.positive.index.length === 0 && h.negative.index.length > 0) bucket.upper = 0;
  } else if (usesCustomBuckets(h)) {
    if (bucket.lower === Number.NEGATIVE_INFINITY) {
      if (bucket.upper <= 0) return { value: bucket.upper };
      bucket.lower = 0;
    } else if (bucket.upper === Number.POSITIVE_INFINITY) return { value: bucket.lower };
  }
  if (count > h.count) count = h.count;
  if (count < rank) {
    if (Number.isNaN(h.sum)) return { value: Number.NaN, nanResult: true };
    return { value: bucket.upper };
  }
  if (fromBelow) rank -= count - bucket.count;
  else rank = count - rank;
  let nanSkew = false;
  if (Number.isNaN(h.sum)) {
    for (let j = k + 1; j < buckets.length; j++) count += (buckets[j] as Bucket).count;
    nanSkew = count < h.count;
  }
  const fraction = rank / bucket.count;
  const extra = nanSkew ? { nanSkew } : {};
  if (usesCustomBuckets(h) || isZeroBucket(bucket)) {
    return { value: bucket.lower + (bucket.upper - bucket.lower) * fraction, ...extra };
  }
  const logLower = Math.log2(Math.abs(bucket.lower));
  const logUpper = Math.log2(Math.abs(bucket.upper));
  if (bucket.lower > 0) return { value: 2 ** (logLower + (logUpper - logLower) * fraction), ...extra };
  return { value: -(2 ** (logUpper + (logLower - logUpper) * (1 - fraction))), ...extra };
}

/** Share of the bucket's population below `v`. */
function fractionBelow(b: Bucket, v: number, linear: boolean): number {
  if (linear) return (v - b.lower) / (b.upper - b.lower);
  const logLower = Math.log2(Math.abs(b.lower));
  const logUpper = Math.log2(Math.abs(b.upper));
  const logV = Math.log2(Math.abs(v));
  if (v > 0) return (logV - logLower) / (logUpper - logLower);
  return 1 - (logV - logUpper) / (logLower - logUpper);
}

/** Estimated share of observations between `lower` and `upper`. */
export function histogramFraction(lower: number, upper: number, h: FloatHistogram): Estimate {
  if (h.count === 0 || Number.isNaN(lower) || Number.isNaN(upper)) return { value: Number.NaN };
  if (lower >= upper) return { value: 0 };
  const buckets = allBuckets(h);
  let count = 0;
  let rank = 0;
  let lowerRank = 0;
  let upperRank = 0;
  let lowerSet = false;
  let upperSet = false;
  let k = 0;
  for (; k < buckets.length; k++) {
    const b = { ...(buckets[k] as Bucket) };
    count += b.count;
    const zero = isZeroBucket(b);
    if (zero) {
      if (h.negative.index.length === 0 && h.positive.index.length > 0) b.lower = 0;
      else if (h.positive.index.length === 0 && h.negative.index.length > 0) b.upper = 0;
    }
    const linear = usesCustomBuckets(h) || zero;
    const interpolate = (v: number): number =>
      linear && b.lower === Number.NEGATIVE_INFINITY ? b.count : rank + b.count * fractionBelow(b, v, linear);
    if (!lowerSet && b.lower >= lower) {
      lowerRank = rank;
      lowerSet = true;
    }
    if (!upperSet && b.lower >= upper) {
      upperRank = rank;
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    if (!lowerSet && b.lower < lower && b.upper > lower) {
      lowerRank = interpolate(lower);
      lowerSet = true;
    }
    if (!upperSet && b.lower < upper && b.upper > upper) {
      upperRank = interpolate(upper);
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    rank += b.count;
  }
  let nanExcluded = false;
  if (Number.isNaN(h.sum)) {
    for (let j = k + 1; j < buckets.length; j++) count += (buckets[j] as Bucket).count;
    nanExcluded = count < h.count;
  } else count = h.count;
  if (!lowerSet || lowerRank > count) lowerRank = count;
  if (!upperSet || upperRank > count) upperRank = count;
  const value = (upperRank - lowerRank) / h.count;
  return nanExcluded ? { value, nanExcluded } : { value };
}

/**
 * Estimated variance of the observations: each bucket's population sits at one representative
 * value (the geometric mean of an exponential bucket's bounds, the middle of a custom one, zero
 * for the zero bucket) and the mean is `sum / count`.
 */
export function histogramVariance(h: FloatHistogram): number {
  const mean = h.sum / h.count;
  let variance = 0;
  let compensation = 0;
  for (const b of allBuckets(h)) {
    if (b.count === 0) continue;
    let value: number;
    if (usesCustomBuckets(h)) value = (b.upper + b.lower) / 2;
    else if (b.lower <= 0 && b.upper >= 0) value = 0;
    else {
      value = Math.sqrt(b.upper * b.lower);
      if (b.upper < 0) value = -value;
    }
    const term = b.count * (value - mean) ** 2;
    // Neumaier's compensation, as Prometheus sums these terms.
    const t = variance + term;
    if (!Number.isFinite(t)) compensation = 0;
    else if (Math.abs(variance) >= Math.abs(term)) compensation += variance - t + term;
    else compensation += term - t + variance;
    variance = t;
  }
  return (variance + compensation) / h.count;
}
