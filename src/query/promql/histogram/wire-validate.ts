/**
 * The checks a native histogram sample must pass before it is stored, as Prometheus' TSDB makes
 * them on append (`histogram.Validate`): an invalid sample fails the whole request with 400 and
 * nothing of it is written, instead of surfacing later as a query error.
 */
import { CUSTOM_BUCKETS_SCHEMA } from './float-histogram.js';
import type { BucketSpan, WireHistogram } from './wire-histogram.js';

/** Exponential schemas Prometheus accepts (-4 ... 8). */
export const EXPONENTIAL_SCHEMA_MIN = -4;
export const EXPONENTIAL_SCHEMA_MAX = 8;

function spansNeed(spans: readonly BucketSpan[], side: string): number | string {
  let n = 0;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as BucketSpan;
    if (i > 0 && s.offset < 0) return `${side} span number ${i + 1} with offset ${s.offset}`;
    n += s.length;
  }
  return n;
}

/** The absolute bucket counts of one side (deltas summed for an integer histogram). */
export function absoluteCounts(h: WireHistogram, buckets: readonly number[]): number[] {
  if (h.float) return [...buckets];
  const out = new Array<number>(buckets.length);
  let c = 0;
  for (let i = 0; i < buckets.length; i++) {
    c += buckets[i] as number;
    out[i] = c;
  }
  return out;
}

function checkSide(
  h: WireHistogram,
  spans: readonly BucketSpan[],
  buckets: readonly number[],
  side: string,
): string | number {
  const need = spansNeed(spans, side);
  if (typeof need === 'string') return need;
  if (need !== buckets.length) {
    return `${side} side: spans need ${need} buckets, have ${buckets.length} buckets`;
  }
  const counts = absoluteCounts(h, buckets);
  let total = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] as number;
    if (!(c >= 0)) return `${side} side: bucket number ${i + 1} has observation count of ${c}`;
    total += c;
  }
  return total;
}

/** Why `h` may not be stored, or null. */
export function histogramProblem(h: WireHistogram): string | null {
  const custom = h.schema === CUSTOM_BUCKETS_SCHEMA;
  if (!custom && (h.schema < EXPONENTIAL_SCHEMA_MIN || h.schema > EXPONENTIAL_SCHEMA_MAX)) {
    return `histogram has an invalid schema ${h.schema}; valid are ${EXPONENTIAL_SCHEMA_MIN}..${EXPONENTIAL_SCHEMA_MAX} and ${CUSTOM_BUCKETS_SCHEMA}`;
  }
  if (custom) {
    if (h.negativeSpans.length > 0 || h.negative.length > 0)
      return 'histogram with custom buckets has negative buckets';
    if (h.zeroCount !== 0) return 'histogram with custom buckets has a zero count';
    for (let i = 0; i < h.customValues.length; i++) {
      const v = h.customValues[i] as number;
      if (!Number.isFinite(v) || (i > 0 && v <= (h.customValues[i - 1] as number))) {
        return 'histogram custom bounds must be finite and strictly increasing';
      }
    }
  } else if (h.customValues.length > 0) {
    return 'histogram with an exponential schema has custom bounds';
  }
  if (!(h.count >= 0)) return `histogram has observation count of ${h.count}`;
  if (!(h.zeroCount >= 0)) return `histogram zero bucket has observation count of ${h.zeroCount}`;
  if (!(h.zeroThreshold >= 0)) return `histogram has zero threshold of ${h.zeroThreshold}`;
  const negative = checkSide(h, h.negativeSpans, h.negative, 'negative');
  if (typeof negative === 'string') return negative;
  const positive = checkSide(h, h.positiveSpans, h.positive, 'positive');
  if (typeof positive === 'string') return positive;
  if (custom) {
    let index = -1;
    for (const s of h.positiveSpans) index += s.offset + s.length;
    if (index > h.customValues.length) return 'histogram with custom buckets has a bucket past +Inf';
  }
  // Integer counts are exact: the buckets cannot hold more than the count (Prometheus' rule;
  // with a NaN sum it asks the same). Float counts are left to rounding.
  const inBuckets = negative + positive + h.zeroCount;
  if (!h.float && inBuckets > h.count) {
    return `${inBuckets} observations found in buckets, but the Count field is ${h.count}`;
  }
  return null;
}
