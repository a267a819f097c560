/**
 * A native histogram with float counts, the value PromQL computes with (Prometheus'
 * `model/histogram.FloatHistogram`). Values are treated as immutable: every operation returns a
 * new histogram, so one stored sample can appear in many steps and results without copying.
 *
 * Buckets are kept sparse (index and count, ascending index) rather than as Prometheus' spans
 * plus dense runs: the engine never needs the spans, and the text form rebuilds them.
 *
 * Exponential schemas (-4..8): bucket `i` of the positive side covers `(b^(i-1), b^i]` with
 * `b = 2^(2^-schema)`; the negative side mirrors it. The custom-bucket schema (-53) has only
 * positive buckets: bucket `i` ends at `customValues[i]`, the last one at +Inf.
 */

import { formatFloatG as g } from '../go-format.js';

export const CUSTOM_BUCKETS_SCHEMA = -53;

/** How a sample relates to the one before it in its series. */
export type CounterResetHint = 'unknown' | 'reset' | 'not_reset' | 'gauge';

export interface Buckets {
  readonly index: readonly number[];
  readonly count: readonly number[];
}

export interface FloatHistogram {
  readonly schema: number;
  readonly count: number;
  readonly sum: number;
  readonly zeroThreshold: number;
  readonly zeroCount: number;
  readonly positive: Buckets;
  readonly negative: Buckets;
  /** Upper bounds of the custom buckets (schema -53), ascending, +Inf implied. */
  readonly customValues: readonly number[];
  readonly hint: CounterResetHint;
}

export const NO_BUCKETS: Buckets = { index: [], count: [] };

export function usesCustomBuckets(h: FloatHistogram): boolean {
  return h.schema === CUSTOM_BUCKETS_SCHEMA;
}

/** A histogram with the given fields, everything else empty. */
export function makeHistogram(fields: Partial<FloatHistogram>): FloatHistogram {
  return {
    schema: 0,
    count: 0,
    sum: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    positive: NO_BUCKETS,
    negative: NO_BUCKETS,
    customValues: [],
    hint: 'unknown',
    ...fields,
  };
}

/**
 * Upper bound of exponential bucket `index`. The whole-power part is applied separately so that
 * boundaries which are powers of two come out exact, as Prometheus' table lookup does.
 */
export function exponentialUpperBound(index: number, schema: number): number {
  if (schema <= 0) return 2 ** (index * 2 ** -schema);
  const perPower = 2 ** schema;
  const whole = Math.floor(index / perPower);
  const frac = index - whole * perPower;
  return frac === 0 ? 2 ** whole : 2 ** whole * 2 ** (frac / perPower);
}

/** One bucket with its bounds, as the quantile and fraction estimations walk them. */
export interface Bucket {
  lower: number;
  upper: number;
  count: number;
  /** Lower bound is inclusive (negative buckets, and the zero bucket). */
  lowerInclusive: boolean;
}

/** Bounds of positive bucket `index` (custom buckets included). */
export function positiveBounds(h: FloatHistogram, index: number): [number, number] {
  if (usesCustomBuckets(h)) {
    const lower = index === 0 ? Number.NEGATIVE_INFINITY : (h.customValues[index - 1] as number);
    const upper = index < h.customValues.length ? (h.customValues[index] as number) : Number.POSITIVE_INFINITY;
    return [lower, upper];
  }
  return [exponentialUpperBound(index - 1, h.schema), exponentialUpperBound(index, h.schema)];
}

/**
 * Every bucket from the lowest value up: negative buckets, the zero bucket when it holds
 * anything, positive buckets. Buckets reaching into the zero bucket are cut at its threshold.
 */
export function allBuckets(h: FloatHistogram): Bucket[] {
  const out: Bucket[] = [];
  const zt = h.zeroThreshold;
  for (let k = h.negative.index.length - 1; k >= 0; k--) {
    const [lo, up] = positiveBounds(h, h.negative.index[k] as number);
    let upper = -lo;
    if (upper < 0 && upper > -zt) upper = -zt;
    out.push({ lower: -up, upper, count: h.negative.count[k] as number, lowerInclusive: true });
  }
  if (h.zeroCount > 0) out.push({ lower: -zt, upper: zt, count: h.zeroCount, lowerInclusive: true });
  for (let k = 0; k < h.positive.index.length; k++) {
    const [lo, up] = positiveBounds(h, h.positive.index[k] as number);
    const lower = lo > 0 && lo < zt ? zt : lo;
    out.push({ lower, upper: up, count: h.positive.count[k] as number, lowerInclusive: false });
  }
  return out;
}

