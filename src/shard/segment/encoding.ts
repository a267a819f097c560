/**
 * Typed value encodings of segment column chunks (byte layouts in docs/formats/segment.md).
 *
 * 64-bit integers (timestamps, i64, u64) are handled as two 32-bit words through an Int32Array
 * view of their buffer so that encoding and decoding never allocate a BigInt per value. A delta is
 * computed as `(hiDiff * 2^32) + loDiff` in float arithmetic, which is exact while it stays below
 * 2^53; the encoder checks that every delta is under `DELTA_ABS_MAX` and otherwise stores the
 * column raw. All of this assumes a little-endian host (asserted in byte-io.ts).
 */
import { type ByteReader, type ByteWriter, FormatError } from './byte-io.js';

/** How a 64-bit integer chunk is stored; the first byte of its values. */
export const Int64Encoding = {
  /** First value raw (8 bytes), then each delta as a zigzag varint. */
  Delta: 0,
  /** First value raw, first delta as a zigzag varint, then each delta-of-delta as a zigzag varint. */
  DeltaOfDelta: 1,
  /** count × 8 bytes, little-endian. */
  Raw: 2,
} as const;

const TWO_POW_32 = 4294967296;
/** Largest |delta| the varint forms accept; keeps delta-of-delta zigzag below 2^53. */
const DELTA_ABS_MAX = 2 ** 50;
/** Largest |hi word difference| for which `hiDiff * 2^32 + loDiff` is computed exactly. */
const HI_DIFF_MAX = 2 ** 18;

type Int64Array = BigInt64Array | BigUint64Array;

/** Computes the deltas of `values[0..count)` into `out[1..count)`; false when one is too large. */
function deltasOf(values: Int64Array, count: number, out: Float64Array): boolean {
  const words = new Int32Array(values.buffer, values.byteOffset, count * 2);
  for (let i = 1; i < count; i++) {
    const hiDiff = (words[2 * i + 1] as number) - (words[2 * i - 1] as number);
    if (hiDiff > HI_DIFF_MAX || hiDiff < -HI_DIFF_MAX) return false;
    const d = hiDiff * TWO_POW_32 + (((words[2 * i] as number) >>> 0) - ((words[2 * i - 2] as number) >>> 0));
    if (d > DELTA_ABS_MAX || d < -DELTA_ABS_MAX) return false;
    out[i] = d;
  }
  return true;
}

/**
 * Writes `values[0..count)` with delta (`order` 1) or delta-of-delta (`order` 2) varints, or raw
 * when a delta does not fit. One encoding byte comes first.
 */
export function encodeInt64s(values: Int64Array, count: number, order: 1 | 2, w: ByteWriter): void {
  const deltas = new Float64Array(count);
  if (!deltasOf(values, count, deltas)) {
    w.u8(Int64Encoding.Raw);
    w.bytes(new Uint8Array(values.buffer, values.byteOffset, count * 8));
    return;
  }
  w.u8(order === 1 ? Int64Encoding.Delta : Int64Encoding.DeltaOfDelta);
  if (count === 0) return;
  const words = new Uint32Array(values.buffer, values.byteOffset, 2);
  w.u32(words[0] as number);
  w.u32(words[1] as number);
  w.ensure(count * 8);
  if (order === 1) {
    for (let i = 1; i < count; i++) w.varint(deltas[i] as number);
  } else {
    let previous = 0;
    for (let i = 1; i < count; i++) {
      const d = deltas[i] as number;
      w.varint(d - previous);
      previous = d;
    }
  }
}

/** Reads what `encodeInt64s` wrote into `out[0..count)`. */
export function decodeInt64s(r: ByteReader, count: number, out: Int64Array): void {
  const encoding = r.u8();
  if (encoding === Int64Encoding.Raw) {
    new Uint8Array(out.buffer, out.byteOffset, count * 8).set(r.bytes(count * 8));
    return;
  }
  if (encoding !== Int64Encoding.Delta && encoding !== Int64Encoding.DeltaOfDelta) {
    throw new FormatError(`unknown int64 encoding ${encoding}`);
  }
  if (count === 0) return;
  const words = new Uint32Array(out.buffer, out.byteOffset, count * 2);
  let lo = r.u32();
  let hi = r.u32();
  words[0] = lo;
  words[1] = hi;
  let d = 0;
  const ofDelta = encoding === Int64Encoding.DeltaOfDelta;
  for (let i = 1; i < count; i++) {
    d = ofDelta ? d + r.varint() : r.varint();
    lo += d;
    if (lo >= TWO_POW_32 || lo < 0) {
      const carry = Math.floor(lo / TWO_POW_32);
      lo -= carry * TWO_POW_32;
      hi = (hi + carry) >>> 0;
    }
    words[2 * i] = lo;
    words[2 * i + 1] = hi;
  }
}

/** Float64 values are stored raw (8 bytes LE each); block compression takes care of repeats. */
export function encodeFloat64s(values: Float64Array, count: number, w: ByteWriter): void {
  w.bytes(new Uint8Array(values.buffer, values.byteOffset, count * 8));
}

