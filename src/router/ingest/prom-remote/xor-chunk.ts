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

/** Samples per chunk, as Prometheus' head cuts them. */
export const SAMPLES_PER_CHUNK = 120;

class BitWriter {
  bytes = new Uint8Array(128);
  /** Bits written so far. */
  bits = 0;

  private ensure(extraBits: number): void {
    const needBytes = (this.bits + extraBits + 7) >>> 3;
    if (needBytes <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < needBytes) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes);
    this.bytes = next;
  }

  /** Writes the low `n` (≤ 32) bits of `value`, most significant first. */
  write(value: number, n: number): void {
    if (n === 0) return;
    this.ensure(n);
    for (let i = n - 1; i >= 0; i--) {
      if ((value >>> i) & 1) {
        const at = this.bits >>> 3;
        this.bytes[at] = (this.bytes[at] as number) | (0x80 >>> (this.bits & 7));
      }
      this.bits++;
    }
  }

  /** Writes the low `n` (≤ 64) bits of the 64-bit value hi:lo. */
  write64(hi: number, lo: number, n: number): void {
    if (n > 32) {
      this.write(hi, n - 32);
      this.write(lo, 32);
    } else {
      this.write(lo, n);
    }
  }

  writeByte(b: number): void {
    this.write(b, 8);
  }

  finish(): Uint8Array {
    return this.bytes.slice(0, (this.bits + 7) >>> 3);
  }
}

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

function clz32(x: number): number {
  return Math.clz32(x);
}

function ctz32(x: number): number {
  return x === 0 ? 32 : 31 - Math.clz32(x & -x);
}

/** Whether `x` fits Prometheus' `bitRange(x, nbits)`: -(2^(n-1)-1) ≤ x ≤ 2^(n-1). */
function bitRange(x: number, nbits: number): boolean {
  const half = 2 ** (nbits - 1);
  return -(half - 1) <= x && x <= half;
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
  let previousHi = 0;
  let previousLo = 0;
  // 0xff = no window yet: the first XOR of a chunk always writes its own window.
  let leading = 0xff;
  let trailing = 0;
  for (let i = from; i < to; i++) {
    const time = t[i] as number;
    const lo = words[2 * i] as number;
    const hi = words[2 * i + 1] as number;
    const n = i - from;
    if (n === 0) {
      writeVarint(w, time);
      w.write(hi, 32);
      w.write(lo, 32);
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
          const bits = BigInt.asUintN(64, BigInt(dod));
          w.write64(Number(bits >> 32n), Number(bits & 0xffffffffn), 64);
        }
      }
      previousDelta = delta;
      const xorHi = (hi ^ previousHi) >>> 0;
      const xorLo = (lo ^ previousLo) >>> 0;
      if (xorHi === 0 && xorLo === 0) {
        w.write(0, 1);
      } else {
        w.write(1, 1);
        let lead = xorHi !== 0 ? clz32(xorHi) : 32 + clz32(xorLo);
        const trail = xorLo !== 0 ? ctz32(xorLo) : 32 + ctz32(xorHi);
        if (lead >= 32) lead = 31;
        if (leading !== 0xff && lead >= leading && trail >= trailing) {
          w.write(0, 1);
          writeShifted(w, xorHi, xorLo, trailing, 64 - leading - trailing);
        } else {
          leading = lead;
          trailing = trail;
          const significant = 64 - lead - trail;
          w.write(1, 1);
          w.write(lead, 5);
          w.write(significant & 0x3f, 6);
          writeShifted(w, xorHi, xorLo, trail, significant);
        }
      }
    }
    previousT = time;
    previousHi = hi;
    previousLo = lo;
  }
  return w.finish();
}

/** Writes the low `n` bits of (hi:lo) >> shift. */
function writeShifted(w: BitWriter, hi: number, lo: number, shift: number, n: number): void {
  let outHi: number;
  let outLo: number;
  if (shift === 0) {
    outHi = hi;
    outLo = lo;
  } else if (shift >= 32) {
    outHi = 0;
    outLo = hi >>> (shift - 32);
  } else {
    outHi = hi >>> shift;
    outLo = ((lo >>> shift) | (hi << (32 - shift))) >>> 0;
  }
  w.write64(outHi, outLo, n);
}
