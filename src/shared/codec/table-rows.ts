/**
 * What one ingest request writes to one shard, as the shard receives it: tables of rows, their
 * series and field columns. Encoded for the wire and the WAL by write-batch.ts.
 */
import type { SeriesKeyBlob } from '../series-key-blob.js';
import type { Vector } from '../types.js';

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
 * A series key as the receiving shard knows it by id (src/shard/key-refs.ts), and where the
 * memtable that last wrote it keeps its series: that memtable's serial number and the series'
 * index in it (numbers, so a flushed memtable's series are not kept alive from here).
 */
export interface ResolvedKey {
  readonly key: string;
  seriesIn: number;
  seriesIndex: number;
}

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
  resolvedKeys?: Array<ResolvedKey | undefined> | undefined;
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
