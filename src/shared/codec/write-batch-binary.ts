/**
 * The write batch's wire form: one flat buffer of fixed headers and 8-byte aligned columns, so a
 * shard reads every column as a typed array over the payload itself, with no copy and no object
 * per value. The same bytes are the WAL record (write-batch.ts).
 *
 * Why not msgpack, as before: a remote-write request of the scraper's shape carries ten tables per
 * shard, each with five small arrays; msgpack wrote every array as a byte string at an unaligned
 * offset, so decoding copied each one into a buffer of its own (~250 array buffers a request, and
 * 65-85 µs to encode and again to decode a shard's payload, bench/RESULTS.md).
 *
 * Layout (little-endian; every section starts at a multiple of 8 from the payload's start):
 *
 *     batch header   u8 MAGIC, u8 VERSION, u16 table count, u32 payload length
 *     per table      u32 × 8: table id, row count, series count, series bytes, origin (i32),
 *                             merge mode | series form << 8 | blob flags << 16,
 *                             tag id count | field count << 16, 0
 *                    u32 tag ids; then per field u32 × 6: id, kind | has valid << 8, values,
 *                    value bytes, valid bytes, 0
 *                    columns: timestamps (i64 × rows), row series (u32 × rows), the series
 *                    (see SeriesForm), then per field its values (for strings: i32 byte lengths,
 *                    -1 for NULL, then the UTF-8) and its validity bytes
 *
 * MAGIC is 0xc1, the one byte msgpack never uses, so a WAL holding records of both forms reads
 * each by its first byte.
 */
import { type PhysicalKind, TYPED_VALUE_BYTES, typedValuesOver, type Vector } from '../types.js';
import type { MergeMode, TableRows, WriteBatch } from './table-rows.js';
import { Utf8Vector, utf8ColumnOf, utf8Of } from './utf8-column.js';

export const BINARY_BATCH_MAGIC = 0xc1;
export const BINARY_BATCH_VERSION = 1;
const BATCH_HEADER_BYTES = 8;
const TABLE_HEADER_WORDS = 8;
const FIELD_WORDS = 6;

const MERGE_MODES: readonly MergeMode[] = ['last_row', 'last_non_null', 'append'];
const KINDS: readonly PhysicalKind[] = ['f64', 'i64', 'u64', 'bool', 'str'];

/** How a table names its rows' series (write-batch.ts): tag tuples, key strings, or a key blob. */
enum SeriesForm {
  /** Tuples: i32 byte lengths of every tuple's values in turn (-1 NULL), then their UTF-8. */
  Tuples = 0,
  /** Key strings: i32 byte lengths, then their UTF-8. */
  Keys = 1,
  /** A key blob: u32 ends, then i32 ids and u8 refs when flagged, then its bytes. */
  Blob = 2,
}

const BLOB_ORIGIN = 1;
const BLOB_IDS = 2;
const BLOB_REFS = 4;

