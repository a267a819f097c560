/**
 * Adding and subtracting native histograms (Prometheus' `FloatHistogram.Add`/`Sub`): the result
 * takes the coarser schema and the wider zero bucket of the two; custom-bucket histograms with
 * different bounds meet on the bounds they share.
 */

import {
  type Buckets,
  type CounterResetHint,
  CUSTOM_BUCKETS_SCHEMA,
  exponentialUpperBound,
  type FloatHistogram,
  usesCustomBuckets,
} from './float-histogram.js';

/** Adding an exponential to a custom-bucket histogram: Prometheus refuses the operation. */
export class HistogramSchemaMixError extends Error {
  constructor() {
    super('cannot apply this operation on histograms with a mix of exponential and custom bucket schemas');
    this.name = 'HistogramSchemaMixError';
  }
}

export interface HistogramSumResult {
  histogram: FloatHistogram;
  /** One side said counter reset, the other not: the result's hint fell back to unknown. */
  counterResetCollision: boolean;
  /** Custom bounds differed and were reduced to the ones both have. */
  customBoundsReconciled: boolean;
}

/** The result's hint when combining two samples (Prometheus' `adjustCounterReset`). */
function combinedHint(a: CounterResetHint, b: CounterResetHint): { hint: CounterResetHint; collision: boolean } {
  if (a === b) return { hint: a, collision: false };
  if (a === 'gauge' || b === 'gauge') return { hint: 'gauge', collision: false };
  if (a === 'unknown' || b === 'unknown') return { hint: 'unknown', collision: false };
  return { hint: 'unknown', collision: true };
}

/** Index of bucket `index` of `from` in the coarser schema `to`. */
function coarserIndex(index: number, from: number, to: number): number {
  return ((index - 1) >> (from - to)) + 1;
}

/** The buckets in a coarser schema, merged; still sorted because the mapping is monotonic. */
export function reduceBuckets(b: Buckets, from: number, to: number): Buckets {
  if (from === to) return b;
  const index: number[] = [];
  const count: number[] = [];
  for (let k = 0; k < b.index.length; k++) {
    const target = coarserIndex(b.index[k] as number, from, to);
    if (index.length > 0 && index[index.length - 1] === target)
      count[count.length - 1] = (count[count.length - 1] as number) + (b.count[k] as number);
    else {
      index.push(target);
      count.push(b.count[k] as number);
    }
  }
  return { index, count };
}

/** The histogram in a coarser exponential schema (unchanged when it already is, or has custom buckets). */
export function toSchema(h: FloatHistogram, schema: number): FloatHistogram {
  if (usesCustomBuckets(h) || schema >= h.schema) return h;
  return {
    ...h,
    schema,
    positive: reduceBuckets(h.positive, h.schema, schema),
    negative: reduceBuckets(h.negative, h.schema, schema),
  };
}

function mergeBuckets(a: Buckets, b: Buckets, sign: 1 | -1): Buckets {
  const index: number[] = [];
  const count: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.index.length || j < b.index.length) {
    const ai = i < a.index.length ? (a.index[i] as number) : Number.POSITIVE_INFINITY;
    const bj = j < b.index.length ? (b.index[j] as number) : Number.POSITIVE_INFINITY;
    if (ai === bj) {
      index.push(ai);
      count.push((a.count[i++] as number) + sign * (b.count[j++] as number));
    } else if (ai < bj) {
      index.push(ai);
      count.push(a.count[i++] as number);
    } else {
      index.push(bj);
      count.push(sign * (b.count[j++] as number));
    }
  }
  return { index, count };
}

/**
 * The zero threshold both histograms can share: at least the larger one, widened further to a
 * bucket boundary where it would cut through a populated bucket of either side.
 */
function commonZeroThreshold(a: FloatHistogram, b: FloatHistogram): number {
  let threshold = Math.max(a.zeroThreshold, b.zeroThreshold);
  for (;;) {
    const next = widenedThreshold(b, widenedThreshold(a, threshold));
    if (next === threshold) return threshold;
    threshold = next;
  }
}

/** `threshold`, or the bucket boundary above it when it cuts through a populated bucket of `h`. */
export function widenedThreshold(h: FloatHistogram, threshold: number): number {
  if (threshold <= h.zeroThreshold) return threshold;
  const start = threshold;
  for (const side of [h.positive, h.negative]) {
    for (let k = 0; k < side.index.length; k++) {
      const idx = side.index[k] as number;
      const lower = exponentialUpperBound(idx - 1, h.schema);
      const upper = exponentialUpperBound(idx, h.schema);
      if (lower >= threshold) break;
      if (upper > threshold) {
        if ((side.count[k] as number) !== 0) threshold = upper;
        break;
      }
    }
  }
  // Widening on the negative side may put the threshold inside a positive bucket.
  return threshold === start ? threshold : widenedThreshold(h, threshold);
}

