/**
 * Encodes the rows of a RowBuffer into one segment block and decodes it back, column by column.
 *
 * A block is 1 + C chunks: the timestamps, then one chunk per field column in the segment's
 * column order. Field chunks hold only the values of present rows; a validity bitmap says which
 * rows those are. Each chunk is stored on its own (docs/formats/segment.md, Block): deflate-raw
 * when that saves at least COMPRESSION_MIN_SAVING, with its own CRC32, behind a directory that
 * says where each lies. A scan then reads, checks and inflates only the columns it asks for: with
 * the block stored whole, a percentile of one column of ten inflated all ten, a third of the
 * query's time. Blocks of format versions 1-3 (the body stored whole) are still read.
 */
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { allocValues, type PhysicalKind, type Vector } from '../../shared/types.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import { ABSENT, type ColumnData, type FieldSpec } from '../merge/part.js';
import { ByteReader, ByteWriter, FormatError } from './byte-io.js';
import {
  decodeBitmap,
  decodeFloat64s,
  decodeInt64s,
  decodeStrings,
  encodeBitmap,
  encodeFloat64s,
  encodeInt64s,
  encodeStrings,
} from './encoding.js';
import { BlockCodec, COMPRESSION_MIN_SAVING, Validity } from './format.js';
import { type BlockSource, keepTimestamps, type PageEntry, pageChunk } from './page-cache.js';

/** Per-column statistics of a block; min/max for numeric kinds with at least one present value. */
export interface ColumnStats {
  nullCount: number;
  min?: number | bigint | undefined;
  max?: number | bigint | undefined;
}

/** Where a block is and what it holds; one footer entry per block. */
export interface BlockMeta {
  offset: number;
  storedLength: number;
  rawLength: number;
  codec: number;
  crc: number;
  /** Segment row number of the block's first row. */
  firstRow: number;
  rowCount: number;
  minTs: bigint;
  maxTs: bigint;
  columns: ColumnStats[];
}

export interface EncodedBlock {
  stored: Uint8Array;
  meta: Omit<BlockMeta, 'offset' | 'firstRow'>;
}

/** The rows a block is encoded from: field spec c of row i is `values[c][i]` if `valid[c][i]`. */
export interface BlockRows {
  length: number;
  ts: BigInt64Array;
  values: ReadonlyArray<Vector['values']>;
  valid: readonly Uint8Array[];
}

function isNumeric(kind: PhysicalKind): boolean {
  return kind === 'f64' || kind === 'i64' || kind === 'u64';
}

/** Values of the present rows, in row order. */
function denseValues(kind: PhysicalKind, values: Vector['values'], valid: Uint8Array, n: number, present: number) {
  const out = allocValues(kind, present);
  const src = values as Float64Array;
  const dst = out as Float64Array;
  let k = 0;
  for (let i = 0; i < n; i++) if (valid[i] === 1) dst[k++] = src[i] as number;
  return out;
}

