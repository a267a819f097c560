/**
 * Gorilla "XOR" chunks in the exact byte layout of Prometheus' `tsdb/chunkenc` (encoding 1), which
 * streamed remote read responses carry:
 *
 *   bytes 0-1   sample count, uint16 big-endian
 *   then a bit stream, most significant bit first:
 *   sample 0    t as a signed (zigzag) varint, v as its 64 raw bits
 *   sample 1    t - t0 as an unsigned varint, then v XOR-encoded
 *   sample n≥2  delta-of-delta of t: '0' | '10'+14 bits | '110'+17 bits | '1110'+20 bits |
 *               '1111'+64 bits (two's complement), then v XOR-encoded
 *   XOR value   '0' when equal to the previous value; else '1', then '0' + the meaningful bits
 *               when they fit in the previous window, or '1' + 5 bits leading zeros (at most 31)
 *               + 6 bits significant-bit count (64 written as 0) + the significant bits.
 *
 * Values are handled as two 32-bit words, so NaN payloads (stale markers) are kept bit for bit.
 */
import { BitWriter, bitRange, newXorState, writeXor } from './bit-writer.js';

/** Samples per chunk, as Prometheus' head cuts them. */
export const SAMPLES_PER_CHUNK = 120;

/** Go's binary.PutUvarint for a non-negative integer below 2^53. */
function writeUvarint(w: BitWriter, value: number): void {
  while (value >= 0x80) {
    w.writeByte((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  w.writeByte(value);
}

/** Go's binary.PutVarint (zigzag) for an integer of magnitude below 2^52. */
function writeVarint(w: BitWriter, value: number): void {
  writeUvarint(w, value >= 0 ? value * 2 : -value * 2 - 1);
}

/**
 * Encodes samples `[from, to)` (at most 65535, times ascending) as one XOR chunk. `t` holds ms
 * integers; `v` is read through its bits.
 */
export function encodeXorChunk(t: Float64Array, v: Float64Array, from: number, to: number): Uint8Array {
  const count = to - from;
  if (count < 0 || count > 0xffff) throw new RangeError(`XOR chunk sample count ${count} out of range`);
  const words = new Uint32Array(v.buffer, v.byteOffset, v.length * 2);
  const w = new BitWriter();
  w.write(count >>> 8, 8);
  w.write(count & 0xff, 8);
  let previousT = 0;
  let previousDelta = 0;
  // No window yet: the first XOR of a chunk always writes its own.
  const xor = newXorState();
  for (let i = from; i < to; i++) {
    const time = t[i] as number;
    const lo = words[2 * i] as number;
    const hi = words[2 * i + 1] as number;
    const n = i - from;
    if (n === 0) {
      writeVarint(w, time);
      w.write(hi, 32);
      w.write(lo, 32);
      xor.hi = hi;
      xor.lo = lo;
    } else {
      const delta = time - previousT;
      if (n === 1) {
        writeUvarint(w, delta);
      } else {
        const dod = delta - previousDelta;
        if (dod === 0) w.write(0, 1);
        else if (bitRange(dod, 14)) {
          w.write(0b10, 2);
          w.write(dod & 0x3fff, 14);
        } else if (bitRange(dod, 17)) {
          w.write(0b110, 3);
          w.write(dod & 0x1ffff, 17);
        } else if (bitRange(dod, 20)) {
          w.write(0b1110, 4);
          w.write(dod & 0xfffff, 20);
        } else {
          w.write(0b1111, 4);
          w.writeInt(dod, 64);
        }
      }
      previousDelta = delta;
      writeXor(w, xor, hi, lo);
    }
    previousT = time;
  }
  return w.finish();
}
