/**
 * Native histogram chunks in the byte layout of Prometheus' `tsdb/chunkenc` (`histogram.go`,
 * `float_histogram.go`, `histogram_meta.go`, `varbit.go`), for streamed remote read:
 *
 *   bytes 0-1   sample count, uint16 big-endian
 *   byte 2      counter reset header in the top 2 bits: 00 unknown, 01 not reset, 10 reset, 11 gauge
 *   then a bit stream, most significant bit first. The first sample writes the layout:
 *     zero threshold   1 byte: 0 = 0; 1..254 = 2^(b-243-1) (a power of two); 255 + 64 bits
 *     schema           varbit int
 *     spans            positive then negative: varbit uint count, per span varbit uint length
 *                      then varbit int offset
 *     custom bounds    schema -53 only: varbit uint count, per bound a varbit uint
 *                      round(bound·1000)+1 when bound·1000 is whole in [0, 33554430], else
 *                      '0' + 64 bits
 *   HISTOGRAM (2), integer counts, buckets as Prometheus' deltas between neighbours:
 *     sample 0     t varbit int, count and zero count varbit uint, sum 64 bits, buckets varbit int
 *     sample n≥1   delta-of-delta of t, count and zero count (varbit int), sum XOR, each bucket's
 *                  delta-of-delta
 *   FLOAT_HISTOGRAM (3), float counts, buckets absolute:
 *     sample 0     t varbit int, count, zero count, sum and every bucket as 64 raw bits
 *     sample n≥1   delta-of-delta of t (varbit int), then count, zero count, sum and each bucket
 *                  XOR-coded, every field with its own window
 *   varbit       '0' = 0, else '10'+3, '110'+6, '1110'+9, '11110'+12, '111110'+18, '1111110'+25,
 *                '11111110'+56, '11111111'+64 bits (signed: two's complement in that width)
 *
 * One chunk holds one bucket layout. Where Prometheus' head recodes a chunk when buckets appear,
 * this encoder cuts a new one: every histogram decodes exactly as stored, no zero buckets added.
 * A new chunk is also cut at 120 samples, at a counter reset (header "reset") and where a gauge
 * histogram follows a counter one or back.
 */
import {
  type Buckets,
  CUSTOM_BUCKETS_SCHEMA,
  type FloatHistogram,
} from '../../../query/promql/histogram/float-histogram.js';
import { CHUNK_ENCODING_FLOAT_HISTOGRAM, CHUNK_ENCODING_HISTOGRAM } from '../../../shared/proto/prometheus.js';
import {
  BitWriter,
  newXorState,
  wordsOf,
  writeVarbitInt,
  writeVarbitUint,
  writeXor,
  type XorState,
} from './bit-writer.js';
import { SAMPLES_PER_CHUNK } from './xor-chunk.js';

const HEADER_UNKNOWN = 0b0000_0000;
const HEADER_NOT_RESET = 0b0100_0000;
const HEADER_RESET = 0b1000_0000;
const HEADER_GAUGE = 0b1100_0000;

export interface EncodedChunk {
  encoding: number;
  minMs: number;
  maxMs: number;
  data: Uint8Array;
}

/** Prometheus' `putZeroThreshold`: typical thresholds (0, powers of two) in one byte. */
function writeZeroThreshold(w: BitWriter, threshold: number): void {
  if (threshold === 0) {
    w.writeByte(0);
    return;
  }
  // frexp: threshold = 0.5 · 2^exp exactly when it is a power of two.
  const exp = Math.floor(Math.log2(threshold)) + 1;
  if (threshold > 0 && 2 ** (exp - 1) === threshold && exp >= -242 && exp <= 11) {
    w.writeByte(exp + 243);
    return;
  }
  w.writeByte(255);
  const [hi, lo] = wordsOf(threshold);
  w.write64(hi, lo, 64);
}

/** Spans of a sparse bucket list: gaps become offsets, as Prometheus' `Span`s. */
function writeSpans(w: BitWriter, b: Buckets): void {
  const spans: Array<[offset: number, length: number]> = [];
  let end = 0;
  for (let k = 0; k < b.index.length; k++) {
    const index = b.index[k] as number;
    const last = spans[spans.length - 1];
    if (last && index === end) last[1]++;
    else spans.push([k === 0 ? index : index - end, 1]);
    end = index + 1;
  }
  writeVarbitUint(w, spans.length);
  for (const [offset, length] of spans) {
    writeVarbitUint(w, length);
    writeVarbitInt(w, offset);
  }
}

