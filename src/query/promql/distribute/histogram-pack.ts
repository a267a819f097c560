/**
 * Native histograms (`FloatHistogram`) packed into one Float64Array, so that a shard's step
 * series and partial sums that hold histograms cross the thread boundary as transferred buffers,
 * like its floats, instead of as structured-cloned objects. Every field is a float64 (bucket
 * indexes and counts of buckets are small integers, exact in a double), so a histogram comes back
 * bit for bit: -0, NaN counts and the counter-reset hint included.
 *
 * Record layout at offset `o` (one after the other, no padding):
 *
 *   o+0 schema  o+1 count  o+2 sum  o+3 zeroThreshold  o+4 zeroCount  o+5 hint (HINTS index)
 *   o+6 P (positive buckets)  o+7 N (negative buckets)  o+8 C (custom bounds)
 *   then P indexes, P counts, N indexes, N counts, C custom bounds
 *
 * A record is `HEADER + 2P + 2N + C` doubles long (`recordEnd`), so records can be read in the
 * order they were written without an index; a user that needs random access keeps the offsets
 * `add` answers.
 */
import type { CounterResetHint, FloatHistogram } from '../histogram/float-histogram.js';

const HEADER = 9;
/** Hints by their code in a record. */
const HINTS: readonly CounterResetHint[] = ['unknown', 'reset', 'not_reset', 'gauge'];

/** Appends histograms to a growing list of doubles and answers each one's offset. */
export class HistogramPacker {
  private data = new Float64Array(256);
  private length = 0;

  /** Appends `h`; answers the offset of its record. */
  add(h: FloatHistogram): number {
    const p = h.positive.index.length;
    const n = h.negative.index.length;
    const c = h.customValues.length;
    const size = HEADER + 2 * p + 2 * n + c;
    this.reserve(size);
    const o = this.length;
    const d = this.data;
    d[o] = h.schema;
    d[o + 1] = h.count;
    d[o + 2] = h.sum;
    d[o + 3] = h.zeroThreshold;
    d[o + 4] = h.zeroCount;
    d[o + 5] = HINTS.indexOf(h.hint);
    d[o + 6] = p;
    d[o + 7] = n;
    d[o + 8] = c;
    let k = o + HEADER;
    for (const x of h.positive.index) d[k++] = x;
    for (const x of h.positive.count) d[k++] = x;
    for (const x of h.negative.index) d[k++] = x;
    for (const x of h.negative.count) d[k++] = x;
    for (const x of h.customValues) d[k++] = x;
    this.length += size;
    return o;
  }

  /** The packed records, trimmed to their length (a fresh buffer, safe to transfer). */
  finish(): Float64Array {
    return this.data.slice(0, this.length);
  }

  private reserve(size: number): void {
    if (this.length + size <= this.data.length) return;
    const grown = new Float64Array(Math.max(this.data.length * 2, this.length + size));
    grown.set(this.data.subarray(0, this.length));
    this.data = grown;
  }
}

/** The offset just past the record starting at `offset`. */
export function recordEnd(data: Float64Array, offset: number): number {
  const p = data[offset + 6] as number;
  const n = data[offset + 7] as number;
  const c = data[offset + 8] as number;
  return offset + HEADER + 2 * p + 2 * n + c;
}

/** The histogram whose record starts at `offset`. */
export function unpackHistogram(data: Float64Array, offset: number): FloatHistogram {
  const o = offset;
  const p = data[o + 6] as number;
  const n = data[o + 7] as number;
  const c = data[o + 8] as number;
  let k = o + HEADER;
  const take = (count: number): number[] => {
    const out = Array.from(data.subarray(k, k + count));
    k += count;
    return out;
  };
  const positiveIndex = take(p);
  const positiveCount = take(p);
  const negativeIndex = take(n);
  const negativeCount = take(n);
  const customValues = take(c);
  return {
    schema: data[o] as number,
    count: data[o + 1] as number,
    sum: data[o + 2] as number,
    zeroThreshold: data[o + 3] as number,
    zeroCount: data[o + 4] as number,
    hint: HINTS[data[o + 5] as number] ?? 'unknown',
    positive: { index: positiveIndex, count: positiveCount },
    negative: { index: negativeIndex, count: negativeCount },
    customValues,
  };
}
