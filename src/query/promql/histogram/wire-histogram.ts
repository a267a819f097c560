/**
 * A native histogram sample as the remote write protocols carry it: `prometheus.Histogram`
 * (remote write 1.0) and `io.prometheus.write.v2.Histogram` (2.0) share every field number:
 *
 *   1 count_int uint64 | 2 count_float double (oneof)   3 sum double   4 schema sint32
 *   5 zero_threshold double   6 zero_count_int uint64 | 7 zero_count_float double (oneof)
 *   8 negative_spans BucketSpan*   9 negative_deltas sint64*   10 negative_counts double*
 *   11 positive_spans BucketSpan*  12 positive_deltas sint64*  13 positive_counts double*
 *   14 reset_hint enum   15 timestamp int64   16 custom_values double*
 *   BucketSpan: 1 offset sint32, 2 length uint32
 *
 * Integer histograms (count_int) carry bucket counts as deltas, float histograms (count_float)
 * as absolute counts. The decoded form keeps that difference, so a stored integer histogram
 * goes back out as one (remote read) and its deltas stay small varints on disk.
 */
import { WireError, type WireReader, WireType } from '../../../shared/proto/wire.js';

/** One run of consecutive buckets: `offset` from the end of the previous span (or absolute). */
export interface BucketSpan {
  offset: number;
  length: number;
}

/** `ResetHint`: 0 unknown, 1 yes (a counter reset), 2 no, 3 gauge histogram. */
export type ResetHintNumber = 0 | 1 | 2 | 3;

export interface WireHistogram {
  /** Counts are floats (`count_float`, `*_counts`); else integers given as deltas. */
  float: boolean;
  count: number;
  sum: number;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  negativeSpans: BucketSpan[];
  /** Deltas (integer histogram) or absolute counts (float histogram), one per bucket of the spans. */
  negative: number[];
  positiveSpans: BucketSpan[];
  positive: number[];
  resetHint: ResetHintNumber;
  timestampMs: number;
  /** Upper bounds of the custom buckets (schema -53). */
  customValues: number[];
}

const TWO_POW_32 = 4294967296;

/** A zigzag-encoded 64-bit varint as a number (exact while |value| < 2^53). */
function sint64(r: WireReader): number {
  const lo = r.varint64();
  const hi = r.high;
  // zigzag: (n >>> 1) ^ -(n & 1), over the two words.
  const negative = (lo & 1) === 1;
  const shiftedLo = ((lo >>> 1) | ((hi & 1) << 31)) >>> 0;
  const shiftedHi = hi >>> 1;
  const magnitude = shiftedHi * TWO_POW_32 + shiftedLo;
  return negative ? -magnitude - 1 : magnitude;
}

function sint32(r: WireReader): number {
  const n = r.uint32();
  return (n >>> 1) ^ -(n & 1);
}

/** A repeated double field, packed (wire type 2) or not (1). */
function doubles(r: WireReader, tag: number, out: number[]): void {
  if ((tag & 7) === WireType.Fixed64) {
    out.push(r.double());
    return;
  }
  r.expect(tag, WireType.LengthDelimited, 'Histogram');
  const sub = r.sub();
  if ((sub.end - sub.pos) % 8 !== 0) throw new WireError(`packed doubles of field ${tag >>> 3} are not whole`);
  while (!sub.done) out.push(sub.double());
}

/** A repeated sint64 field, packed (wire type 2) or not (0). */
function sint64s(r: WireReader, tag: number, out: number[]): void {
  if ((tag & 7) === WireType.Varint) {
    out.push(sint64(r));
    return;
  }
  r.expect(tag, WireType.LengthDelimited, 'Histogram');
  const sub = r.sub();
  while (!sub.done) out.push(sint64(sub));
}

function span(r: WireReader): BucketSpan {
  const s: BucketSpan = { offset: 0, length: 0 };
  while (!r.done) {
    const t = r.tag();
    if (t >>> 3 === 1) {
      r.expect(t, WireType.Varint, 'BucketSpan');
      s.offset = sint32(r);
    } else if (t >>> 3 === 2) {
      r.expect(t, WireType.Varint, 'BucketSpan');
      s.length = r.uint32();
    } else r.skip(t & 7);
  }
  return s;
}

/** Decodes one Histogram message (the reader bounds it); throws WireError when malformed. */
export function decodeWireHistogram(r: WireReader): WireHistogram {
  const h: WireHistogram = {
    float: false,
    count: 0,
    sum: 0,
    schema: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    negativeSpans: [],
    negative: [],
    positiveSpans: [],
    positive: [],
    resetHint: 0,
    timestampMs: 0,
    customValues: [],
  };
  // Deltas and counts are read apart: which one the buckets are depends on the count's kind.
  const deltas = { negative: [] as number[], positive: [] as number[] };
  const counts = { negative: [] as number[], positive: [] as number[] };
  while (!r.done) {
    const t = r.tag();
    switch (t >>> 3) {
      case 1:
        r.expect(t, WireType.Varint, 'Histogram');
        h.count = r.varint64() + r.high * TWO_POW_32;
        h.float = false;
        break;
      case 2:
        r.expect(t, WireType.Fixed64, 'Histogram');
        h.count = r.double();
        h.float = true;
        break;
      case 3:
        r.expect(t, WireType.Fixed64, 'Histogram');
        h.sum = r.double();
        break;
      case 4:
        r.expect(t, WireType.Varint, 'Histogram');
        h.schema = sint32(r);
        break;
      case 5:
        r.expect(t, WireType.Fixed64, 'Histogram');
        h.zeroThreshold = r.double();
        break;
      case 6:
        r.expect(t, WireType.Varint, 'Histogram');
        h.zeroCount = r.varint64() + r.high * TWO_POW_32;
        break;
      case 7:
        r.expect(t, WireType.Fixed64, 'Histogram');
        h.zeroCount = r.double();
        break;
      case 8:
      case 11:
        r.expect(t, WireType.LengthDelimited, 'Histogram');
        (t >>> 3 === 8 ? h.negativeSpans : h.positiveSpans).push(span(r.sub()));
        break;
      case 9:
        sint64s(r, t, deltas.negative);
        break;
      case 12:
        sint64s(r, t, deltas.positive);
        break;
      case 10:
        doubles(r, t, counts.negative);
        break;
      case 13:
        doubles(r, t, counts.positive);
        break;
      case 14:
        r.expect(t, WireType.Varint, 'Histogram');
        {
          // A hint this version does not know means nothing more than "unknown".
          const hint = r.uint32();
          h.resetHint = (hint <= 3 ? hint : 0) as ResetHintNumber;
        }
        break;
      case 15:
        r.expect(t, WireType.Varint, 'Histogram');
        h.timestampMs = r.int64();
        break;
      case 16:
        doubles(r, t, h.customValues);
        break;
      default:
        r.skip(t & 7);
    }
  }
  h.negative = h.float ? counts.negative : deltas.negative;
  h.positive = h.float ? counts.positive : deltas.positive;
  return h;
}
