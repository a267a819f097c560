/**
 * The stored form of a native histogram sample: the bytes of one value of a metric table's
 * `greptime_histogram` Binary column (held as a latin1 string, as every Binary value is). Spans
 * and buckets are kept as the writer sent them (deltas for integer histograms), so a sample costs
 * a few bytes per bucket and goes back out unchanged through remote read. Byte layout, v1
 * (docs/metrics-storage.md, "Native histograms"):
 *
 *   u8       flags: bit 0 float counts, bits 1-2 reset hint, bits 3-7 zero (the version)
 *   svarint  schema
 *   f64 LE   sum, then zero threshold
 *   count, zero count: uvarint (integer histogram) | f64 LE (float histogram)
 *   twice, negative side then positive side:
 *     uvarint span count; per span: svarint offset, uvarint length
 *     one per bucket: svarint delta (integer) | f64 LE count (float)
 *   uvarint custom bound count; f64 LE each
 *
 * Varints are protobuf's (7 bits a byte, low first; svarint zigzag), written with float
 * arithmetic so values up to 2^53 stay exact without BigInt.
 */
import assert from 'node:assert';
import {
  type Buckets,
  type CounterResetHint,
  CUSTOM_BUCKETS_SCHEMA,
  type FloatHistogram,
  NO_BUCKETS,
} from './float-histogram.js';
import type { BucketSpan, ResetHintNumber, WireHistogram } from './wire-histogram.js';

const FLAG_FLOAT = 1;
const HINT_SHIFT = 1;
const VERSION_BITS = 0xf8;

class ByteWriter {
  bytes = Buffer.allocUnsafe(64);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  u8(v: number): void {
    this.room(1);
    this.bytes[this.length++] = v;
  }

  uvarint(v: number): void {
    assert(v >= 0 && Number.isInteger(v), `uvarint of ${v}`);
    this.room(10);
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
  }

  svarint(v: number): void {
    this.uvarint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  f64(v: number): void {
    this.room(8);
    this.bytes.writeDoubleLE(v, this.length);
    this.length += 8;
  }
}

class ByteReader {
  pos = 0;
  constructor(private readonly bytes: Buffer) {}

  u8(): number {
    if (this.pos >= this.bytes.length) throw new Error('stored histogram is truncated');
    return this.bytes[this.pos++] as number;
  }

  uvarint(): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = this.u8();
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
  }

  svarint(): number {
    const n = this.uvarint();
    return n % 2 === 1 ? -(n + 1) / 2 : n / 2;
  }

  f64(): number {
    if (this.pos + 8 > this.bytes.length) throw new Error('stored histogram is truncated');
    const v = this.bytes.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
}

function writeSide(w: ByteWriter, float: boolean, spans: readonly BucketSpan[], buckets: readonly number[]): void {
  w.uvarint(spans.length);
  for (const s of spans) {
    w.svarint(s.offset);
    w.uvarint(s.length);
  }
  for (const b of buckets) {
    if (float) w.f64(b);
    else w.svarint(b);
  }
}

/** The stored bytes (as a latin1 string) of a validated histogram. */
export function encodeStoredHistogram(h: WireHistogram): string {
  const w = new ByteWriter();
  w.u8((h.float ? FLAG_FLOAT : 0) | (h.resetHint << HINT_SHIFT));
  w.svarint(h.schema);
  w.f64(h.sum);
  w.f64(h.zeroThreshold);
  if (h.float) {
    w.f64(h.count);
    w.f64(h.zeroCount);
  } else {
    w.uvarint(h.count);
    w.uvarint(h.zeroCount);
  }
  writeSide(w, h.float, h.negativeSpans, h.negative);
  writeSide(w, h.float, h.positiveSpans, h.positive);
  w.uvarint(h.customValues.length);
  for (const v of h.customValues) w.f64(v);
  return w.bytes.toString('latin1', 0, w.length);
}

function readSide(r: ByteReader, float: boolean): { spans: BucketSpan[]; buckets: number[] } {
  const spans: BucketSpan[] = [];
  const n = r.uvarint();
  let total = 0;
  for (let i = 0; i < n; i++) {
    const offset = r.svarint();
    const length = r.uvarint();
    spans.push({ offset, length });
    total += length;
  }
  const buckets = new Array<number>(total);
  for (let i = 0; i < total; i++) buckets[i] = float ? r.f64() : r.svarint();
  return { spans, buckets };
}

/** The histogram a stored value holds (its timestamp is the row's, not part of the value). */
export function decodeStoredHistogram(stored: string): WireHistogram {
  const r = new ByteReader(Buffer.from(stored, 'latin1'));
  const flags = r.u8();
  if ((flags & VERSION_BITS) !== 0) throw new Error(`stored histogram has unknown flags ${flags}`);
  const float = (flags & FLAG_FLOAT) !== 0;
  const schema = r.svarint();
  const sum = r.f64();
  const zeroThreshold = r.f64();
  const count = float ? r.f64() : r.uvarint();
  const zeroCount = float ? r.f64() : r.uvarint();
  const negative = readSide(r, float);
  const positive = readSide(r, float);
  const customValues: number[] = [];
  const n = r.uvarint();
  for (let i = 0; i < n; i++) customValues.push(r.f64());
  return {
    float,
    count,
    sum,
    schema,
    zeroThreshold,
    zeroCount,
    negativeSpans: negative.spans,
    negative: negative.buckets,
    positiveSpans: positive.spans,
    positive: positive.buckets,
    resetHint: ((flags >> HINT_SHIFT) & 3) as ResetHintNumber,
    timestampMs: 0,
    customValues,
  };
}

const HINTS: readonly CounterResetHint[] = ['unknown', 'reset', 'not_reset', 'gauge'];

/** Spans and per-bucket numbers → sparse (index, absolute count), as the engine keeps buckets. */
function sparse(spans: readonly BucketSpan[], buckets: readonly number[], float: boolean): Buckets {
  if (buckets.length === 0) return NO_BUCKETS;
  const index: number[] = [];
  const count: number[] = [];
  let at = 0;
  let next = 0;
  let running = 0;
  for (const s of spans) {
    next += s.offset;
    for (let k = 0; k < s.length; k++) {
      const b = buckets[at++] as number;
      running = float ? b : running + b;
      index.push(next++);
      count.push(running);
    }
  }
  return { index, count };
}

/** The engine's form of a histogram (every count a float). */
export function toFloatHistogram(h: WireHistogram): FloatHistogram {
  return {
    schema: h.schema,
    count: h.count,
    sum: h.sum,
    zeroThreshold: h.schema === CUSTOM_BUCKETS_SCHEMA ? 0 : h.zeroThreshold,
    zeroCount: h.zeroCount,
    positive: sparse(h.positiveSpans, h.positive, h.float),
    negative: sparse(h.negativeSpans, h.negative, h.float),
    customValues: h.customValues,
    hint: HINTS[h.resetHint] as CounterResetHint,
  };
}
