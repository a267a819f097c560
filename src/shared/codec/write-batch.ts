/**
 * Encoding of the rows one ingest request sends to one shard. The router encodes once; the shard
 * appends the very same bytes to its WAL and decodes them into its memtable, so a write is never
 * re-encoded on its way to disk.
 *
 * msgpackr cannot pack 64-bit typed arrays, so every typed array travels as a byte view tagged with
 * its kind and is copied back into an aligned array on decode.
 */
import { Packr } from 'msgpackr';
import type { SeriesKeyBlob } from '../series-key-blob.js';
import type { PhysicalKind, Vector } from '../types.js';
import { Utf8Vector, utf8ColumnOf, utf8Of } from './utf8-column.js';

/** How duplicates (same series and timestamp) of a table are merged when read, flushed or compacted. */
export type MergeMode = 'last_row' | 'last_non_null' | 'append';

/**
 * The field column that marks a row as a delete (tombstone): kind `bool`, true on tombstones.
 * Catalog column ids start at 1, so id 0 never names a user column. It travels, is logged and is
 * stored like any other field, which is what lets a delete shadow older rows in the WAL, memtables
 * and segments alike; the merge interprets it (see src/shard/merge/series-merge.ts).
 */
export const DELETE_MARK_COLUMN_ID = 0;

/**
 * Rows of one table bound for one shard. Columns are keyed by catalog column id.
 *
 * Tags travel once per series, not once per row: ingest batches repeat each series many times
 * (a TSBS batch of 5,000 rows holds 1,000 series), so this is smaller to encode and lets the
 * shard resolve each series once per batch instead of once per row.
 */
export interface TableRows {
  tableId: number;
  mergeMode: MergeMode;
  rowCount: number;
  /** The time index, in the table's unit. */
  timestamps: BigInt64Array;
  /** Catalog ids of the tag columns, in the order of each `seriesTags` entry. */
  tagIds: number[];
  /** Distinct tag tuples of this batch: `seriesTags[s][t]` is the value of `tagIds[t]` (null = absent). */
  seriesTags: Array<Array<string | null>>;
  /** `rowSeries[r]`: the index into `seriesTags` (or `seriesKeys`) of row r's series. */
  rowSeries: Uint32Array;
  /**
   * Instead of tuples, the series' storage keys (`seriesKeyOfTuple` in src/shared/series-key.ts), when
   * the router has them cached: one string per series to encode and none to build in the shard.
   * When present, `seriesTags` is empty.
   */
  seriesKeys?: string[] | undefined;
  /**
   * Instead of tuples or `seriesKeys`, the same keys as one blob with their key ids (see
   * src/shared/series-key-blob.ts); when present, `seriesTags` is empty.
   */
  seriesKeyBlob?: SeriesKeyBlob | undefined;
  /**
   * Not on the wire: the receiving shard's strings for the blob's keys that have ids (those
   * sent by reference have no bytes to make one from); see src/shard/key-refs.ts.
   */
  resolvedKeys?: Array<string | undefined> | undefined;
  /**
   * Not on the wire: set when the shard left rows out after decoding (past the ttl); series whose
   * entry is 0 have no rows left and are not added to the memtable.
   */
  seriesUsed?: Uint8Array | undefined;
  /** Field columns. */
  fields: Array<{ id: number; vector: Vector }>;
}

/**
 * The series form of per-row tag columns: one tuple per distinct tag combination and each row's
 * index into them. For callers that hold tags row by row (SQL INSERT, tests).
 */
export function seriesFormOf(
  tags: Array<{ id: number; values: Array<string | null> }>,
  rowCount: number,
): Pick<TableRows, 'tagIds' | 'seriesTags' | 'rowSeries'> {
  const tagIds = tags.map((t) => t.id);
  const rowSeries = new Uint32Array(rowCount);
  // No tags (log tables, mostly): every row is the one series, without a key per row.
  if (tags.length === 0) return { tagIds, seriesTags: rowCount > 0 ? [[]] : [], rowSeries };
  const seriesTags: Array<Array<string | null>> = [];
  const index = new Map<string, number>();
  for (let r = 0; r < rowCount; r++) {
    const tuple = tags.map((t) => t.values[r] ?? null);
    // JSON keeps null distinct from the string "null" and needs no escaping rules of our own.
    const key = JSON.stringify(tuple);
    let s = index.get(key);
    if (s === undefined) {
      s = seriesTags.length;
      seriesTags.push(tuple);
      index.set(key, s);
    }
    rowSeries[r] = s;
  }
  return { tagIds, seriesTags, rowSeries };
}

/** How many series `rows` names, in whichever form it carries them (blob, keys or tag tuples). */
export function seriesCountOf(rows: TableRows): number {
  return rows.seriesKeyBlob?.ends.length ?? rows.seriesKeys?.length ?? rows.seriesTags.length;
}

export interface WriteBatch {
  tables: TableRows[];
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * A column on the wire. Strings go as UTF-8 bytes `u` with each value's byte length in `e` (i32 LE,
 * -1 for NULL; see utf8-column.ts), which the shard's memtable copies as they are. Older WAL records
 * still read: a joined string `j` with UTF-16 lengths `l`, or an array of strings `s`.
 */
interface WireVector {
  k: PhysicalKind;
  b?: Uint8Array;
  s?: Array<string | null>;
  j?: string;
  l?: Uint8Array;
  u?: Uint8Array;
  e?: Uint8Array;
  v?: Uint8Array;
}

function utf8Wire(v: Vector): { u: Uint8Array; e: Uint8Array } {
  const col = utf8Of(v) ?? utf8ColumnOf(v.values as Array<string | null>);
  return { u: col.bytes, e: bytesOf(col.lengths) };
}

