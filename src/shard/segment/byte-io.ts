/**
 * Little-endian byte writer and reader used by the segment format. Varints are unsigned LEB128 of
 * JS numbers (exact up to 2^53); signed values go through zigzag first. The reader checks every
 * bound and throws `FormatError`, which callers turn into a `StorageUnavailable` naming the file.
 */
import assert from 'node:assert';
import os from 'node:os';

// Int64 columns are read and written through 32-bit views of their buffers (see encoding.ts);
// that and the on-disk little-endian layout both assume a little-endian host.
assert(os.endianness() === 'LE', 'ShoalDB storage requires a little-endian host');

/** Malformed bytes: a length or offset points outside the buffer, or a field holds a bad value. */
export class FormatError extends Error {
  override name = 'FormatError';
}

/** Maps a signed safe integer to an unsigned one so small magnitudes get short varints. */
export function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

/** Inverse of `zigzag`. */
export function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/** A growable byte buffer. `bytes()` returns a view of what was written so far. */
/** Strings shorter than this are tried as ASCII first (see `ByteWriter.string`). */
const ASCII_FAST_CHARS_MAX = 128;

export class ByteWriter {
  private buf: Buffer;
  private view: DataView;
  pos = 0;

  constructor(initialBytes = 1024) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialBytes));
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  u16(v: number): void {
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }

  /** A 64-bit integer given as its raw bits (signed or unsigned alike). */
  i64(v: bigint): void {
    this.ensure(8);
    this.view.setBigInt64(this.pos, BigInt.asIntN(64, v), true);
    this.pos += 8;
  }

  f64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** Unsigned LEB128 of a non-negative safe integer. */
  varuint(n: number): void {
    this.ensure(8);
    const buf = this.buf;
    let pos = this.pos;
    if (n < 0x80000000) {
      while (n >= 0x80) {
        buf[pos++] = (n & 0x7f) | 0x80;
        n >>>= 7;
      }
      buf[pos++] = n;
    } else {
      while (n >= 0x80) {
        buf[pos++] = (n % 128) | 0x80;
        n = Math.floor(n / 128);
      }
      buf[pos++] = n;
    }
    this.pos = pos;
  }

  /** Zigzag + LEB128 of a signed safe integer (|n| < 2^52). */
  varint(n: number): void {
    this.varuint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  bytes(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }

  /** UTF-8 bytes prefixed with their byte length as a varuint. */
  string(s: string): void {
    // Short ASCII strings (most log fields) are copied in JS: two native calls per string
    // (byteLength, write) cost more than the copy.
    if (s.length < ASCII_FAST_CHARS_MAX) {
      const start = this.pos;
      this.varuint(s.length);
      this.ensure(s.length);
      const buf = this.buf;
      let at = this.pos;
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at++] = c;
      }
      if (i === s.length) {
        this.pos = at;
        return;
      }
      this.pos = start;
    }
    const length = Buffer.byteLength(s, 'utf8');
    this.varuint(length);
    this.ensure(length);
    this.buf.write(s, this.pos, length, 'utf8');
    this.pos += length;
  }

  /** A view (not a copy) of the bytes written so far. */
  bytesView(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** Reads what `ByteWriter` wrote, checking every bound. */
export class ByteReader {
  readonly buf: Buffer;
  readonly end: number;
  pos: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  private need(n: number): void {
    if (this.pos + n > this.end) throw new FormatError(`read of ${n} bytes at ${this.pos} passes the end ${this.end}`);
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }

  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16LE(this.pos);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  i64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  f64(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  varuint(): number {
    const buf = this.buf;
    const end = this.end;
    let pos = this.pos;
    if (pos >= end) throw new FormatError(`varint at ${pos} passes the end ${end}`);
    let b = buf[pos++] as number;
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    let result = b & 0x7f;
    let scale = 128;
    do {
      if (pos >= end || scale > 2 ** 49) throw new FormatError(`bad varint ending at ${pos}`);
      b = buf[pos++] as number;
      result += (b & 0x7f) * scale;
      scale *= 128;
    } while (b >= 0x80);
    this.pos = pos;
    return result;
  }

  varint(): number {
    return unzigzag(this.varuint());
  }

  /** A view of the next `n` bytes. */
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  string(): string {
    const length = this.varuint();
    this.need(length);
    const s = this.buf.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return s;
  }
}