function mapBuckets(b: Buckets, f: (c: number) => number): Buckets {
  return { index: b.index, count: b.count.map(f) };
}

/** Every count and the sum times `factor`; a negative factor makes the result a gauge. */
export function mulHistogram(h: FloatHistogram, factor: number): FloatHistogram {
  return {
    ...h,
    count: h.count * factor,
    sum: h.sum * factor,
    zeroCount: h.zeroCount * factor,
    positive: mapBuckets(h.positive, (c) => c * factor),
    negative: mapBuckets(h.negative, (c) => c * factor),
    hint: factor < 0 ? 'gauge' : h.hint,
  };
}

/** As `mulHistogram` dividing; division by zero leaves no buckets (Prometheus' rule). */
export function divHistogram(h: FloatHistogram, divisor: number): FloatHistogram {
  if (divisor === 0) {
    return {
      ...h,
      count: h.count / 0,
      sum: h.sum / 0,
      zeroCount: h.zeroCount / 0,
      positive: NO_BUCKETS,
      negative: NO_BUCKETS,
    };
  }
  return {
    ...h,
    count: h.count / divisor,
    sum: h.sum / divisor,
    zeroCount: h.zeroCount / divisor,
    positive: mapBuckets(h.positive, (c) => c / divisor),
    negative: mapBuckets(h.negative, (c) => c / divisor),
    hint: divisor < 0 ? 'gauge' : h.hint,
  };
}

function withoutEmpty(b: Buckets): Buckets {
  if (!b.count.includes(0)) return b;
  const index: number[] = [];
  const count: number[] = [];
  b.count.forEach((c, k) => {
    if (c !== 0) {
      index.push(b.index[k] as number);
      count.push(c);
    }
  });
  return { index, count };
}

/** The histogram without empty buckets (Prometheus' `Compact(0)`). */
export function compactHistogram(h: FloatHistogram): FloatHistogram {
  const positive = withoutEmpty(h.positive);
  const negative = withoutEmpty(h.negative);
  return positive === h.positive && negative === h.negative ? h : { ...h, positive, negative };
}

function sameBuckets(a: Buckets, b: Buckets, eq: (x: number, y: number) => boolean): boolean {
  if (a.index.length !== b.index.length) return false;
  for (let k = 0; k < a.index.length; k++) {
    if (a.index[k] !== b.index[k] || !eq(a.count[k] as number, b.count[k] as number)) return false;
  }
  return true;
}

function identical(a: number, b: number): boolean {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || a === b;
}

/**
 * Data equality after dropping empty buckets (PromQL's `==` between histograms). `eq` compares
 * counts and the sum: exact by default, a tolerance in tests. The counter-reset hint is not
 * compared, as in Prometheus.
 */
export function histogramsEqual(
  a: FloatHistogram,
  b: FloatHistogram,
  eq: (x: number, y: number) => boolean = identical,
): boolean {
  const x = compactHistogram(a);
  const y = compactHistogram(b);
  if (x.schema !== y.schema || !eq(x.count, y.count) || !eq(x.sum, y.sum)) return false;
  if (usesCustomBuckets(x)) {
    if (x.customValues.length !== y.customValues.length) return false;
    if (x.customValues.some((v, k) => v !== y.customValues[k])) return false;
  } else if (x.zeroThreshold !== y.zeroThreshold || !eq(x.zeroCount, y.zeroCount)) return false;
  return sameBuckets(x.positive, y.positive, eq) && sameBuckets(x.negative, y.negative, eq);
}

/** Prometheus' `String()`: `{count:4, sum:10, [1,2):3, ...}`, non-empty buckets only. */
export function histogramString(h: FloatHistogram): string {
  const parts = [`count:${g(h.count)}`, `sum:${g(h.sum)}`];
  for (const b of allBuckets(h)) {
    if (b.count === 0) continue;
    const open = b.lowerInclusive ? '[' : '(';
    const close = b.lowerInclusive && !(b.lower === -h.zeroThreshold && b.upper === h.zeroThreshold) ? ')' : ']';
    parts.push(`${open}${g(b.lower)},${g(b.upper)}${close}:${g(b.count)}`);
  }
  return `{${parts.join(', ')}}`;
}