function align8(n: number): number {
  return (n + 7) & ~7;
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** A table measured for encoding: its strings already in UTF-8, and its size. */
interface TablePlan {
  rows: TableRows;
  form: SeriesForm;
  /** Tuples and keys: their UTF-8 and byte lengths (a blob brings its own). */
  seriesUtf8: { bytes: Uint8Array; lengths: Int32Array } | null;
  /** Per field: its UTF-8 column when it is a string column. */
  fieldUtf8: Array<{ bytes: Uint8Array; lengths: Int32Array } | null>;
  bytes: number;
}

function planTable(rows: TableRows): TablePlan {
  if (rows.timestamps.length !== rows.rowCount || rows.rowSeries.length !== rows.rowCount) {
    throw new Error(`table ${rows.tableId}: columns do not have the batch's ${rows.rowCount} rows`);
  }
  let form: SeriesForm;
  let seriesUtf8: TablePlan['seriesUtf8'] = null;
  if (rows.seriesKeyBlob !== undefined) form = SeriesForm.Blob;
  else if (rows.seriesKeys !== undefined) {
    form = SeriesForm.Keys;
    seriesUtf8 = utf8ColumnOf(rows.seriesKeys);
  } else {
    form = SeriesForm.Tuples;
    const width = rows.tagIds.length;
    if (rows.seriesTags.some((tuple) => tuple.length !== width)) {
      throw new Error(`table ${rows.tableId}: a series tuple does not have one value per tag column`);
    }
    seriesUtf8 = utf8ColumnOf(rows.seriesTags.flat());
  }
  let size = TABLE_HEADER_WORDS * 4 + rows.tagIds.length * 4 + rows.fields.length * FIELD_WORDS * 4;
  size = align8(size);
  size += rows.rowCount * 8 + align8(rows.rowCount * 4);
  const blob = rows.seriesKeyBlob;
  if (blob !== undefined) {
    const n = blob.ends.length;
    size += align8(n * 4) + (blob.ids ? align8(n * 4) : 0) + (blob.refs ? align8(n) : 0) + align8(blob.bytes.length);
  } else {
    const s = seriesUtf8 as NonNullable<typeof seriesUtf8>;
    size += align8(s.lengths.length * 4) + align8(s.bytes.length);
  }
  const fieldUtf8: TablePlan['fieldUtf8'] = [];
  for (const { vector } of rows.fields) {
    if (vector.kind === 'str') {
      const col = utf8Of(vector) ?? utf8ColumnOf(vector.values as Array<string | null>);
      fieldUtf8.push(col);
      size += align8(col.lengths.length * 4) + align8(col.bytes.length);
    } else {
      fieldUtf8.push(null);
      size += align8((vector.values as Float64Array).byteLength);
    }
    if (vector.valid !== undefined) size += align8(vector.valid.length);
  }
  return { rows, form, seriesUtf8, fieldUtf8, bytes: size };
}

/** The batch in its binary form, in a buffer of its own (it is transferred between threads). */
export function encodeBinaryBatch(batch: WriteBatch): Uint8Array {
  if (batch.tables.length > 0xffff) throw new Error(`too many tables in one write batch: ${batch.tables.length}`);
  const plans = batch.tables.map(planTable);
  let total = BATCH_HEADER_BYTES;
  for (const p of plans) total += p.bytes;
  const out = new Uint8Array(total);
  const words = new Uint32Array(out.buffer);
  out[0] = BINARY_BATCH_MAGIC;
  out[1] = BINARY_BATCH_VERSION;
  out[2] = plans.length & 0xff;
  out[3] = plans.length >>> 8;
  words[1] = total;
  let at = BATCH_HEADER_BYTES;
  for (const p of plans) at = writeTable(out, words, at, p);
  return out;
}

function writeTable(out: Uint8Array, words: Uint32Array, start: number, plan: TablePlan): number {
  const t = plan.rows;
  const blob = t.seriesKeyBlob;
  const mergeCode = MERGE_MODES.indexOf(t.mergeMode);
  if (mergeCode < 0) throw new Error(`table ${t.tableId}: unknown merge mode ${String(t.mergeMode)}`);
  if (t.tagIds.length > 0xffff || t.fields.length > 0xffff) throw new Error(`table ${t.tableId}: too many columns`);
  let flags = 0;
  if (blob?.origin !== undefined) flags |= BLOB_ORIGIN;
  if (blob?.ids !== undefined) flags |= BLOB_IDS;
  if (blob?.refs !== undefined) flags |= BLOB_REFS;
  const seriesCount = blob ? blob.ends.length : t.seriesKeys ? t.seriesKeys.length : t.seriesTags.length;
  const seriesBytes = blob ? blob.bytes.length : (plan.seriesUtf8 as NonNullable<TablePlan['seriesUtf8']>).bytes.length;
  let w = start >>> 2;
  words[w++] = t.tableId;
  words[w++] = t.rowCount;
  words[w++] = seriesCount;
  words[w++] = seriesBytes;
  words[w++] = (blob?.origin ?? 0) >>> 0;
  words[w++] = mergeCode | (plan.form << 8) | (flags << 16);
  words[w++] = t.tagIds.length | (t.fields.length << 16);
  words[w++] = 0;
  for (const id of t.tagIds) words[w++] = id;
  for (let f = 0; f < t.fields.length; f++) {
    const { id, vector } = t.fields[f] as TableRows['fields'][number];
    const utf8 = plan.fieldUtf8[f];
    words[w++] = id;
    words[w++] = KINDS.indexOf(vector.kind) | ((vector.valid !== undefined ? 1 : 0) << 8);
    words[w++] = utf8 ? utf8.lengths.length : (vector.values as Float64Array).length;
    words[w++] = utf8 ? utf8.bytes.length : (vector.values as Float64Array).byteLength;
    words[w++] = vector.valid?.length ?? 0;
    words[w++] = 0;
  }
  let at = align8(w * 4);
  const put = (a: ArrayBufferView): void => {
    out.set(bytesOf(a), at);
    at = align8(at + a.byteLength);
  };
  put(t.timestamps);
  put(t.rowSeries);
  if (blob) {
    put(blob.ends);
    if (blob.ids) put(blob.ids);
    if (blob.refs) put(blob.refs);
    put(blob.bytes);
  } else {
    const s = plan.seriesUtf8 as NonNullable<TablePlan['seriesUtf8']>;
    put(s.lengths);
    put(s.bytes);
  }
  for (let f = 0; f < t.fields.length; f++) {
    const vector = (t.fields[f] as TableRows['fields'][number]).vector;
    const utf8 = plan.fieldUtf8[f];
    if (utf8) {
      put(utf8.lengths);
      put(utf8.bytes);
    } else put(vector.values as ArrayBufferView);
    if (vector.valid !== undefined) put(vector.valid);
  }
  return at;
}

/** Reads a binary batch. Its columns are views of `bytes` (of a copy when `bytes` is not 8-aligned). */
export function decodeBinaryBatch(payload: Uint8Array): WriteBatch {
  // A WAL record read back sits anywhere in its file's buffer: one copy aligns every column.
  let bytes = payload;
  if (payload.byteOffset % 8 !== 0) {
    bytes = new Uint8Array(payload.length);
    bytes.set(payload);
  }
  if (bytes.length < BATCH_HEADER_BYTES || bytes[0] !== BINARY_BATCH_MAGIC) throw new Error('not a binary write batch');
  if (bytes[1] !== BINARY_BATCH_VERSION) throw new Error(`write batch version ${bytes[1]} is not known`);
  const reader = new Reader(bytes);
  const tableCount = (bytes[2] as number) | ((bytes[3] as number) << 8);
  const length = reader.word(1);
  if (length !== bytes.length) throw new Error(`write batch of ${bytes.length} bytes says it has ${length}`);
  reader.at = BATCH_HEADER_BYTES;
  const tables: TableRows[] = [];
  for (let i = 0; i < tableCount; i++) tables.push(readTable(reader));
  if (reader.at !== bytes.length) throw new Error('bytes left after the last table of a write batch');
  return { tables };
}

/** Bounds-checked views of an aligned payload. */
class Reader {
  at = 0;
  private readonly base: number;
  private readonly words: Uint32Array;

  constructor(readonly bytes: Uint8Array) {
    this.base = bytes.byteOffset;
    this.words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  }

  word(index: number): number {
    if (index >= this.words.length) throw new Error('write batch header runs past its end');
    return this.words[index] as number;
  }

  /** The next `byteLength` bytes, the cursor then at the next multiple of 8. */
  private take(byteLength: number): number {
    const start = this.at;
    if (byteLength < 0 || start + byteLength > this.bytes.length)
      throw new Error('write batch column runs past its end');
    this.at = align8(start + byteLength);
    return this.base + start;
  }

  u8(n: number): Uint8Array {
    return new Uint8Array(this.bytes.buffer, this.take(n), n);
  }

  u32(n: number): Uint32Array {
    return new Uint32Array(this.bytes.buffer, this.take(n * 4), n);
  }

  i32(n: number): Int32Array {
    return new Int32Array(this.bytes.buffer, this.take(n * 4), n);
  }

  i64(n: number): BigInt64Array {
    return new BigInt64Array(this.bytes.buffer, this.take(n * 8), n);
  }

  /** Values of `kind` (not str), `n` of them in `byteLength` bytes. */
  values(kind: Exclude<PhysicalKind, 'str'>, n: number, byteLength: number): Vector['values'] {
    if (n * TYPED_VALUE_BYTES[kind] !== byteLength) {
      throw new Error(`write batch ${kind} column of ${n} values in ${byteLength} bytes`);
    }
    return typedValuesOver(kind, this.bytes.buffer, this.take(byteLength), n);
  }
}

function readTable(r: Reader): TableRows {
  let w = r.at >>> 2;
  const tableId = r.word(w++);
  const rowCount = r.word(w++);
  const seriesCount = r.word(w++);
  const seriesBytes = r.word(w++);
  const origin = r.word(w++) | 0;
  const modes = r.word(w++);
  const counts = r.word(w++);
  w++;
  const mergeMode = MERGE_MODES[modes & 0xff];
  if (mergeMode === undefined) throw new Error(`table ${tableId}: unknown merge mode ${modes & 0xff}`);
  const form = (modes >>> 8) & 0xff;
  const flags = (modes >>> 16) & 0xff;
  const tagIdCount = counts & 0xffff;
  const fieldCount = counts >>> 16;
  const tagIds: number[] = new Array(tagIdCount);
  for (let i = 0; i < tagIdCount; i++) tagIds[i] = r.word(w++);
  const fieldHeads: Array<{
    id: number;
    kind: PhysicalKind;
    valid: boolean;
    n: number;
    bytes: number;
    validBytes: number;
  }> = [];
  for (let f = 0; f < fieldCount; f++) {
    const id = r.word(w);
    const kindWord = r.word(w + 1);
    const kind = KINDS[kindWord & 0xff];
    if (kind === undefined) throw new Error(`table ${tableId}: unknown column kind ${kindWord & 0xff}`);
    fieldHeads.push({
      id,
      kind,
      valid: kindWord >>> 8 !== 0,
      n: r.word(w + 2),
      bytes: r.word(w + 3),
      validBytes: r.word(w + 4),
    });
    w += FIELD_WORDS;
  }
  r.at = align8(w * 4);
  const timestamps = r.i64(rowCount);
  const rowSeries = r.u32(rowCount);
  const rows: TableRows = {
    tableId,
    mergeMode,
    rowCount,
    timestamps,
    tagIds,
    seriesTags: [],
    rowSeries,
    fields: [],
  };
  if (form === SeriesForm.Blob) {
    const ends = r.u32(seriesCount);
    const ids = flags & BLOB_IDS ? r.i32(seriesCount) : undefined;
    const refs = flags & BLOB_REFS ? r.u8(seriesCount) : undefined;
    const bytes = r.u8(seriesBytes);
    rows.seriesKeyBlob = { bytes, ends, origin: flags & BLOB_ORIGIN ? origin : undefined, ids, refs };
  } else if (form === SeriesForm.Keys || form === SeriesForm.Tuples) {
    const values = seriesCount * (form === SeriesForm.Tuples ? tagIdCount : 1);
    const lengths = r.i32(values);
    const strings = new Utf8Vector({ bytes: r.u8(seriesBytes), lengths }, undefined).values;
    if (form === SeriesForm.Keys) {
      if (strings.includes(null)) throw new Error(`table ${tableId}: a series key is NULL`);
      rows.seriesKeys = strings as string[];
    } else {
      for (let s = 0; s < seriesCount; s++) rows.seriesTags.push(strings.slice(s * tagIdCount, (s + 1) * tagIdCount));
    }
  } else throw new Error(`table ${tableId}: unknown series form ${form}`);
  for (const h of fieldHeads) {
    let vector: Vector;
    if (h.kind === 'str') {
      const lengths = r.i32(h.n);
      vector = new Utf8Vector({ bytes: r.u8(h.bytes), lengths }, undefined);
    } else vector = { kind: h.kind, values: r.values(h.kind, h.n, h.bytes) } as Vector;
    if (h.valid) vector.valid = r.u8(h.validBytes);
    rows.fields.push({ id: h.id, vector });
  }
  return rows;
}