export function decodeFloat64s(r: ByteReader, count: number): Float64Array {
  const out = new Float64Array(count);
  new Uint8Array(out.buffer).set(r.bytes(count * 8));
  return out;
}

/** Packs non-zero bytes as 1 bits, LSB first: bit `i % 8` of byte `i >> 3` is row i. */
export function encodeBitmap(values: Uint8Array, count: number, w: ByteWriter): void {
  const bytes = new Uint8Array((count + 7) >>> 3);
  for (let i = 0; i < count; i++) if (values[i] !== 0) bytes[i >>> 3] = (bytes[i >>> 3] as number) | (1 << (i & 7));
  w.bytes(bytes);
}

/** Unpacks `count` bits into a Uint8Array of 0/1. */
export function decodeBitmap(r: ByteReader, count: number): Uint8Array {
  const bytes = r.bytes((count + 7) >>> 3);
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = ((bytes[i >>> 3] as number) >>> (i & 7)) & 1;
  return out;
}

/** How a string chunk is stored; the byte after the validity. */
export const StringEncoding = {
  /** Each value as a varuint UTF-8 byte length followed by the bytes. */
  Plain: 0,
  /** varuint D, D distinct values (as in Plain), then one varuint code (< D) per value. */
  Dictionary: 1,
} as const;

/**
 * A block's column takes the dictionary form only while it has at most this fraction of its
 * present values distinct: past that, codes plus dictionary save too little to pay for the lookups.
 */
const DICTIONARY_DISTINCT_MAX = 1 / 2;
const PROBE_ROWS = 1024;
const PROBE_DISTINCT_MAX = 768;
/** Slots of the last value seen by length in `encodeStrings` (a power of two). */
const RECENT_SLOTS = 64;

/**
 * Writes the values (encoding byte first), as a dictionary when they repeat enough. Returns the
 * distinct values when it found them all (the dictionary form), so the term index can take each
 * once instead of every row; undefined for the plain form.
 *
 * Log columns repeat a few values thousands of times a block (user agents, methods, referers):
 * each is written, deflated and, on read, decoded once per block instead of once per row, and
 * a decoded block's rows share one string per value.
 */
export function encodeStrings(
  values: ReadonlyArray<string | null>,
  count: number,
  w: ByteWriter,
): string[] | undefined {
  const limit = Math.floor(count * DICTIONARY_DISTINCT_MAX);
  const codes = new Uint32Array(count);
  const codeOf = new Map<string, number>();
  const distinct: string[] = [];
  // The last value seen of each length (mod RECENT_SLOTS) and its code: a log column's few values
  // mostly differ in length, and comparing two strings is much cheaper than hashing a fresh one
  // (a flush's strings are new, their hashes not yet computed) for the map.
  const recent = new Array<string | undefined>(RECENT_SLOTS);
  const recentCode = new Uint32Array(RECENT_SLOTS);
  let i = 0;
  for (; i < count; i++) {
    // Mostly-distinct columns (addresses, ids) give up after a short look, not half a block.
    if (i === PROBE_ROWS && distinct.length > PROBE_DISTINCT_MAX) break;
    const v = values[i] ?? '';
    const slot = v.length & (RECENT_SLOTS - 1);
    if (recent[slot] === v) {
      codes[i] = recentCode[slot] as number;
      continue;
    }
    let code = codeOf.get(v);
    if (code === undefined) {
      if (distinct.length >= limit) break;
      code = distinct.length;
      distinct.push(v);
      codeOf.set(v, code);
    }
    recent[slot] = v;
    recentCode[slot] = code;
    codes[i] = code;
  }
  if (i < count || count === 0) {
    w.u8(StringEncoding.Plain);
    for (let k = 0; k < count; k++) w.string(values[k] ?? '');
    return undefined;
  }
  w.u8(StringEncoding.Dictionary);
  w.varuint(distinct.length);
  for (const v of distinct) w.string(v);
  for (let k = 0; k < count; k++) w.varuint(codes[k] as number);
  return distinct;
}

/** Reads a string chunk's values after its encoding byte (`encoding`). */
export function decodeStrings(r: ByteReader, count: number, encoding: number): Array<string | null> {
  const out = new Array<string | null>(count);
  if (encoding === StringEncoding.Plain) {
    for (let i = 0; i < count; i++) out[i] = r.string();
    return out;
  }
  if (encoding !== StringEncoding.Dictionary) throw new FormatError(`unknown str encoding ${encoding}`);
  const size = r.varuint();
  if (size > count) throw new FormatError(`dictionary of ${size} strings for ${count} values`);
  const dictionary = new Array<string>(size);
  for (let d = 0; d < size; d++) dictionary[d] = r.string();
  for (let i = 0; i < count; i++) {
    const code = r.varuint();
    if (code >= size) throw new FormatError(`string code ${code} past a dictionary of ${size}`);
    out[i] = dictionary[code] as string;
  }
  return out;
}
