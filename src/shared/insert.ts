/**
 * The one row-batch form every ingest path produces (line protocol, SQL INSERT, and later remote
 * write, OTLP, ...). The router's ingest pipeline reconciles it with the catalog, partitions it by
 * series and sends it to the shards.
 */

import type { MergeMode } from './codec/write-batch.js';
import type { DataType, SemanticType, Vector } from './types.js';

export interface InsertColumn {
  name: string;
  semantic: SemanticType;
  type: DataType;
  /** rowCount values; NULLs per Vector rules. TAG columns are `str` vectors. */
  vector: Vector;
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
   * The rows are deletes (SQL DELETE): each becomes a tombstone for its (series, timestamp).
   * Only the tag and time index columns are read.
   */
  deletes?: boolean | undefined;
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
}
