/**
 * What the SQL engine needs from the server around it. The router implements this; the engine
 * never touches sockets, threads or files itself, which keeps it testable and lets the same plan
 * fragments run inside shards.
 */

import type { TableInsert } from '../../../shared/insert.js';
import type { ColumnIndex, DatabaseSchema, DataType, TableSchema } from '../../../shared/types.js';
import type { PromqlLimits } from '../../promql/limits.js';
import type { SampleSource } from '../../promql/types.js';

/** A column of a table to create. */
export interface NewColumn {
  name: string;
  type: DataType;
  semantic: 'TAG' | 'FIELD' | 'TIMESTAMP';
  nullable: boolean;
  defaultSql?: string | undefined;
  /** See `ColumnSchema.priorTypes`. */
  priorTypes?: DataType[] | undefined;
  /** See `ColumnSchema.index`. */
  index?: ColumnIndex | undefined;
}

/** A table to create, as checked by the SQL layer (one time index, keys exist). */
export interface NewTable {
  db: string;
  name: string;
  columns: NewColumn[];
  timeIndex: string;
  primaryKey: string[];
  options: Record<string, string>;
}

/**
 * A table's new shape after ALTER TABLE, checked by the SQL layer. Existing columns keep their
 * `id` (storage keys columns by id); added columns come without one and get fresh ids.
 */
export interface AlteredTable {
  name: string;
  columns: Array<NewColumn & { id?: number | undefined }>;
  primaryKey: string[];
  options: Record<string, string>;
}

/** A session's state across the statements of one request. */
export interface SqlSession {
  /** Current database (`USE` changes it for the rest of the request). */
  db: string;
  /** IANA zone or `+08:00` offset from `x-greptime-timezone`; UTC when absent. */
  timezone: string;
  /** The authenticated user, which `session_user()` returns; GreptimeDB's default user when absent. */
  user?: string | undefined;
  /** Aborted when the request times out or the client goes away. */
  signal?: AbortSignal | undefined;
  /** Per-query memory bound (`query.memory_limit`); unset or 0 = unbounded. */
  memoryLimitBytes?: number | undefined;
  /** Most rows a RANGE/ALIGN query may produce (`query.range_max_rows`); unset = the default, 0 = unbounded. */
  rangeMaxRows?: number | undefined;
  /** `TQL`'s PromQL limits (`query.max_points_per_series`, ...); unset = the defaults. */
  promqlLimits?: PromqlLimits | undefined;
}

/** Catalog, ingest and scatter, provided by the router (and by test environments). */
export interface SqlEnv {
  getDatabase(name: string): DatabaseSchema | undefined;
  listDatabases(): DatabaseSchema[];
  getTable(db: string, name: string): TableSchema | undefined;
  listTables(db: string): TableSchema[];
  /** Returns false (and changes nothing) when it exists and ifNotExists is set; throws 4011 otherwise. */
  createDatabase(name: string, options: Record<string, string>, ifNotExists: boolean): Promise<boolean>;
  /** Replaces a database's options (ALTER DATABASE); throws 4004 when it does not exist. */
  alterDatabase(name: string, options: Record<string, string>): Promise<void>;
  /** Drops the database and its tables' data; throws 4004 unless ifExists. */
  dropDatabase(name: string, ifExists: boolean): Promise<boolean>;
  /** Returns false when it exists and ifNotExists is set; throws 4000 otherwise. */
  createTable(table: NewTable, ifNotExists: boolean): Promise<boolean>;
  /** Drops the table and its data; throws 4001 unless ifExists. */
  dropTable(db: string, name: string, ifExists: boolean): Promise<boolean>;
  /**
   * Replaces a table's schema (ALTER TABLE) atomically and returns the stored result. Throws 4001
   * when the table is gone and 4000 when a rename targets an existing table.
   */
  alterTable(db: string, name: string, altered: AlteredTable): Promise<TableSchema>;
  /**
   * Empties a table (TRUNCATE): the table gets a fresh table id, so no stored row belongs to it
   * any more, and every shard drops the old id's data. Throws 4001 when the table is missing.
   */
  truncateTable(db: string, name: string): Promise<void>;
  /** `ADMIN flush_table` / `compact_table`: flushes (or compacts) the shards' storage. */
  maintainTable(db: string, name: string, action: 'flush' | 'compact'): Promise<void>;
  /** Writes rows durably through the shards; the table must exist and the types must match. */
  insert(rows: TableInsert): Promise<number>;
  /**
   * Refuses a statement the session's user may not run (403, code 7006), as GreptimeDB checks
   * each statement: reading ones (queries, SHOW, DESCRIBE, EXPLAIN, TQL) need read permission,
   * the others write. Absent when there is no user provider.
   */
  authorize?(access: 'read' | 'write'): void;
  /** Live segment bytes per table id over all shards (`information_schema.tables.data_length`). */
  tableSegmentBytes?(): Promise<ReadonlyMap<number, number>>;
  /** Runs a plan fragment on every shard and returns their results in shard order. */
  /** `plan` is the planner's ShardPlan (plan.ts, not imported here: plan.ts reaches this module). */
  scatter(plan: unknown, signal?: AbortSignal): Promise<unknown[]>;
  /**
   * Where `TQL EVAL` reads series from in database `db` (matchers on the database labels may pick
   * another). Absent in environments without PromQL: TQL then fails with code 1001.
   */
  promqlSource?(db: string): SampleSource;
}
