/**
 * The `*_over_time` aggregations: one value per series per window, computed in a single pass over
 * [lo, hi) without allocating. Every function returns undefined for an empty window.
 *
 * Numerics follow Prometheus: sums and means use compensated summation, the mean switches to an
 * incremental form once the plain sum would overflow, and the variance is Welford's with
 * compensated accumulators.
 */

import { kahan, kahanAdd } from './kahan.js';
import type { RangeWindow } from './range-window.js';

/** Mean of the window's values. */
export function avgOverTime(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let sum = v[lo] as number;
  let compensation = 0;
  let mean = 0;
  let count = 1;
  let incremental = false;
  for (let i = lo + 1; i < hi; i++) {
    const value = v[i] as number;
    count = i - lo + 1;
    if (!incremental) {
      const next = kahanAdd(value, sum, compensation);
      if (next !== Number.POSITIVE_INFINITY && next !== Number.NEGATIVE_INFINITY) {
        sum = next;
        compensation = kahan.compensation;
        continue;
      }
      // The plain sum overflowed although the mean may not: continue as a running mean.
      incremental = true;
      mean = sum / (count - 1);
      compensation /= count - 1;
    }
    const keep = (count - 1) / count;
    mean = kahanAdd(value / count, keep * mean, keep * compensation);
    compensation = kahan.compensation;
  }
  if (incremental) return mean + compensation;
  return sum / count + compensation / count;
}

/** Sum of the window's values. */
export function sumOverTime(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let sum = 0;
  let compensation = 0;
  for (let i = lo; i < hi; i++) {
    sum = kahanAdd(v[i] as number, sum, compensation);
    compensation = kahan.compensation;
  }
  if (sum === Number.POSITIVE_INFINITY || sum === Number.NEGATIVE_INFINITY) return sum;
  return sum + compensation;
}

/** Smallest value; NaN only when every value is NaN, as a NaN is replaced by any later number. */
export function minOverTime(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let best = v[lo] as number;
  for (let i = lo + 1; i < hi; i++) {
    const value = v[i] as number;
    if (value < best || Number.isNaN(best)) best = value;
  }
  return best;
}

/** Largest value; NaN only when every value is NaN. */
export function maxOverTime(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let best = v[lo] as number;
  for (let i = lo + 1; i < hi; i++) {
    const value = v[i] as number;
    if (value > best || Number.isNaN(best)) best = value;
  }
  return best;
}

/** Number of samples in the window. */
export function countOverTime(w: RangeWindow): number | undefined {
  return w.hi > w.lo ? w.hi - w.lo : undefined;
}

/** The newest value in the window. */
export function lastOverTime(w: RangeWindow): number | undefined {
  return w.hi > w.lo ? (w.v[w.hi - 1] as number) : undefined;
}

/** The oldest value in the window. */
export function firstOverTime(w: RangeWindow): number | undefined {
  return w.hi > w.lo ? (w.v[w.lo] as number) : undefined;
}

/** 1 when the window has any sample. */
export function presentOverTime(w: RangeWindow): number | undefined {
  return w.hi > w.lo ? 1 : undefined;
}

/** Unix seconds of the oldest sample. */
export function tsOfFirstOverTime(w: RangeWindow): number | undefined {
  return w.hi > w.lo ? (w.t[w.lo] as number) / 1000 : undefined;
}

/** Unix seconds of the newest sample. */
export function tsOfLastOverTime(w: RangeWindow): number | undefined {
  return w.hi > w.lo ? (w.t[w.hi - 1] as number) / 1000 : undefined;
}

