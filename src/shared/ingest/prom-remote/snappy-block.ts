/**
 * Snappy block format (not the framed format) as Prometheus' remote protocols use it: compression
 * through `snappyjs`, decompression here (bounded, strict, one pass; see `snappyDecompress`).
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
 * Decompresses a snappy block in one pass. Strict: every element must lie within the input, every
 * copy must reach back into what was already produced, and the output must be exactly the
 * declared length (snappyjs alone zero-fills a truncated stream). Decoding here rather than in
 * snappyjs after a separate validating walk halves the passes; long literals are one `set`, and
 * copies go four bytes a step: remote-write bodies are mostly short copies of repeated label
 * bytes, and this was the router's largest single cost at a scraper's request shape
 * (bench/RESULTS.md). `into`, when given, supplies the output
 * buffer for a length (exactly that long), e.g. a thread's reused scratch.
 */
export function snappyDecompress(input: Uint8Array, maxBytes: number, into?: (length: number) => Buffer): Buffer {
  const preamble = readPreamble(input);
  if (!preamble) throw new SnappyError('invalid snappy length preamble');
  const [declared, used] = preamble;
  if (declared > maxBytes) {
    throw new SnappyError(`decompressed size ${declared} exceeds the limit of ${maxBytes} bytes`, true);
  }
  const out = into === undefined ? Buffer.allocUnsafe(declared) : into(declared);
  const words = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const end = input.length;
  let pos = used;
  let op = 0;
  while (pos < end) {
    const tag = input[pos++] as number;
    const kind = tag & 3;
    if (kind === 0) {
      let length = (tag >>> 2) + 1;
      if (length > 60) {
        const extra = length - 60;
        if (pos + extra > end) throw new SnappyError('corrupt snappy block');
        length = 0;
        for (let i = extra - 1; i >= 0; i--) length = length * 256 + (input[pos + i] as number);
        length += 1;
        pos += extra;
      }
      if (pos + length > end) throw new SnappyError('corrupt snappy block');
      if (op + length > declared) throw overrun(declared);
      if (length < 16) for (let i = 0; i < length; i++) out[op + i] = input[pos + i] as number;
      else out.set(input.subarray(pos, pos + length), op);
      pos += length;
      op += length;
      continue;
    }
    let length: number;
    let offset: number;
    if (kind === 1) {
      if (pos + 1 > end) throw new SnappyError('corrupt snappy block');
      length = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | (input[pos] as number);
      pos += 1;
    } else if (kind === 2) {
      if (pos + 2 > end) throw new SnappyError('corrupt snappy block');
      length = (tag >>> 2) + 1;
      offset = (input[pos] as number) | ((input[pos + 1] as number) << 8);
      pos += 2;
    } else {
      if (pos + 4 > end) throw new SnappyError('corrupt snappy block');
      length = (tag >>> 2) + 1;
      offset =
        ((input[pos] as number) |
          ((input[pos + 1] as number) << 8) |
          ((input[pos + 2] as number) << 16) |
          ((input[pos + 3] as number) << 24)) >>>
        0;
      pos += 4;
    }
    if (offset === 0 || offset > op) throw new SnappyError('corrupt snappy block');
    if (op + length > declared) throw overrun(declared);
    const from = op - offset;
    if (offset >= 4 && op + length + 3 <= declared) {
      // Four bytes a step (copies are at most 64 bytes): each word read lies wholly before the
      // one written, so an overlapping copy still repeats what it has just written. A byte loop
      // here was a tenth of a scraper-shaped request's CPU; words take a fifth less. The last
      // word may run up to 3 bytes past the copy (room checked): the elements after it write
      // those bytes again, and a block ending early is refused below.
      for (let i = 0; i < length; i += 4) words.setUint32(op + i, words.getUint32(from + i, true), true);
    } else {
      // Overlapping by fewer than 4 bytes (a run), or ending within 3 bytes of the block's end.
      for (let i = 0; i < length; i++) out[op + i] = out[from + i] as number;
    }
    op += length;
  }
  if (op !== declared) {
    throw new SnappyError(`snappy block produces ${op} bytes but declares ${declared} (truncated or corrupt)`);
  }
  return out;
}

function overrun(declared: number): SnappyError {
  return new SnappyError(`snappy block produces more than the ${declared} bytes it declares`);
}

/** Compresses into a snappy block. */
export function snappyCompress(input: Uint8Array): Buffer {
  const buffer = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return snappy.compress(buffer);
}