/** The values of an older record's joined string column (`j` with UTF-16 lengths `l`). */
function splitStrings(joined: string, lengthBytes: Uint8Array): Array<string | null> {
  const lengths = new Int32Array(aligned(lengthBytes));
  const out = new Array<string | null>(lengths.length);
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    const n = lengths[i] as number;
    if (n < 0) {
      out[i] = null;
      continue;
    }
    if (at + n > joined.length) throw new Error('string column shorter than its lengths');
    out[i] = joined.substring(at, at + n);
    at += n;
  }
  if (at !== joined.length) throw new Error('string column longer than its lengths');
  return out;
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** Copies into a fresh buffer so the typed array is aligned whatever offset msgpackr gave us. */
function aligned(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

function vectorToWire(v: Vector): WireVector {
  const w: WireVector = { k: v.kind };
  if (v.kind === 'str') Object.assign(w, utf8Wire(v));
  else w.b = bytesOf(v.values as ArrayBufferView);
  if (v.valid) w.v = v.valid;
  return w;
}

function vectorFromWire(w: WireVector): Vector {
  if (w.k === 'str' && w.u !== undefined && w.e !== undefined) {
    return new Utf8Vector({ bytes: w.u, lengths: new Int32Array(aligned(w.e)) }, w.v ? new Uint8Array(w.v) : undefined);
  }
  let values: Vector['values'];
  switch (w.k) {
    case 'str':
      values = w.j !== undefined && w.l !== undefined ? splitStrings(w.j, w.l) : (w.s ?? []);
      break;
    case 'f64':
      values = new Float64Array(aligned(w.b ?? new Uint8Array()));
      break;
    case 'i64':
      values = new BigInt64Array(aligned(w.b ?? new Uint8Array()));
      break;
    case 'u64':
      values = new BigUint64Array(aligned(w.b ?? new Uint8Array()));
      break;
    case 'bool':
      values = new Uint8Array(w.b ?? new Uint8Array());
      break;
  }
  return { kind: w.k, values, valid: w.v ? new Uint8Array(w.v) : undefined };
}

export function encodeWriteBatch(batch: WriteBatch): Uint8Array {
  return packr.pack({
    t: batch.tables.map((t) => ({
      i: t.tableId,
      m: t.mergeMode,
      n: t.rowCount,
      ts: bytesOf(t.timestamps),
      g: t.tagIds,
      st: t.seriesTags,
      rs: bytesOf(t.rowSeries),
      ...(t.seriesKeys ? { sk: t.seriesKeys } : {}),
      ...(t.seriesKeyBlob
        ? {
            kb: t.seriesKeyBlob.bytes,
            ke: bytesOf(t.seriesKeyBlob.ends),
            ...(t.seriesKeyBlob.ids ? { ko: t.seriesKeyBlob.origin, ki: bytesOf(t.seriesKeyBlob.ids) } : {}),
            ...(t.seriesKeyBlob.refs ? { kr: t.seriesKeyBlob.refs } : {}),
          }
        : {}),
      f: t.fields.map((f) => [f.id, vectorToWire(f.vector)]),
    })),
  });
}

/** Series keys a WAL file defines by id ahead of the records that reference them. */
export interface KeyDefinitions {
  origins: number[];
  ids: number[];
  keys: string[];
}

export function encodeKeyDefinitions(defs: KeyDefinitions): Uint8Array {
  const encoded = packr.pack({ d: { o: defs.origins, i: defs.ids, k: defs.keys } });
  const out = new Uint8Array(encoded.byteLength);
  out.set(encoded);
  return out;
}

/** A WAL record's payload: a write batch, or key definitions (src/shard/key-refs.ts). */
export function decodeWalRecord(bytes: Uint8Array): { batch: WriteBatch } | { definitions: KeyDefinitions } {
  const raw = packr.unpack(bytes) as { d?: { o: unknown; i: unknown; k: unknown } };
  if (raw !== null && typeof raw === 'object' && raw.d !== undefined) {
    return { definitions: { origins: raw.d.o as number[], ids: raw.d.i as number[], keys: raw.d.k as string[] } };
  }
  return { batch: batchOfRaw(raw) };
}

export function decodeWriteBatch(bytes: Uint8Array): WriteBatch {
  return batchOfRaw(packr.unpack(bytes));
}

function batchOfRaw(unpacked: unknown): WriteBatch {
  const raw = unpacked as {
    t: Array<{
      i: number;
      m: MergeMode;
      n: number;
      ts: Uint8Array;
      g: number[];
      st: Array<Array<string | null>>;
      rs: Uint8Array;
      sk?: string[];
      kb?: Uint8Array;
      ke?: Uint8Array;
      ko?: number;
      ki?: Uint8Array;
      kr?: Uint8Array;
      f: Array<[number, WireVector]>;
    }>;
  };
  return {
    tables: raw.t.map((t) => ({
      tableId: t.i,
      mergeMode: t.m,
      rowCount: t.n,
      timestamps: new BigInt64Array(aligned(t.ts)),
      tagIds: t.g,
      seriesTags: t.st,
      rowSeries: new Uint32Array(aligned(t.rs)),
      seriesKeys: t.sk,
      seriesKeyBlob:
        t.kb && t.ke
          ? {
              bytes: t.kb,
              ends: new Uint32Array(aligned(t.ke)),
              origin: t.ko,
              ids: t.ki ? new Int32Array(aligned(t.ki)) : undefined,
              refs: t.kr,
            }
          : undefined,
      fields: t.f.map(([id, w]) => ({ id, vector: vectorFromWire(w) })),
    })),
  };
}