/** Unix seconds of the (latest) sample holding the smallest value. */
export function tsOfMinOverTime(w: RangeWindow): number | undefined {
  const { t, v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let best = v[lo] as number;
  let bestMs = t[lo] as number;
  for (let i = lo + 1; i < hi; i++) {
    const value = v[i] as number;
    if (value <= best || Number.isNaN(best)) {
      best = value;
      bestMs = t[i] as number;
    }
  }
  return bestMs / 1000;
}

/** Unix seconds of the (latest) sample holding the largest value. */
export function tsOfMaxOverTime(w: RangeWindow): number | undefined {
  const { t, v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let best = v[lo] as number;
  let bestMs = t[lo] as number;
  for (let i = lo + 1; i < hi; i++) {
    const value = v[i] as number;
    if (value >= best || Number.isNaN(best)) {
      best = value;
      bestMs = t[i] as number;
    }
  }
  return bestMs / 1000;
}

/** Population variance of the window's values. */
export function stdvarOverTime(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  let count = 0;
  let mean = 0;
  let meanCompensation = 0;
  let squares = 0;
  let squaresCompensation = 0;
  for (let i = lo; i < hi; i++) {
    const value = v[i] as number;
    count++;
    const deviation = value - (mean + meanCompensation);
    mean = kahanAdd(deviation / count, mean, meanCompensation);
    meanCompensation = kahan.compensation;
    squares = kahanAdd(deviation * (value - (mean + meanCompensation)), squares, squaresCompensation);
    squaresCompensation = kahan.compensation;
  }
  return (squares + squaresCompensation) / count;
}

/** Population standard deviation of the window's values. */
export function stddevOverTime(w: RangeWindow): number | undefined {
  const variance = stdvarOverTime(w);
  return variance === undefined ? undefined : Math.sqrt(variance);
}

/**
 * Reused sort buffer for the quantile functions: one per process is enough because they never
 * run re-entrantly, and growing it geometrically keeps windows from allocating.
 */
let scratch = new Float64Array(256);

/**
 * Copies the window's values into `scratch[0, n)` ordered as Prometheus orders them for
 * quantiles: NaNs first, then ascending. Returns n.
 */
function sortWindowValues(v: Float64Array, lo: number, hi: number): number {
  const n = hi - lo;
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  let nanCount = 0;
  for (let i = lo; i < hi; i++) {
    if (Number.isNaN(v[i] as number)) nanCount++;
  }
  let next = nanCount;
  for (let i = 0; i < nanCount; i++) scratch[i] = Number.NaN;
  for (let i = lo; i < hi; i++) {
    const value = v[i] as number;
    if (!Number.isNaN(value)) scratch[next++] = value;
  }
  if (n - nanCount > 1) scratch.subarray(nanCount, n).sort();
  return n;
}

/**
 * The φ-quantile of sorted `values[0, n)` by linear interpolation between the closest ranks
 * (Prometheus' `quantile`): NaN for no values or φ NaN, -Inf for φ < 0, +Inf for φ > 1.
 */
export function quantileOfSorted(q: number, values: Float64Array, n: number): number {
  if (n === 0 || Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return (values[lower] as number) * (1 - weight) + (values[upper] as number) * weight;
}

/** The φ-quantile of the window's values; scalarArgs[0] is φ. */
export function quantileOverTime(w: RangeWindow, scalarArgs: number[]): number | undefined {
  if (w.hi <= w.lo) return undefined;
  const n = sortWindowValues(w.v, w.lo, w.hi);
  return quantileOfSorted(scalarArgs[0] as number, scratch, n);
}

/** Median absolute deviation from the median; NaN if any value is NaN. */
export function madOverTime(w: RangeWindow): number | undefined {
  const { v, lo, hi } = w;
  if (hi <= lo) return undefined;
  for (let i = lo; i < hi; i++) {
    if (Number.isNaN(v[i] as number)) return Number.NaN;
  }
  const n = sortWindowValues(v, lo, hi);
  const median = quantileOfSorted(0.5, scratch, n);
  for (let i = 0; i < n; i++) scratch[i] = Math.abs((scratch[i] as number) - median);
  scratch.subarray(0, n).sort();
  return quantileOfSorted(0.5, scratch, n);
}
