/**
 * Encodes the rows of a RowBuffer into one segment block and decodes it back, column by column.
 *
 * Raw block body: `(1 + C) × u32` chunk byte lengths, then the timestamp chunk, then one chunk per
 * field column in the segment's column order. Field chunks hold only the values of present rows;
 * a validity bitmap says which rows those are. The body is stored deflate-raw compressed when that
 * saves at least COMPRESSION_MIN_SAVING. The CRC32 covers the stored bytes.
 */
import { crc32, deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { allocValues, type PhysicalKind, type Vector } from '../../shared/types.js';
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
import { keepTimestamps, type PageEntry } from './page-cache.js';

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

/** A block's uncompressed body and what the footer says of it, before choosing how to store it. */
export interface RawBlock {
  raw: Buffer;
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
  const directory = w.pos;
  for (let c = 0; c <= specs.length; c++) w.u32(0);
  const lengths: number[] = [];

  let start = w.pos;
  encodeInt64s(rows.ts, n, 2, w);
  lengths.push(w.pos - start);
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
    start = w.pos;
    const spec = specs[c] as FieldSpec;
    const field = encodeField(spec.kind, rows.values[c] as Vector['values'], rows.valid[c] as Uint8Array, n, w);
    if ('distinct' in field) {
      columns.push(field.stats);
      distinct.push(field.distinct);
    } else {
      columns.push(field);
      distinct.push(undefined);
    }
    lengths.push(w.pos - start);
  }
  const raw = w.bytesView();
  for (let c = 0; c < lengths.length; c++) raw.writeUInt32LE(lengths[c] as number, directory + c * 4);
  return { raw, meta: { rawLength: raw.length, rowCount: n, minTs, maxTs, columns }, distinct };
}

/** The block as stored: deflated when that saves enough (`compressed`: deflate-raw of the body). */
export function storedBlock(block: RawBlock, compressed: Uint8Array): EncodedBlock {
  let stored: Uint8Array = block.raw;
  let codec: number = BlockCodec.None;
  if (compressed.length <= block.raw.length * (1 - COMPRESSION_MIN_SAVING)) {
    stored = compressed;
    codec = BlockCodec.DeflateRaw;
  }
  return { stored, meta: { ...block.meta, storedLength: stored.length, codec, crc: crc32(stored) } };
}

/** Blocks are deflated fast rather than small: level 1. */
const DEFLATE_OPTIONS = { level: 1 };

/** Deflate-raw as blocks use it, on libuv's pool: the shard's thread goes on meanwhile. */
export function deflateBlock(raw: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    deflateRaw(raw, DEFLATE_OPTIONS, (err, out) => (err ? reject(err) : resolve(out))),
  );
}

/** Encodes rows `[0, rows.length)` with the given field specs, compressed on this thread. */
export function encodeBlock(rows: BlockRows, specs: readonly FieldSpec[]): EncodedBlock {
  const block = encodeBlockBody(rows, specs);
  return storedBlock(block, deflateRawSync(block.raw, DEFLATE_OPTIONS));
}

/**
 * A block read back: the raw body plus lazily decoded columns. Throws FormatError on malformed
 * bytes; the caller names the file and block.
 */
export class DecodedBlock {
  readonly ts: BigInt64Array;
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];
  private readonly cache = new Map<number, ColumnData | null>();

  private readonly body: Buffer;

  constructor(
    readonly index: number,
    readonly meta: BlockMeta,
    page: PageEntry,
    private readonly specs: readonly FieldSpec[],
  ) {
    const body = page.body;
    this.body = body;
    const r = new ByteReader(body);
    let offset = (specs.length + 1) * 4;
    for (let c = 0; c <= specs.length; c++) {
      const length = r.u32();
      this.offsets.push(offset);
      this.lengths.push(length);
      offset += length;
    }
    if (offset !== body.length) throw new FormatError(`chunk lengths add up to ${offset}, body is ${body.length}`);
    if (page.ts !== null) {
      this.ts = page.ts;
      return;
    }
    this.ts = new BigInt64Array(meta.rowCount);
    decodeInt64s(this.reader(0), meta.rowCount, this.ts);
    keepTimestamps(page, this.ts);
  }

  private reader(chunk: number): ByteReader {
    const offset = this.offsets[chunk] as number;
    return new ByteReader(this.body, offset, offset + (this.lengths[chunk] as number));
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

/** Checks the CRC and decompresses a stored block; throws FormatError on mismatch. */
export function openBlockBody(stored: Buffer, meta: BlockMeta): Buffer {
  if (crc32(stored) !== meta.crc) throw new FormatError('checksum mismatch');
  if (meta.codec === BlockCodec.None) return stored;
  if (meta.codec !== BlockCodec.DeflateRaw) throw new FormatError(`unknown block codec ${meta.codec}`);
  let body: Buffer;
  try {
    body = inflateRawSync(stored, { maxOutputLength: meta.rawLength });
  } catch (err) {
    throw new FormatError(`cannot inflate: ${(err as Error).message}`);
  }
  if (body.length !== meta.rawLength)
    throw new FormatError(`inflated to ${body.length} bytes, expected ${meta.rawLength}`);
  return body;
}
