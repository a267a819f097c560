/**
 * The one reader of the protobuf wire format behind every hand-written decoder (remote write
 * metadata, OTLP logs); the other messages go through protobufjs and the schemas next to this file
 * (README.md says which and why). `write-decode.ts` keeps its own per-byte functions for its hot
 * loop but throws this module's `WireError` with the same messages.
 *
 * A reader speaks one of two dialects, chosen by its decoder and inherited by its sub-readers:
 *   - 'strict' (remote write): what Go's generated unmarshalers refuse is refused too: field
 *     number 0, wire types 3/4 (groups) and 6/7, varints longer than 10 bytes or wider than the
 *     field, lengths past the end, and strings that are not valid UTF-8 (never patched with
 *     U+FFFD, so a label value never changes silently). `tag()` and `expect()` do the checks.
 *   - 'protobufjs' (OTLP logs): accepts and refuses exactly what protobufjs' decoder does (groups
 *     skipped, 32-bit varints truncated, strings decoded leniently) and words its errors as
 *     protobufjs does, so a request refused by the hand-written decoder reads the same as one
 *     refused by `decodeOtlp`.
 * Every error, in both dialects, is a `WireError`.
 */
import { isUtf8 } from 'node:buffer';

export const WireType = {
  Varint: 0,
  Fixed64: 1,
  LengthDelimited: 2,
  StartGroup: 3,
  EndGroup: 4,
  Fixed32: 5,
} as const;

/** A malformed message; the message says where and why. */
export class WireError extends Error {}

export type WireDialect = 'strict' | 'protobufjs';

const TWO_POW_32 = 4294967296;

/** A cursor over one message's bytes; `end` bounds the current (sub)message. */
export class WireReader {
  pos: number;
  /** The high 32 bits of the varint `varint64()` read last (kept here: no object per varint). */
  high = 0;
  /** The bytes as a Buffer (a view, not a copy), for its fixed-width and string readers. */
  readonly buf: Buffer;

  constructor(
    bytes: Uint8Array,
    start = 0,
    public end = bytes.length,
    readonly dialect: WireDialect = 'strict',
  ) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** `n` more bytes of a `what` are needed, but the message ends first. */
  private truncated(n: number, what: string): never {
    throw new WireError(
      this.dialect === 'protobufjs'
        ? `index out of range: ${this.pos} + ${n} > ${this.end}`
        : `truncated ${what} at offset ${this.pos}`,
    );
  }

  private badWireType(wireType: number): never {
    throw new WireError(
      this.dialect === 'protobufjs'
        ? `invalid wire type ${wireType} at offset ${this.pos}`
        : `unsupported wire type ${wireType}`,
    );
  }

  /** A varint of up to 64 bits: returns the low word, leaves the high word in `high`. */
  varint64(): number {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.truncated(1, 'varint');
      const b = this.buf[this.pos++] as number;
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) {
        this.high = hi >>> 0;
        return lo >>> 0;
      }
    }
    throw new WireError(
      this.dialect === 'protobufjs' ? 'invalid varint encoding' : `varint longer than 10 bytes at offset ${this.pos}`,
    );
  }

  /**
   * A uint32 varint (tags, lengths, enums, counts). Wider values are an error in the strict
   * dialect and keep their low 32 bits in protobufjs' (as its `uint32()` does).
   */
  uint32(): number {
    const pos = this.pos;
    // One-byte varints (most tags and small lengths) skip the general loop.
    if (pos < this.end) {
      const b = this.buf[pos] as number;
      if (b < 0x80) {
        this.pos = pos + 1;
        return b;
      }
    }
    const lo = this.varint64();
    if (this.high !== 0 && this.dialect === 'strict') throw new WireError(`varint too large at offset ${this.pos}`);
    return lo;
  }

  /** An int64 varint (two's complement) as a number; exact while |value| < 2^53. */
  int64(): number {
    const lo = this.varint64();
    return (this.high | 0) * TWO_POW_32 + lo;
  }

  /** An int64 varint as an exact signed bigint (negative values use all ten bytes). */
  int64BigInt(): bigint {
    const lo = this.varint64();
    return BigInt.asIntN(64, (BigInt(this.high) << 32n) | BigInt(lo));
  }

  /** The next field tag (field << 3 | wire type), checked as the strict dialect requires. */
  tag(): number {
    const start = this.pos;
    const tag = this.uint32();
    const wireType = tag & 7;
    if (tag >>> 3 === 0) throw new WireError(`illegal field number 0 at offset ${start}`);
    if (wireType !== 0 && wireType !== 1 && wireType !== 2 && wireType !== 5) {
      throw new WireError(`unsupported wire type ${wireType} at offset ${start}`);
    }
    return tag;
  }

  /** Checks a known field's wire type; `message` names the message in the error. */
  expect(tag: number, expected: number, message: string): void {
    if ((tag & 7) !== expected) {
      throw new WireError(`${message} field ${tag >>> 3} has wire type ${tag & 7}, expected ${expected}`);
    }
  }

  /** A length-delimited field: returns where its bytes start; `pos` moves past them. */
  delimited(): number {
    const length = this.uint32();
    const start = this.pos;
    if (length > this.end - start) {
      if (this.dialect === 'protobufjs') this.truncated(length, 'bytes');
      throw new WireError(`length ${length} at offset ${start} runs past the end`);
    }
    this.pos = start + length;
    return start;
  }

  /** A reader over the next length-delimited field (an embedded message), same dialect. */
  sub(): WireReader {
    const start = this.delimited();
    return new WireReader(this.buf, start, this.pos, this.dialect);
  }

  /** A string field: valid UTF-8 in the strict dialect (`what` names it in the error). */
  string(what = 'string'): string {
    const start = this.delimited();
    const end = this.pos;
    if (this.dialect === 'protobufjs') return this.buf.toString('utf8', start, end);
    if (end === start) return '';
    const slice = this.buf.subarray(start, end);
    if (!isUtf8(slice)) throw new WireError(`${what} is not valid UTF-8`);
    return slice.toString('utf8');
  }

  /** A bytes field, copied (as protobufjs copies it): the request body is released after decoding. */
  bytes(): Buffer {
    const start = this.delimited();
    return Buffer.from(this.buf.subarray(start, this.pos));
  }

  fixed32(): number {
    if (this.pos + 4 > this.end) this.truncated(4, 'fixed32');
    const value = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return value;
  }

  /** A fixed64 as an unsigned bigint. */
  fixed64(): bigint {
    if (this.pos + 8 > this.end) this.truncated(8, 'fixed64');
    const value = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return value;
  }

  double(): number {
    if (this.pos + 8 > this.end) this.truncated(8, 'double');
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** Skips the value of a field of the given wire type (groups too, in protobufjs' dialect). */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.Varint:
        this.varint64();
        return;
      case WireType.Fixed64:
        if (this.pos + 8 > this.end) this.truncated(8, 'fixed64');
        this.pos += 8;
        return;
      case WireType.LengthDelimited:
        this.delimited();
        return;
      case WireType.StartGroup:
        if (this.dialect === 'strict') this.badWireType(wireType);
        for (;;) {
          const tag = this.uint32();
          if ((tag & 7) === WireType.EndGroup) return;
          this.skip(tag & 7);
        }
      case WireType.Fixed32:
        if (this.pos + 4 > this.end) this.truncated(4, 'fixed32');
        this.pos += 4;
        return;
      default:
        this.badWireType(wireType);
    }
  }
}
