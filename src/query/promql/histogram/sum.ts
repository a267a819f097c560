/**
 * The sum and the mean of many histograms with compensated (Kahan–Neumaier) summation of every
 * count, the sum and every bucket, as Prometheus' `KahanAdd` does for sum, avg, sum_over_time and
 * avg_over_time: adding 1e100 and then −1e100 must not wipe out the small values between.
 *
 * The common layout (coarsest schema, widest zero bucket, shared custom bounds) is found first by
 * plain addition; then every input is mapped onto it and added field by field.
 */

import {
  addHistograms,
  type HistogramSumResult,
  intersectBounds,
  reduceBuckets,
  toSchema,
  withZeroThreshold,
} from './arithmetic.js';
import { type Buckets, divHistogram, type FloatHistogram, usesCustomBuckets } from './float-histogram.js';

class Compensated {
  sum = 0;
  private c = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (!Number.isFinite(t)) this.c = 0;
    else if (Math.abs(this.sum) >= Math.abs(x)) this.c += this.sum - t + x;
    else this.c += x - t + this.sum;
    this.sum = t;
  }

  get value(): number {
    return this.sum + this.c;
  }
}

function addInto(target: Map<number, Compensated>, b: Buckets): void {
  for (let k = 0; k < b.index.length; k++) {
    const idx = b.index[k] as number;
    let acc = target.get(idx);
    if (acc === undefined) {
      acc = new Compensated();
      target.set(idx, acc);
    }
    acc.add(b.count[k] as number);
  }
}

function toBuckets(m: Map<number, Compensated>): Buckets {
  const index = [...m.keys()].sort((a, b) => a - b);
  return { index, count: index.map((i) => (m.get(i) as Compensated).value) };
}

/** Custom buckets re-bucketed onto a subset of their bounds (each by its upper bound). */
function onBounds(h: FloatHistogram, bounds: readonly number[]): Buckets {
  if (h.customValues.length === bounds.length) return h.positive;
  const counts = new Map<number, number>();
  let target = 0;
  for (let k = 0; k < h.positive.index.length; k++) {
    const idx = h.positive.index[k] as number;
    const upper = idx < h.customValues.length ? (h.customValues[idx] as number) : Number.POSITIVE_INFINITY;
    while (target < bounds.length && (bounds[target] as number) < upper) target++;
    counts.set(target, (counts.get(target) ?? 0) + (h.positive.count[k] as number));
  }
  const index = [...counts.keys()].sort((a, b) => a - b);
  return { index, count: index.map((i) => counts.get(i) as number) };
}

/**
 * Σ hs (at least one). Throws HistogramSchemaMixError like `addHistograms`; the flags tell
 * whether any pairwise addition had conflicting counter-reset hints or reconciled custom bounds.
 */
export function sumHistograms(hs: readonly FloatHistogram[], scale = 1): HistogramSumResult {
  let layout = hs[0] as FloatHistogram;
  let counterResetCollision = false;
  let customBoundsReconciled = false;
  for (let k = 1; k < hs.length; k++) {
    const r = addHistograms(layout, hs[k] as FloatHistogram);
    layout = r.histogram;
    counterResetCollision ||= r.counterResetCollision;
    customBoundsReconciled ||= r.customBoundsReconciled;
  }
  if (hs.length === 1) {
    const only = hs[0] as FloatHistogram;
    return {
      histogram: scale === 1 ? only : divHistogram(only, 1 / scale),
      counterResetCollision,
      customBoundsReconciled,
    };
  }
  const count = new Compensated();
  const sum = new Compensated();
  const zero = new Compensated();
  const positive = new Map<number, Compensated>();
  const negative = new Map<number, Compensated>();
  const custom = usesCustomBuckets(layout);
  const bounds = custom
    ? hs.reduce((b, h) => intersectBounds(b, h.customValues), [...(hs[0] as FloatHistogram).customValues])
    : [];
  for (const input of hs) {
    const h = scale === 1 ? input : divHistogram(input, 1 / scale);
    count.add(h.count);
    sum.add(h.sum);
    if (custom) {
      addInto(positive, onBounds(h, bounds));
      continue;
    }
    const mapped = toSchema(withZeroThreshold(h, layout.zeroThreshold), layout.schema);
    zero.add(mapped.zeroCount);
    addInto(positive, reduceBuckets(mapped.positive, mapped.schema, layout.schema));
    addInto(negative, reduceBuckets(mapped.negative, mapped.schema, layout.schema));
  }
  return {
    histogram: {
      ...layout,
      count: count.value,
      sum: sum.value,
      zeroCount: custom ? 0 : zero.value,
      positive: toBuckets(positive),
      negative: toBuckets(negative),
    },
    counterResetCollision,
    customBoundsReconciled,
  };
}

/** The mean of hs; falls back to summing hs/n when the plain sum overflows, as Prometheus does. */
export function meanOfHistograms(hs: readonly FloatHistogram[]): HistogramSumResult {
  const n = hs.length;
  const total = sumHistograms(hs);
  if (!overflows(total.histogram)) return { ...total, histogram: divHistogram(total.histogram, n) };
  return sumHistograms(hs, 1 / n);
}

function overflows(h: FloatHistogram): boolean {
  const inf = (x: number): boolean => x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY;
  return inf(h.count) || inf(h.sum) || inf(h.zeroCount) || h.positive.count.some(inf) || h.negative.count.some(inf);
}
