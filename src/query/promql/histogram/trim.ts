/**
 * The trim operators `h </ x` (keep observations below x) and `h >/ x` (keep those above), as
 * Prometheus 3's `FloatHistogram.TrimBuckets`: buckets wholly on the kept side stay, buckets on
 * the other side empty, the bucket holding x keeps the estimated part on the kept side
 * (logarithmic interpolation in exponential buckets, linear in custom and zero buckets). Count
 * and sum are recomputed from what is kept, every bucket's observations taken at its midpoint
 * (geometric for exponential buckets), but only when something was trimmed: an untouched
 * histogram keeps its exact sum.
 *
 * Edge cases follow Prometheus' (prometheus/prometheus#17904): buckets reaching to ±Inf are kept
 * or dropped whole unless a finite bound makes a linear estimate possible; the zero bucket spreads
 * its observations over [-threshold, threshold], or over the half toward the only side that has
 * buckets.
 */
import {
  type Buckets,
  compactHistogram,
  type FloatHistogram,
  positiveBounds,
  usesCustomBuckets,
} from './float-histogram.js';

interface Split {
  keep: number;
  midpoint: number;
}

function finiteOrZero(x: number): number {
  return Number.isFinite(x) ? x : 0;
}

/** Where a surviving interval's observations are taken to sit. */
function midpoint(lower: number, upper: number, positive: boolean, linear: boolean): number {
  if (!Number.isFinite(lower)) {
    if (!Number.isFinite(upper)) return 0;
    return upper > 0 ? upper / 2 : upper;
  }
  if (!Number.isFinite(upper)) return lower;
  if (linear) return (lower + upper) / 2;
  const geometric = Math.sqrt(Math.abs(lower * upper));
  return positive ? geometric : -geometric;
}

/** Fraction of a finite bucket at or below `v` (lower < v < upper). */
function fractionBelow(lower: number, upper: number, v: number, linear: boolean): number {
  if (linear) return (v - lower) / (upper - lower);
  const logLower = Math.log2(Math.abs(lower));
  const logUpper = Math.log2(Math.abs(upper));
  const logV = Math.log2(Math.abs(v));
  if (v > 0) return (logV - logLower) / (logUpper - logLower);
  return 1 - (logV - logUpper) / (logLower - logUpper);
}

/** A bucket with an infinite bound: only custom buckets' first one can be estimated. */
function infiniteSplit(lower: number, upper: number, count: number, x: number, keepBelow: boolean): Split {
  if (lower === Number.NEGATIVE_INFINITY) {
    if (keepBelow) {
      if (x >= upper) return { keep: count, midpoint: 0 };
      // A finite positive upper bound: treat the bucket as starting at 0.
      if (x > 0 && upper > 0 && upper !== Number.POSITIVE_INFINITY)
        return { keep: (count * x) / upper, midpoint: x / 2 };
      if (upper <= 0) return { keep: count, midpoint: x };
      return { keep: 0, midpoint: finiteOrZero(upper) };
    }
    if (x <= lower) return { keep: count, midpoint: 0 };
    if (x >= 0 && upper > x && upper !== Number.POSITIVE_INFINITY)
      return { keep: count * (1 - x / upper), midpoint: (x + upper) / 2 };
    return { keep: 0, midpoint: finiteOrZero(upper) };
  }
  // Upper bound +Inf: the distribution inside is unknown, so a cut inside drops it whole.
  if (keepBelow) return { keep: 0, midpoint: finiteOrZero(lower) };
  if (x >= lower) return { keep: count, midpoint: x };
  return { keep: 0, midpoint: finiteOrZero(lower) };
}

function bucketSplit(
  lower: number,
  upper: number,
  count: number,
  x: number,
  keepBelow: boolean,
  positive: boolean,
  linear: boolean,
): Split {
  if (!Number.isFinite(lower) || !Number.isFinite(upper)) return infiniteSplit(lower, upper, count, x, keepBelow);
  let below: number;
  if (x <= lower) below = 0;
  else if (x >= upper) below = count;
  else below = count * fractionBelow(lower, upper, x, linear);
  return keepBelow
    ? { keep: below, midpoint: midpoint(lower, x, positive, linear) }
    : { keep: count - below, midpoint: midpoint(x, upper, positive, linear) };
}

function zeroSplit(
  h: FloatHistogram,
  x: number,
  hasNegative: boolean,
  hasPositive: boolean,
  keepBelow: boolean,
): Split {
  let lower = -h.zeroThreshold;
  let upper = h.zeroThreshold;
  if (hasNegative && !hasPositive) upper = 0;
  if (hasPositive && !hasNegative) lower = 0;
  const count = h.zeroCount;
  if (keepBelow) {
    if (x <= lower) return { keep: 0, midpoint: 0 };
    if (x >= upper) return { keep: count, midpoint: (lower + upper) / 2 };
    return { keep: (count * (x - lower)) / (upper - lower), midpoint: (lower + x) / 2 };
  }
  if (x <= lower) return { keep: count, midpoint: (lower + upper) / 2 };
  if (x >= upper) return { keep: 0, midpoint: 0 };
  return { keep: (count * (upper - x)) / (upper - lower), midpoint: (x + upper) / 2 };
}

/** `h </ x` when `keepBelow`, else `h >/ x`. */
export function trimHistogram(h: FloatHistogram, x: number, keepBelow: boolean): FloatHistogram {
  const linear = usesCustomBuckets(h);
  let count = 0;
  let sum = 0;
  let trimmed = false;
  const side = (b: Buckets, positive: boolean): { buckets: Buckets; any: boolean } => {
    let any = false;
    const counts = b.count.map((c, k) => {
      if (c === 0) return c;
      any = true;
      const [lo, up] = positiveBounds(h, b.index[k] as number);
      const [lower, upper] = positive ? [lo, up] : [-up, -lo];
      const whollyKept = keepBelow ? upper <= x : lower >= x;
      const straddles = keepBelow ? lower < x : upper > x;
      if (whollyKept) {
        count += c;
        sum += midpoint(lower, upper, positive, linear) * c;
        return c;
      }
      if (straddles) {
        const s = bucketSplit(lower, upper, c, x, keepBelow, positive, linear);
        count += s.keep;
        sum += s.midpoint * s.keep;
        if (s.keep !== c) trimmed = true;
        return s.keep;
      }
      trimmed = true;
      return 0;
    });
    return { buckets: { index: b.index, count: counts }, any };
  };
  const positive = side(h.positive, true);
  const negative = side(h.negative, false);
  let zeroCount = h.zeroCount;
  if (zeroCount > 0) {
    const s = zeroSplit(h, x, negative.any, positive.any, keepBelow);
    if (s.keep !== zeroCount) {
      zeroCount = s.keep;
      trimmed = true;
    }
    sum += s.midpoint * s.keep;
    count += s.keep;
  }
  if (!trimmed) return h;
  return compactHistogram({ ...h, count, sum, zeroCount, positive: positive.buckets, negative: negative.buckets });
}
