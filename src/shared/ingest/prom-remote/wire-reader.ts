/**
 * A strict reader of the protobuf wire format for the remote write hot path. Strict means what
 * Go's generated unmarshalers refuse is refused here too: field number 0, wire types 3/4 (groups)
 * and 6/7, varints longer than 10 bytes, lengths that run past the end, and a known field sent
 * with the wrong wire type. Strings are checked to be valid UTF-8 instead of being patched with
 * U+FFFD, so a label value never changes silently.
 */
import { isUtf8 } from 'node:buffer';

export const WireType = { Varint: 0, Fixed64: 1, LengthDelimited: 2, Fixed32: 5 } as const;

/** A malformed message; the message says where and why. */
export class WireError extends Error {}

const TWO_POW_32 = 4294967296;

export class WireReader {
  pos: number;
  private readonly view: DataView;
  private readonly buffer: Buffer;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    public end = bytes.length,
  ) {
    this.pos = start;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint of up to 64 bits as its low and high 32-bit words. */
  private varint(): { lo: number; hi: number } {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError(`truncated varint at offset ${this.pos}`);
      const b = this.bytes[this.pos++] as number;
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    throw new WireError(`varint longer than 10 bytes at offset ${this.pos}`);
  }

  /** A uint32-sized varint (tags, lengths, enums); larger values are an error. */
  uint32(): number {
    const { lo, hi } = this.varint();
    if (hi !== 0) throw new WireError(`varint too large at offset ${this.pos}`);
    return lo;
  }

  /** An int64 varint (two's complement) as a number; exact while |value| < 2^53. */
  int64(): number {
    const { lo, hi } = this.varint();
    return (hi | 0) * TWO_POW_32 + lo;
  }

  /** The next field tag as [field number, wire type]. */
  tag(): [number, number] {
    const start = this.pos;
    const tag = this.uint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field === 0) throw new WireError(`illegal field number 0 at offset ${start}`);
    if (wireType !== 0 && wireType !== 1 && wireType !== 2 && wireType !== 5) {
      throw new WireError(`unsupported wire type ${wireType} at offset ${start}`);
    }
    return [field, wireType];
  }

  /** Checks a known field's wire type. */
  expect(field: number, wireType: number, expected: number, message: string): void {
    if (wireType !== expected) {
      throw new WireError(`${message} field ${field} has wire type ${wireType}, expected ${expected}`);
    }
  }

  /** A length-delimited field's bounds; the reader moves past it. */
  delimited(): { start: number; end: number } {
    const length = this.uint32();
    const start = this.pos;
    if (length > this.end - start) throw new WireError(`length ${length} at offset ${start} runs past the end`);
    this.pos = start + length;
    return { start, end: start + length };
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new WireError(`truncated double at offset ${this.pos}`);
    const value = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  /** A string field, which must be valid UTF-8. */
  string(what: string): string {
    const { start, end } = this.delimited();
    if (end === start) return '';
    const slice = this.buffer.subarray(start, end);
    if (!isUtf8(slice)) throw new WireError(`${what} is not valid UTF-8`);
    return slice.toString('utf8');
  }

  /** Skips the value of a field of the given wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.Varint:
        this.varint();
        return;
      case WireType.Fixed64:
        if (this.pos + 8 > this.end) throw new WireError(`truncated fixed64 at offset ${this.pos}`);
        this.pos += 8;
        return;
      case WireType.LengthDelimited:
        this.delimited();
        return;
      case WireType.Fixed32:
        if (this.pos + 4 > this.end) throw new WireError(`truncated fixed32 at offset ${this.pos}`);
        this.pos += 4;
        return;
      default:
        throw new WireError(`unsupported wire type ${wireType}`);
    }
  }
}