function statsOf(kind: PhysicalKind, dense: Vector['values'], count: number, nullCount: number): ColumnStats {
  const stats: ColumnStats = { nullCount };
  if (!isNumeric(kind) || count === 0) return stats;
  if (kind === 'f64') {
    const v = dense as Float64Array;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < count; i++) {
      const x = v[i] as number;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    // All NaN: there is no order, but the footer still carries a (NaN) pair.
    stats.min = min <= max ? min : Number.NaN;
    stats.max = min <= max ? max : Number.NaN;
    return stats;
  }
  const v = dense as BigInt64Array | BigUint64Array;
  let min = v[0] as bigint;
  let max = min;
  for (let i = 1; i < count; i++) {
    const x = v[i] as bigint;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  stats.min = min;
  stats.max = max;
  return stats;
}

/** 1 where `valid` holds `state`, else 0. */
function cellsIn(valid: Uint8Array, state: number): Uint8Array {
  return valid.map((v) => (v === state ? 1 : 0));
}

/** A column's statistics, with its distinct present values when the encoding found them all. */
type EncodedField = ColumnStats | { stats: ColumnStats; distinct: string[] };

function encodeField(
  kind: PhysicalKind,
  values: Vector['values'],
  valid: Uint8Array,
  n: number,
  w: ByteWriter,
): EncodedField {
  let distinct: string[] | undefined;
  let present = 0;
  let absent = 0;
  for (let i = 0; i < n; i++) {
    const v = valid[i];
    if (v === 1) present++;
    else if (v === ABSENT) absent++;
  }
  if (present === 0) {
    w.u8(absent === n ? Validity.AllAbsent : absent === 0 ? Validity.AllNull : Validity.BitmapWithAbsent);
    if (absent !== n && absent !== 0) {
      encodeBitmap(new Uint8Array(n), n, w);
      encodeBitmap(cellsIn(valid, ABSENT), n, w);
    }
    return { nullCount: n };
  }
  let dense: Vector['values'];
  if (present === n) {
    w.u8(Validity.AllValid);
    dense = values;
  } else {
    w.u8(absent === 0 ? Validity.Bitmap : Validity.BitmapWithAbsent);
    encodeBitmap(cellsIn(valid, 1), n, w);
    if (absent > 0) encodeBitmap(cellsIn(valid, ABSENT), n, w);
    dense = denseValues(kind, values, valid, n, present);
  }
  switch (kind) {
    case 'f64':
      w.u8(0);
      encodeFloat64s(dense as Float64Array, present, w);
      break;
    case 'i64':
    case 'u64':
      encodeInt64s(dense as BigInt64Array, present, 1, w);
      break;
    case 'bool':
      w.u8(0);
      encodeBitmap(dense as Uint8Array, present, w);
      break;
    case 'str':
      distinct = encodeStrings(dense as Array<string | null>, present, w);
      break;
  }
  const stats = statsOf(kind, dense, present, n - present);
  return distinct === undefined ? stats : { stats, distinct };
}

/** A block's uncompressed chunks and what the footer says of it, before choosing how to store them. */
export interface RawBlock {
  /** Chunk 0 the timestamps, chunk c + 1 field column c; views of one buffer. */
  chunks: Buffer[];
  meta: Omit<BlockMeta, 'offset' | 'firstRow' | 'storedLength' | 'codec' | 'crc'>;
  /**
   * Per field column, its distinct present values when it was stored as a dictionary (not
   * written as such; the term index reads them instead of every row).
   */
  distinct: Array<string[] | undefined>;
}

/** Encodes rows `[0, rows.length)` with the given field specs, uncompressed. */
export function encodeBlockBody(rows: BlockRows, specs: readonly FieldSpec[]): RawBlock {
  const n = rows.length;
  const w = new ByteWriter(64 + n * (8 + 9 * specs.length));
  const ends: number[] = [];

  encodeInt64s(rows.ts, n, 2, w);
  ends.push(w.pos);
  let minTs = rows.ts[0] as bigint;
  let maxTs = minTs;
  for (let i = 1; i < n; i++) {
    const t = rows.ts[i] as bigint;
    if (t < minTs) minTs = t;
    else if (t > maxTs) maxTs = t;
  }

  const columns: ColumnStats[] = [];
  const distinct: Array<string[] | undefined> = [];
  for (let c = 0; c < specs.length; c++) {
    const spec = specs[c] as FieldSpec;
    const field = encodeField(spec.kind, rows.values[c] as Vector['values'], rows.valid[c] as Uint8Array, n, w);
    if ('distinct' in field) {
      columns.push(field.stats);
      distinct.push(field.distinct);
    } else {
      columns.push(field);
      distinct.push(undefined);
    }
    ends.push(w.pos);
  }
  const raw = w.bytesView();
  const chunks = ends.map((end, c) => raw.subarray(c === 0 ? 0 : ends[c - 1], end));
  return { chunks, meta: { rawLength: raw.length, rowCount: n, minTs, maxTs, columns }, distinct };
}

/** Bytes of one directory entry: u32 stored length, u32 raw length, u32 CRC32, u8 codec. */
export const DIRECTORY_ENTRY_BYTES = 13;

/**
 * The block as stored: a directory, then each chunk deflated when that saves enough
 * (`deflated[c]`: deflate-raw of chunk c), else raw. The footer's CRC covers the directory,
 * whose entries carry each chunk's own.
 */
export function storedBlock(block: RawBlock, deflated: readonly Uint8Array[]): EncodedBlock {
  const count = block.chunks.length;
  const directory = DIRECTORY_ENTRY_BYTES * count;
  const picked = block.chunks.map((raw, c) => {
    const compressed = deflated[c] as Uint8Array;
    return compressed.length <= raw.length * (1 - COMPRESSION_MIN_SAVING)
      ? { bytes: compressed, codec: BlockCodec.DeflateRaw }
      : { bytes: raw as Uint8Array, codec: BlockCodec.None };
  });
  const storedLength = picked.reduce((sum, p) => sum + p.bytes.length, directory);
  const stored = Buffer.allocUnsafe(storedLength);
  let at = directory;
  picked.forEach((p, c) => {
    const entry = c * DIRECTORY_ENTRY_BYTES;
    stored.writeUInt32LE(p.bytes.length, entry);
    stored.writeUInt32LE((block.chunks[c] as Buffer).length, entry + 4);
    stored.writeUInt32LE(crc32(p.bytes), entry + 8);
    stored.writeUInt8(p.codec, entry + 12);
    stored.set(p.bytes, at);
    at += p.bytes.length;
  });
  const crc = crc32(stored.subarray(0, directory));
  return { stored, meta: { ...block.meta, storedLength, codec: BlockCodec.Chunked, crc } };
}

/** Chunks are deflated fast rather than small: level 1. */
const DEFLATE_OPTIONS = { level: 1 };

/**
 * Deflate-raw of each chunk, on this thread, one chunk a turn of the event loop so that writes and
 * queries waiting go between chunks (a chunk of 100 KB takes about half a millisecond). libuv's
 * pool did this before: on a machine whose cores the shards already keep busy it gained no
 * parallelism and took about 1.5x the CPU for the same bytes (200 chunks of 100 KB: 170 ms over
 * the pool's threads against 115 ms here).
 */
export async function deflateBlock(block: RawBlock): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const chunk of block.chunks) {
    await yieldToEventLoop();
    out.push(deflateRawSync(chunk, DEFLATE_OPTIONS));
  }
  return out;
}

