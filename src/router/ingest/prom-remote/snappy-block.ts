/**
 * Snappy block format (not the framed format) as Prometheus' remote protocols use it, over
 * `snappyjs`. The decoder is bounded and strict: snappyjs checks the declared length against the
 * bound but silently ignores a stream that produces fewer or more bytes than declared (the rest
 * stays zero), which would let a truncated body decode as a shorter, plausible protobuf. So the
 * element stream is walked first and must add up to exactly the declared length.
 */
import snappy from 'snappyjs';

/** Why a body could not be decompressed; the route answers 400 (or 413 for `tooLarge`). */
export class SnappyError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** Reads the uvarint length preamble; returns [length, bytes used] or null when malformed. */
function readPreamble(input: Uint8Array): [number, number] | null {
  let length = 0;
  let scale = 1;
  for (let i = 0; i < 5 && i < input.length; i++) {
    const b = input[i] as number;
    length += (b & 0x7f) * scale;
    if (b < 0x80) return length > 0xffffffff ? null : [length, i + 1];
    scale *= 128;
  }
  return null;
}

/**
 * The number of bytes the element stream after the preamble produces, or -1 when an element is
 * cut short or a copy reaches back before the start of the output.
 */
function producedLength(input: Uint8Array, start: number): number {
  let pos = start;
  let out = 0;
  const end = input.length;
  while (pos < end) {
    const tag = input[pos++] as number;
    const kind = tag & 3;
    if (kind === 0) {
      let length = (tag >>> 2) + 1;
      if (length > 60) {
        const extra = length - 60;
        if (pos + extra > end) return -1;
        length = 0;
        for (let i = extra - 1; i >= 0; i--) length = length * 256 + (input[pos + i] as number);
        length += 1;
        pos += extra;
      }
      if (pos + length > end) return -1;
      pos += length;
      out += length;
      continue;
    }
    let length: number;
    let offset: number;
    if (kind === 1) {
      if (pos + 1 > end) return -1;
      length = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | (input[pos] as number);
      pos += 1;
    } else if (kind === 2) {
      if (pos + 2 > end) return -1;
      length = (tag >>> 2) + 1;
      offset = (input[pos] as number) | ((input[pos + 1] as number) << 8);
      pos += 2;
    } else {
      if (pos + 4 > end) return -1;
      length = (tag >>> 2) + 1;
      offset =
        ((input[pos] as number) |
          ((input[pos + 1] as number) << 8) |
          ((input[pos + 2] as number) << 16) |
          ((input[pos + 3] as number) << 24)) >>>
        0;
      pos += 4;
    }
    if (offset === 0 || offset > out) return -1;
    out += length;
  }
  return out;
}

/**
 * Decompresses a snappy block. Throws `SnappyError` when the data is not a well-formed block, and
 * with `tooLarge` when it would expand beyond `maxBytes`.
 */
export function snappyDecompress(input: Uint8Array, maxBytes: number): Buffer {
  const preamble = readPreamble(input);
  if (!preamble) throw new SnappyError('invalid snappy length preamble');
  const [declared, used] = preamble;
  if (declared > maxBytes) {
    throw new SnappyError(`decompressed size ${declared} exceeds the limit of ${maxBytes} bytes`, true);
  }
  const produced = producedLength(input, used);
  if (produced !== declared) {
    throw new SnappyError(
      produced < 0
        ? 'corrupt snappy block'
        : `snappy block produces ${produced} bytes but declares ${declared} (truncated or corrupt)`,
    );
  }
  const buffer = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  try {
    return snappy.uncompress(buffer, maxBytes);
  } catch (err) {
    throw new SnappyError((err as Error).message);
  }
}

/** Compresses into a snappy block. */
export function snappyCompress(input: Uint8Array): Buffer {
  const buffer = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return snappy.compress(buffer);
}
