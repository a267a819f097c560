/**
 * LZ4 frame format (lz4_Frame_format.md v1.6.x) with a greedy block compressor, the codec Arrow IPC
 * names LZ4_FRAME. apache-arrow can write compressed IPC bodies but ships no codec, and no
 * dependency of ours provides LZ4, so this small one lives here (about 20 MB/s is plenty for
 * query results).
 *
 * Frame written: magic 04 22 4D 18 | FLG 0x60 (version 01, independent blocks, no checksums, no
 * content size) | BD 0x70 (blocks of at most 4 MiB) | HC = second byte of xxh32(FLG BD) | blocks |
 * end mark 00 00 00 00. Each block is `u32 LE size` then data; the size's top bit marks a block
 * stored uncompressed (used when compression would not shrink it).
 *
 * Block sequences: token (literal length << 4 | match length - 4, 15 = more bytes follow, each
 * 255 adds and continues), literals, u16 LE offset, extra match length bytes. Format rules kept:
 * matches are at least 4 bytes, the last 5 bytes are always literals, and no match starts within
 * the last 12 bytes of a block.
 */

const MAGIC = 0x184d2204;
const FLG = 0x60;
const BD = 0x70;
const BLOCK_BYTES_MAX = 4 * 1024 * 1024;
const UNCOMPRESSED_FLAG = 0x80000000;
const MIN_MATCH = 4;
const LAST_LITERALS = 5;
const MATCH_START_LIMIT = 12;
const OFFSET_MAX = 65535;
const HASH_BITS = 16;

const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;

function rotl(x: number, r: number): number {
  return ((x << r) | (x >>> (32 - r))) >>> 0;
}

function read32(b: Uint8Array, i: number): number {
  return (
    ((b[i] as number) | ((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16) | ((b[i + 3] as number) << 24)) >>> 0
  );
}

/** xxHash32, used by the frame header checksum. */
export function xxh32(data: Uint8Array, seed = 0): number {
  const len = data.length;
  let i = 0;
  let h: number;
  if (len >= 16) {
    let v1 = (seed + P1 + P2) >>> 0;
    let v2 = (seed + P2) >>> 0;
    let v3 = seed >>> 0;
    let v4 = (seed - P1) >>> 0;
    const round = (acc: number, input: number): number =>
      Math.imul(rotl((acc + Math.imul(input, P2)) >>> 0, 13), P1) >>> 0;
    for (; i <= len - 16; i += 16) {
      v1 = round(v1, read32(data, i));
      v2 = round(v2, read32(data, i + 4));
      v3 = round(v3, read32(data, i + 8));
      v4 = round(v4, read32(data, i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0;
  } else {
    h = (seed + P5) >>> 0;
  }
  h = (h + len) >>> 0;
  for (; i + 4 <= len; i += 4) h = Math.imul(rotl((h + Math.imul(read32(data, i), P3)) >>> 0, 17), P4) >>> 0;
  for (; i < len; i++) h = Math.imul(rotl((h + Math.imul(data[i] as number, P5)) >>> 0, 11), P1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), P2) >>> 0;
  h = Math.imul(h ^ (h >>> 13), P3) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

function writeLength(out: Uint8Array, op: number, extra: number): number {
  while (extra >= 255) {
    out[op++] = 255;
    extra -= 255;
  }
  out[op++] = extra;
  return op;
}

/**
 * Compresses src[start, end) as one independent block into `out` at `op`; returns the new output
 * position. `out` must have room for the worst case (literals only).
 */
function compressBlock(
  src: Uint8Array,
  start: number,
  end: number,
  out: Uint8Array,
  op: number,
  table: Int32Array,
): number {
  table.fill(-1);
  let anchor = start;
  let ip = start;
  const matchEndMax = end - LAST_LITERALS;
  const matchStartMax = end - MATCH_START_LIMIT;
  while (ip <= matchStartMax) {
    const sequence = read32(src, ip);
    const slot = Math.imul(sequence, P1) >>> (32 - HASH_BITS);
    const ref = table[slot] as number;
    table[slot] = ip;
    if (ref < start || ip - ref > OFFSET_MAX || read32(src, ref) !== sequence) {
      ip++;
      continue;
    }
    let matchLength = MIN_MATCH;
    while (ip + matchLength < matchEndMax && src[ref + matchLength] === src[ip + matchLength]) matchLength++;
    const literalLength = ip - anchor;
    const token = op++;
    if (literalLength >= 15) op = writeLength(out, op, literalLength - 15);
    out.set(src.subarray(anchor, ip), op);
    op += literalLength;
    const offset = ip - ref;
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
    const extraMatch = matchLength - MIN_MATCH;
    if (extraMatch >= 15) op = writeLength(out, op, extraMatch - 15);
    out[token] = (Math.min(literalLength, 15) << 4) | Math.min(extraMatch, 15);
    ip += matchLength;
    anchor = ip;
  }
  const literalLength = end - anchor;
  const token = op++;
  if (literalLength >= 15) op = writeLength(out, op, literalLength - 15);
  out[token] = Math.min(literalLength, 15) << 4;
  out.set(src.subarray(anchor, end), op);
  return op + literalLength;
}

function write32(out: Uint8Array, op: number, value: number): void {
  out[op] = value & 0xff;
  out[op + 1] = (value >>> 8) & 0xff;
  out[op + 2] = (value >>> 16) & 0xff;
  out[op + 3] = value >>> 24;
}

/** `data` as one LZ4 frame. */
export function lz4FrameCompress(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / BLOCK_BYTES_MAX));
  // Header 7, per block size 4 + worst case (literals plus length bytes plus token), end mark 4.
  const out = new Uint8Array(7 + blocks * 5 + data.length + Math.ceil(data.length / 255) + 4 + 16);
  write32(out, 0, MAGIC);
  out[4] = FLG;
  out[5] = BD;
  out[6] = (xxh32(out.subarray(4, 6)) >>> 8) & 0xff;
  let op = 7;
  const table = new Int32Array(1 << HASH_BITS);
  for (let start = 0; start < data.length; start += BLOCK_BYTES_MAX) {
    const end = Math.min(data.length, start + BLOCK_BYTES_MAX);
    const size = compressBlock(data, start, end, out, op + 4, table) - (op + 4);
    if (size < end - start) {
      write32(out, op, size);
      op += 4 + size;
    } else {
      write32(out, op, (UNCOMPRESSED_FLAG | (end - start)) >>> 0);
      out.set(data.subarray(start, end), op + 4);
      op += 4 + (end - start);
    }
  }
  write32(out, op, 0);
  return out.slice(0, op + 4);
}

/** Growable output for decompression. */
class ByteSink {
  bytes: Uint8Array;
  length = 0;
  constructor(initial: number) {
    this.bytes = new Uint8Array(Math.max(64, initial));
  }
  reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + extra));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
}