/** Prometheus' `putCustomBound`: bounds that are whole thousandths in up to 4 bytes. */
function writeCustomBound(w: BitWriter, bound: number): void {
  const scaled = bound * 1000;
  const whole = Math.round(scaled);
  if (scaled < 0 || scaled > 33554430 || whole / 1000 !== bound) {
    w.write(0, 1);
    const [hi, lo] = wordsOf(bound);
    w.write64(hi, lo, 64);
    return;
  }
  writeVarbitUint(w, whole + 1);
}

function writeLayout(w: BitWriter, h: FloatHistogram): void {
  writeZeroThreshold(w, h.zeroThreshold);
  writeVarbitInt(w, h.schema);
  writeSpans(w, h.positive);
  writeSpans(w, h.negative);
  if (h.schema === CUSTOM_BUCKETS_SCHEMA) {
    writeVarbitUint(w, h.customValues.length);
    for (const bound of h.customValues) writeCustomBound(w, bound);
  }
}

function sameIndexes(a: Buckets, b: Buckets): boolean {
  return a.index.length === b.index.length && a.index.every((x, i) => x === b.index[i]);
}

/** Whether `h` can share a chunk's layout written for `first`. */
function sameLayout(first: FloatHistogram, h: FloatHistogram): boolean {
  return (
    first.schema === h.schema &&
    first.zeroThreshold === h.zeroThreshold &&
    first.customValues.length === h.customValues.length &&
    first.customValues.every((v, i) => v === h.customValues[i]) &&
    sameIndexes(first.positive, h.positive) &&
    sameIndexes(first.negative, h.negative)
  );
}

/** Prometheus' counter reset test between two counter histograms of one layout family. */
function isReset(previous: FloatHistogram, h: FloatHistogram): boolean {
  if (h.hint === 'reset') return true;
  if (previous.schema !== h.schema || previous.zeroThreshold !== h.zeroThreshold) return false;
  if (h.count < previous.count || h.zeroCount < previous.zeroCount) return true;
  const dropped = (before: Buckets, after: Buckets): boolean => {
    let j = 0;
    for (let i = 0; i < before.index.length; i++) {
      const index = before.index[i] as number;
      while (j < after.index.length && (after.index[j] as number) < index) j++;
      const now = (after.index[j] as number) === index ? (after.count[j] as number) : 0;
      if ((before.count[i] as number) > now) return true;
    }
    return false;
  };
  return dropped(previous.positive, h.positive) || dropped(previous.negative, h.negative);
}

/** Integer state per field for HISTOGRAM chunks: last value and last delta. */
class IntField {
  value = 0;
  delta = 0;
  /** Writes the delta-of-delta of `next` (the first sample's raw value goes elsewhere). */
  writeDod(w: BitWriter, next: number): void {
    const delta = next - this.value;
    writeVarbitInt(w, delta - this.delta);
    this.delta = delta;
    this.value = next;
  }
}

/** Prometheus' in-histogram bucket deltas: the first absolute, then each minus its neighbour. */
function bucketDeltas(b: Buckets): number[] {
  let previous = 0;
  return b.count.map((c) => {
    const d = c - previous;
    previous = c;
    return d;
  });
}

class ChunkWriter {
  private readonly w = new BitWriter();
  count = 0;
  minMs = 0;
  maxMs = 0;
  private readonly first: FloatHistogram;
  private t = new IntField();
  // HISTOGRAM state.
  private cnt = new IntField();
  private zCnt = new IntField();
  private buckets: IntField[] = [];
  // FLOAT_HISTOGRAM state.
  private xors: XorState[] = [];
  private readonly sum = newXorState();

  constructor(
    readonly integer: boolean,
    readonly header: number,
    first: FloatHistogram,
  ) {
    this.first = first;
    this.w.write(0, 16);
    this.w.writeByte(header);
  }

  accepts(h: FloatHistogram): boolean {
    return this.count < SAMPLES_PER_CHUNK && sameLayout(this.first, h);
  }

