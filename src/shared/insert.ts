/**
 * The one row-batch form every ingest path produces (line protocol, SQL INSERT, and later remote
 * write, OTLP, ...). The router's ingest pipeline reconciles it with the catalog, partitions it by
 * series and sends it to the shards.
 */

import type { MergeMode } from './codec/write-batch.js';
import type { EncodedKey } from './series-key-blob.js';
import type { ColumnIndex, DataType, SemanticType, Vector } from './types.js';

export interface InsertColumn {
  name: string;
  semantic: SemanticType;
  type: DataType;
  /** rowCount values; NULLs per Vector rules. TAG columns are `str` vectors. */
  vector: Vector;
  /** The index a column created or added by this insert gets (pipelines' `index:`). */
  index?: ColumnIndex | undefined;
}

/** Rows for one table, column by column. Exactly one column has semantic TIMESTAMP. */
export interface TableInsert {
  db: string;
  table: string;
  rowCount: number;
  columns: InsertColumn[];
  /**
   * Optional hint from parsers that already know their series: rows with the same number here
   * have identical tag values. Lets the pipeline hash and encode each series once; without it
   * the pipeline finds the series itself.
   */
  rowSeries?: Uint32Array | undefined;
  /**
   * Optional, with `rowSeries`: the series already resolved by the parser, so that no per-row tag
   * vector is needed (TAG columns may then carry empty vectors). `tuples[k][j]` is series k's value
   * of the j-th TAG column in name order (null = absent); `shards[k]` its shard. Tuples are only
   * read, and may be shared with a parser's cache.
   */
  series?:
    | {
        tuples: Array<Array<string | null>>;
        shards: Uint16Array;
        /**
         * Optional, parallel to `tuples`: long-lived objects of the parser (its series cache) on
         * which the pipeline keeps each series' storage key, so that a known series' key is
         * built once, not once per request.
         */
        keyHolders?: StorageKeyHolder[] | undefined;
      }
    | undefined;
  /**
   * The rows are deletes (SQL DELETE): each becomes a tombstone for its (series, timestamp).
   * Only the tag and time index columns are read.
   */
  deletes?: boolean | undefined;
}

/**
 * A series' storage key as last computed: valid while the series' table is `tableId` and the
 * insert's tag columns (in name order) have the ids `idsKey` (joined by commas).
 */
export interface StorageKeyHolder {
  storageKey?: { tableId: number; idsKey: string; key: string; encoded: EncodedKey | null } | undefined;
}

/** How the ingest pipeline may change the catalog for a request. */
export interface InsertOptions {
  /** Create a missing table from the insert's columns (tags → PRIMARY KEY). */
  autoCreateTable: boolean;
  /** Add columns the table lacks. */
  autoAddColumns: boolean;
  /** Merge mode and options of auto-created tables. */
  createMergeMode: MergeMode;
  createOptions?: Record<string, string> | undefined;
  /** The request said `auto_create_table=false` (a missing table then fails with the hint's message). */
  autoCreateHintDisabled?: boolean | undefined;
}