/** Encodes rows `[0, rows.length)` with the given field specs, compressed on this thread. */
export function encodeBlock(rows: BlockRows, specs: readonly FieldSpec[]): EncodedBlock {
  const block = encodeBlockBody(rows, specs);
  return storedBlock(
    block,
    block.chunks.map((chunk) => deflateRawSync(chunk, DEFLATE_OPTIONS)),
  );
}

/** Inflates deflate-raw bytes that must come to exactly `rawLength`. */
function inflated(stored: Uint8Array, rawLength: number): Buffer {
  let body: Buffer;
  try {
    // One output buffer of the known size: zlib then returns it as is instead of concatenating.
    body = inflateRawSync(stored, { maxOutputLength: rawLength, chunkSize: Math.max(64, rawLength + 1) });
  } catch (err) {
    throw new FormatError(`cannot inflate: ${(err as Error).message}`);
  }
  if (body.length !== rawLength) throw new FormatError(`inflated to ${body.length} bytes, expected ${rawLength}`);
  return body;
}

/** A chunked block's directory, checked against the footer's CRC. */
interface Directory {
  offsets: number[];
  stored: number[];
  raw: number[];
  crcs: number[];
  codecs: number[];
}

function readDirectory(bytes: Buffer, meta: BlockMeta, count: number): Directory {
  if (bytes.length !== count * DIRECTORY_ENTRY_BYTES) throw new FormatError('block directory cut short');
  if (crc32(bytes) !== meta.crc) throw new FormatError('checksum mismatch');
  const d: Directory = { offsets: [], stored: [], raw: [], crcs: [], codecs: [] };
  let offset = bytes.length;
  for (let c = 0; c < count; c++) {
    const entry = c * DIRECTORY_ENTRY_BYTES;
    d.offsets.push(offset);
    d.stored.push(bytes.readUInt32LE(entry));
    d.raw.push(bytes.readUInt32LE(entry + 4));
    d.crcs.push(bytes.readUInt32LE(entry + 8));
    d.codecs.push(bytes.readUInt8(entry + 12));
    offset += d.stored[c] as number;
  }
  if (offset !== meta.storedLength) throw new FormatError(`chunks add up to ${offset}, block is ${meta.storedLength}`);
  return d;
}