  append(timeMs: number, h: FloatHistogram): void {
    const w = this.w;
    const [sumHi, sumLo] = wordsOf(h.sum);
    const values = this.integer
      ? [...bucketDeltas(h.positive), ...bucketDeltas(h.negative)]
      : [...h.positive.count, ...h.negative.count];
    if (this.count === 0) {
      this.minMs = timeMs;
      writeLayout(w, h);
      writeVarbitInt(w, timeMs);
      this.t.value = timeMs;
      if (this.integer) {
        writeVarbitUint(w, h.count);
        writeVarbitUint(w, h.zeroCount);
        w.write64(sumHi, sumLo, 64);
        this.cnt.value = h.count;
        this.zCnt.value = h.zeroCount;
        this.buckets = values.map((v) => {
          writeVarbitInt(w, v);
          const f = new IntField();
          f.value = v;
          return f;
        });
      } else {
        const raw = (v: number): XorState => {
          const [hi, lo] = wordsOf(v);
          w.write64(hi, lo, 64);
          return { ...newXorState(), hi, lo };
        };
        const countState = raw(h.count);
        const zeroState = raw(h.zeroCount);
        w.write64(sumHi, sumLo, 64);
        this.xors = [countState, zeroState, ...values.map(raw)];
      }
      this.sum.hi = sumHi;
      this.sum.lo = sumLo;
    } else {
      this.t.writeDod(w, timeMs);
      if (this.integer) {
        this.cnt.writeDod(w, h.count);
        this.zCnt.writeDod(w, h.zeroCount);
        writeXor(w, this.sum, sumHi, sumLo);
        values.forEach((v, i) => {
          (this.buckets[i] as IntField).writeDod(w, v);
        });
      } else {
        const [countState, zeroState, ...bucketStates] = this.xors as [XorState, XorState, ...XorState[]];
        writeXor(w, countState, ...wordsOf(h.count));
        writeXor(w, zeroState, ...wordsOf(h.zeroCount));
        writeXor(w, this.sum, sumHi, sumLo);
        values.forEach((v, i) => {
          writeXor(w, bucketStates[i] as XorState, ...wordsOf(v));
        });
      }
    }
    this.count++;
    this.maxMs = timeMs;
  }

  finish(): EncodedChunk {
    const data = this.w.finish();
    data[0] = this.count >>> 8;
    data[1] = this.count & 0xff;
    return {
      encoding: this.integer ? CHUNK_ENCODING_HISTOGRAM : CHUNK_ENCODING_FLOAT_HISTOGRAM,
      minMs: this.minMs,
      maxMs: this.maxMs,
      data,
    };
  }
}

/**
 * Chunks for histogram samples `[from, to)` of one series, all of one kind (`integer`: written as
 * integer histograms, with whole counts).
 */
export function encodeHistogramChunks(
  t: Float64Array,
  hs: readonly (FloatHistogram | undefined)[],
  integer: boolean,
  from: number,
  to: number,
): EncodedChunk[] {
  const chunks: EncodedChunk[] = [];
  let writer: ChunkWriter | null = null;
  let previous: FloatHistogram | undefined;
  for (let i = from; i < to; i++) {
    const h = hs[i] as FloatHistogram;
    const gauge = h.hint === 'gauge';
    const reset = !gauge && previous !== undefined && previous.hint !== 'gauge' && isReset(previous, h);
    const kindChanged = previous !== undefined && (previous.hint === 'gauge') !== gauge;
    if (writer === null || reset || kindChanged || !writer.accepts(h)) {
      if (writer) chunks.push(writer.finish());
      let header = HEADER_UNKNOWN;
      if (gauge) header = HEADER_GAUGE;
      else if (reset || (previous === undefined && h.hint === 'reset')) header = HEADER_RESET;
      else if (
        previous !== undefined &&
        !kindChanged &&
        previous.schema === h.schema &&
        previous.zeroThreshold === h.zeroThreshold
      )
        header = HEADER_NOT_RESET;
      writer = new ChunkWriter(integer, header, h);
    }
    writer.append(t[i] as number, h);
    previous = h;
  }
  if (writer) chunks.push(writer.finish());
  return chunks;
}