function fail(message: string): never {
  throw new Error(`lz4 frame: ${message}`);
}

function decompressBlock(src: Uint8Array, ip: number, end: number, sink: ByteSink): void {
  while (ip < end) {
    const token = src[ip++] as number;
    let literalLength = token >>> 4;
    if (literalLength === 15) {
      let b: number;
      do {
        if (ip >= end) fail('truncated literal length');
        b = src[ip++] as number;
        literalLength += b;
      } while (b === 255);
    }
    if (ip + literalLength > end) fail('literals run past the block');
    sink.reserve(literalLength);
    sink.bytes.set(src.subarray(ip, ip + literalLength), sink.length);
    sink.length += literalLength;
    ip += literalLength;
    if (ip >= end) break;
    if (ip + 2 > end) fail('truncated offset');
    const offset = (src[ip] as number) | ((src[ip + 1] as number) << 8);
    ip += 2;
    if (offset === 0 || offset > sink.length) fail('bad match offset');
    let matchLength = token & 15;
    if (matchLength === 15) {
      let b: number;
      do {
        if (ip >= end) fail('truncated match length');
        b = src[ip++] as number;
        matchLength += b;
      } while (b === 255);
    }
    matchLength += MIN_MATCH;
    sink.reserve(matchLength);
    const out = sink.bytes;
    // Offsets may reach into earlier blocks of frames written with linked blocks.
    // Byte by byte: a match may overlap the bytes it produces (offset < length).
    for (let k = 0, from = sink.length - offset; k < matchLength; k++) out[sink.length + k] = out[from + k] as number;
    sink.length += matchLength;
  }
}

/** The content of one LZ4 frame (checksums are skipped, not verified; dictionaries are refused). */
export function lz4FrameDecompress(frame: Uint8Array): Uint8Array {
  if (frame.length < 7 || read32(frame, 0) !== MAGIC) fail('bad magic number');
  const flg = frame[4] as number;
  if (flg >> 6 !== 1) fail('unsupported version');
  if (flg & 0x01) fail('dictionaries are not supported');
  let ip = 6 + (flg & 0x08 ? 8 : 0);
  if (((xxh32(frame.subarray(4, ip)) >>> 8) & 0xff) !== frame[ip]) fail('header checksum mismatch');
  ip++;
  const blockChecksums = (flg & 0x10) !== 0;
  const sink = new ByteSink(frame.length * 4);
  for (;;) {
    if (ip + 4 > frame.length) fail('truncated block size');
    const word = read32(frame, ip);
    ip += 4;
    if (word === 0) break;
    const size = word & 0x7fffffff;
    if (ip + size > frame.length) fail('truncated block');
    if (word & UNCOMPRESSED_FLAG) {
      sink.reserve(size);
      sink.bytes.set(frame.subarray(ip, ip + size), sink.length);
      sink.length += size;
    } else {
      decompressBlock(frame, ip, ip + size, sink);
    }
    ip += size + (blockChecksums ? 4 : 0);
  }
  return sink.bytes.slice(0, sink.length);
}