/** Chunk c of a chunked block from its stored bytes: CRC checked, inflated when deflated. */
function openChunk(stored: Buffer, d: Directory, c: number): Buffer {
  if (crc32(stored) !== d.crcs[c]) throw new FormatError(`chunk ${c}: checksum mismatch`);
  const codec = d.codecs[c];
  if (codec === BlockCodec.None) return stored;
  if (codec !== BlockCodec.DeflateRaw) throw new FormatError(`chunk ${c}: unknown codec ${codec}`);
  return inflated(stored, d.raw[c] as number);
}

/**
 * Chunks of a block stored chunk by chunk, read as asked through `bytesAt(offset, length)`
 * (offsets within the block): the directory at once, each chunk on first use.
 */
export function chunkedSource(meta: BlockMeta, columns: number, bytesAt: (offset: number, length: number) => Buffer) {
  const count = columns + 1;
  const d = readDirectory(bytesAt(0, count * DIRECTORY_ENTRY_BYTES), meta, count);
  const source: BlockSource = {
    chunks: new Array<Buffer | undefined>(count),
    bytes: 0,
    read: (c) => openChunk(bytesAt(d.offsets[c] as number, d.stored[c] as number), d, c),
  };
  return source;
}

/** A block stored whole (format versions 1-3): checked, inflated, and cut into its chunks at once. */
function wholeSource(stored: Buffer, meta: BlockMeta, columns: number): BlockSource {
  if (crc32(stored) !== meta.crc) throw new FormatError('checksum mismatch');
  let body = stored;
  if (meta.codec === BlockCodec.DeflateRaw) body = inflated(stored, meta.rawLength);
  else if (meta.codec !== BlockCodec.None) throw new FormatError(`unknown block codec ${meta.codec}`);
  const r = new ByteReader(body);
  const chunks: Buffer[] = [];
  let offset = (columns + 1) * 4;
  for (let c = 0; c <= columns; c++) {
    const length = r.u32();
    chunks.push(body.subarray(offset, offset + length));
    offset += length;
  }
  if (offset !== body.length) throw new FormatError(`chunk lengths add up to ${offset}, body is ${body.length}`);
  return {
    chunks,
    bytes: body.length,
    read: (c) => {
      throw new FormatError(`no chunk ${c}`);
    },
  };
}

/** The chunks of a block whose stored bytes are all in memory (compaction, checks, tests). */
export function blockSource(stored: Buffer, meta: BlockMeta, columns: number): BlockSource {
  if (meta.codec !== BlockCodec.Chunked) return wholeSource(stored, meta, columns);
  if (stored.length !== meta.storedLength) throw new FormatError('block cut short');
  return chunkedSource(meta, columns, (offset, length) => stored.subarray(offset, offset + length));
}