/** The histogram with every bucket below `threshold` folded into its zero bucket. */
export function withZeroThreshold(h: FloatHistogram, threshold: number): FloatHistogram {
  if (threshold === h.zeroThreshold) return h;
  let zeroCount = h.zeroCount;
  const keep = (side: Buckets): Buckets => {
    const index: number[] = [];
    const count: number[] = [];
    for (let k = 0; k < side.index.length; k++) {
      const idx = side.index[k] as number;
      if (exponentialUpperBound(idx, h.schema) <= threshold) zeroCount += side.count[k] as number;
      else {
        index.push(idx);
        count.push(side.count[k] as number);
      }
    }
    return { index, count };
  };
  const positive = keep(h.positive);
  const negative = keep(h.negative);
  return { ...h, zeroThreshold: threshold, zeroCount, positive, negative };
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, k) => v === b[k]);
}

/** Custom buckets re-bucketed onto `bounds` (a subset of theirs): each goes where its upper bound falls. */
function rebucket(b: Buckets, from: readonly number[], bounds: readonly number[]): Buckets {
  const counts = new Map<number, number>();
  let target = 0;
  for (let k = 0; k < b.index.length; k++) {
    const idx = b.index[k] as number;
    const upper = idx < from.length ? (from[idx] as number) : Number.POSITIVE_INFINITY;
    while (target < bounds.length && (bounds[target] as number) < upper) target++;
    counts.set(target, (counts.get(target) ?? 0) + (b.count[k] as number));
  }
  const index = [...counts.keys()].sort((x, y) => x - y);
  return { index, count: index.map((i) => counts.get(i) as number) };
}

export function intersectBounds(a: readonly number[], b: readonly number[]): number[] {
  const set = new Set(b);
  return a.filter((v) => set.has(v));
}

function combine(a: FloatHistogram, b: FloatHistogram, sign: 1 | -1): HistogramSumResult {
  if (usesCustomBuckets(a) !== usesCustomBuckets(b)) throw new HistogramSchemaMixError();
  const { hint, collision } = combinedHint(a.hint, b.hint);
  const count = a.count + sign * b.count;
  const sum = a.sum + sign * b.sum;
  if (usesCustomBuckets(a)) {
    if (sameBounds(a.customValues, b.customValues)) {
      const positive = mergeBuckets(a.positive, b.positive, sign);
      return {
        histogram: { ...a, count, sum, hint, positive },
        counterResetCollision: collision,
        customBoundsReconciled: false,
      };
    }
    const bounds = intersectBounds(a.customValues, b.customValues);
    const positive = mergeBuckets(
      rebucket(a.positive, a.customValues, bounds),
      rebucket(b.positive, b.customValues, bounds),
      sign,
    );
    return {
      histogram: { ...a, schema: CUSTOM_BUCKETS_SCHEMA, count, sum, hint, positive, customValues: bounds },
      counterResetCollision: collision,
      customBoundsReconciled: true,
    };
  }
  const threshold = commonZeroThreshold(a, b);
  const x = withZeroThreshold(a, threshold);
  const y = withZeroThreshold(b, threshold);
  const schema = Math.min(x.schema, y.schema);
  const positive = mergeBuckets(
    reduceBuckets(x.positive, x.schema, schema),
    reduceBuckets(y.positive, y.schema, schema),
    sign,
  );
  const negative = mergeBuckets(
    reduceBuckets(x.negative, x.schema, schema),
    reduceBuckets(y.negative, y.schema, schema),
    sign,
  );
  return {
    histogram: {
      schema,
      count,
      sum,
      zeroThreshold: threshold,
      zeroCount: x.zeroCount + sign * y.zeroCount,
      positive,
      negative,
      customValues: [],
      hint,
    },
    counterResetCollision: collision,
    customBoundsReconciled: false,
  };
}

/** `a + b`. Throws HistogramSchemaMixError for an exponential and a custom-bucket histogram. */
export function addHistograms(a: FloatHistogram, b: FloatHistogram): HistogramSumResult {
  return combine(a, b, 1);
}

/** `a - b`, with the same rules as `addHistograms`. */
export function subHistograms(a: FloatHistogram, b: FloatHistogram): HistogramSumResult {
  return combine(a, b, -1);
}
