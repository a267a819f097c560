/**
 * The bit stream of Prometheus' `tsdb/chunkenc` chunks (most significant bit first) and the two
 * value codings the chunk formats share: Gorilla XOR of float64 bits, and "varbit" integers.
 * Values are handled as two 32-bit words, so NaN payloads (stale markers) are kept bit for bit.
 */

export class BitWriter {
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

  /** Writes the low `n` (≤ 64) bits of an integer's two's complement. */
  writeInt(value: number, n: number): void {
    if (n <= 32) {
      this.write(value | 0, n);
      return;
    }
    const bits = BigInt.asUintN(64, BigInt(value));
    this.write64(Number(bits >> 32n), Number(bits & 0xffffffffn), n);
  }

  writeByte(b: number): void {
    this.write(b, 8);
  }

  finish(): Uint8Array {
    return this.bytes.slice(0, (this.bits + 7) >>> 3);
  }
}

/** Whether `x` fits Prometheus' `bitRange(x, nbits)`: -(2^(n-1)-1) ≤ x ≤ 2^(n-1). */
export function bitRange(x: number, nbits: number): boolean {
  const half = 2 ** (nbits - 1);
  return -(half - 1) <= x && x <= half;
}

/** Payload widths of the varbit prefixes '10', '110', … '11111110'; '11111111' is 64 bits. */
const VARBIT_WIDTHS = [3, 6, 9, 12, 18, 25, 56];

/** Prometheus' `putVarbitInt` for an integer of magnitude below 2^53. */
export function writeVarbitInt(w: BitWriter, value: number): void {
  if (value === 0) {
    w.write(0, 1);
    return;
  }
  for (let k = 0; k < VARBIT_WIDTHS.length; k++) {
    const width = VARBIT_WIDTHS[k] as number;
    if (bitRange(value, width)) {
      // k + 1 one bits then a zero: 0b10, 0b110, …
      w.write((2 ** (k + 2) - 2) >>> 0, k + 2);
      w.writeInt(value, width);
      return;
    }
  }
  w.write(0xff, 8);
  w.writeInt(value, 64);
}

/** Prometheus' `putVarbitUint` for a non-negative integer below 2^53. */
export function writeVarbitUint(w: BitWriter, value: number): void {
  if (value === 0) {
    w.write(0, 1);
    return;
  }
  for (let k = 0; k < VARBIT_WIDTHS.length; k++) {
    const width = VARBIT_WIDTHS[k] as number;
    if (value < 2 ** width) {
      w.write((2 ** (k + 2) - 2) >>> 0, k + 2);
      w.writeInt(value, width);
      return;
    }
  }
  w.write(0xff, 8);
  w.writeInt(value, 64);
}

/** The previous value and window of one XOR-coded field. 0xff leading = no window yet. */
export interface XorState {
  hi: number;
  lo: number;
  leading: number;
  trailing: number;
}

export function newXorState(): XorState {
  return { hi: 0, lo: 0, leading: 0xff, trailing: 0 };
}

function ctz32(x: number): number {
  return x === 0 ? 32 : 31 - Math.clz32(x & -x);
}

/**
 * Prometheus' `xorWrite`: '0' when equal to the previous value; else '1', then '0' + the
 * meaningful bits when they fit the previous window, or '1' + 5 bits leading zeros (at most 31) +
 * 6 bits significant-bit count (64 written as 0) + the significant bits. Updates `s`.
 */
export function writeXor(w: BitWriter, s: XorState, hi: number, lo: number): void {
  const xorHi = (hi ^ s.hi) >>> 0;
  const xorLo = (lo ^ s.lo) >>> 0;
  s.hi = hi;
  s.lo = lo;
  if (xorHi === 0 && xorLo === 0) {
    w.write(0, 1);
    return;
  }
  w.write(1, 1);
  let lead = xorHi !== 0 ? Math.clz32(xorHi) : 32 + Math.clz32(xorLo);
  const trail = xorLo !== 0 ? ctz32(xorLo) : 32 + ctz32(xorHi);
  if (lead >= 32) lead = 31;
  if (s.leading !== 0xff && lead >= s.leading && trail >= s.trailing) {
    w.write(0, 1);
    writeShifted(w, xorHi, xorLo, s.trailing, 64 - s.leading - s.trailing);
    return;
  }
  s.leading = lead;
  s.trailing = trail;
  const significant = 64 - lead - trail;
  w.write(1, 1);
  w.write(lead, 5);
  w.write(significant & 0x3f, 6);
  writeShifted(w, xorHi, xorLo, trail, significant);
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

const probe = new Float64Array(1);
const probeWords = new Uint32Array(probe.buffer);

/** The [hi, lo] words of a float64 (a NaN's payload is whatever the number holds). */
export function wordsOf(value: number): [number, number] {
  probe[0] = value;
  return [probeWords[1] as number, probeWords[0] as number];
}