/**
 * Checks a stored block's CRCs without inflating it (the start-up check): the whole body's, or
 * the directory's and every chunk's. Returns what is wrong, or null.
 */
export function storedBlockProblem(stored: Buffer, meta: BlockMeta, columns: number): string | null {
  try {
    if (meta.codec !== BlockCodec.Chunked) return crc32(stored) === meta.crc ? null : 'checksum mismatch';
    const count = columns + 1;
    const d = readDirectory(stored.subarray(0, count * DIRECTORY_ENTRY_BYTES), meta, count);
    for (let c = 0; c < count; c++) {
      const at = d.offsets[c] as number;
      if (crc32(stored.subarray(at, at + (d.stored[c] as number))) !== d.crcs[c])
        return `chunk ${c}: checksum mismatch`;
    }
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * A block read back: its time index, and columns decoded as asked (their chunks read then).
 * Throws FormatError on malformed bytes; the caller names the file and block.
 */
export class DecodedBlock {
  readonly ts: BigInt64Array;
  private readonly cache = new Map<number, ColumnData | null>();

  constructor(
    readonly index: number,
    readonly meta: BlockMeta,
    private readonly page: PageEntry,
    private readonly specs: readonly FieldSpec[],
  ) {
    if (page.ts !== null) {
      this.ts = page.ts;
      return;
    }
    this.ts = new BigInt64Array(meta.rowCount);
    decodeInt64s(this.reader(0), meta.rowCount, this.ts);
    keepTimestamps(page, this.ts);
  }

  private reader(chunk: number): ByteReader {
    const bytes = pageChunk(this.page, chunk);
    return new ByteReader(bytes, 0, bytes.length);
  }

  /** Field column c (segment column order), or null when all its values are NULL. */
  column(c: number): ColumnData | null {
    let col = this.cache.get(c);
    if (col === undefined) {
      col = this.decodeColumn(c);
      this.cache.set(c, col);
    }
    return col;
  }

  private decodeColumn(c: number): ColumnData | null {
    const kind = (this.specs[c] as FieldSpec).kind;
    const n = this.meta.rowCount;
    const r = this.reader(c + 1);
    const validity = r.u8();
    if (validity === Validity.AllNull) return null;
    if (validity === Validity.AllAbsent) {
      return { values: allocValues(kind, n), valid: new Uint8Array(n).fill(ABSENT) };
    }
    let valid: Uint8Array | undefined;
    let present = n;
    if (validity === Validity.Bitmap || validity === Validity.BitmapWithAbsent) {
      valid = decodeBitmap(r, n);
      present = 0;
      for (let i = 0; i < n; i++) present += valid[i] as number;
      if (validity === Validity.BitmapWithAbsent) {
        const absent = decodeBitmap(r, n);
        for (let i = 0; i < n; i++) if (absent[i] === 1) valid[i] = ABSENT;
      }
      if (present === 0) return { values: allocValues(kind, n), valid };
    } else if (validity !== Validity.AllValid) {
      throw new FormatError(`unknown validity ${validity}`);
    }
    let dense: Vector['values'];
    if (kind === 'i64' || kind === 'u64') {
      dense = allocValues(kind, present);
      decodeInt64s(r, present, dense as BigInt64Array);
    } else {
      const encoding = r.u8();
      if (kind === 'str') dense = decodeStrings(r, present, encoding);
      else if (encoding !== 0) throw new FormatError(`unknown ${kind} encoding ${encoding}`);
      else if (kind === 'f64') dense = decodeFloat64s(r, present);
      else dense = decodeBitmap(r, present);
    }
    if (!valid) return { values: dense, valid: undefined };
    const values = allocValues(kind, n);
    const src = dense as Float64Array;
    const dst = values as Float64Array;
    let k = 0;
    for (let i = 0; i < n; i++) if (valid[i] === 1) dst[i] = src[k++] as number;
    return { values, valid };
  }
}
