/**
 * A memtable: the rows of every table written since the last freeze, in memory. The active
 * memtable takes writes; a frozen one is immutable, still readable, and waits to be flushed into
 * segments. `walFileLast` ties a frozen memtable to the WAL: every record of its rows lives in
 * WAL files numbered up to it, and none of a newer memtable's do. Rows of payloads that skipped
 * the WAL (tables with `skip_wal`) have no record anywhere; `unlogged` says the memtable holds
 * some, so a graceful close flushes it rather than leave them to a replay that cannot find them.
 */
import type { TableRows, WriteBatch } from '../../shared/codec/write-batch.js';
import type { TagFilter } from '../../shared/tag-filter.js';
import { type RowOrderCounters, TableMemtable } from './table-memtable.js';

export class Memtable {
  readonly tables = new Map<number, TableMemtable>();
  /** Estimated heap bytes of all tables. */
  bytes = 0;
  rows = 0;
  /** Highest WAL file number holding rows of this memtable; set when it is frozen. */
  walFileLast = 0;
  /** Some rows were applied without a WAL record (see ShardStore.write). */
  unlogged = false;

  /**
   * `tagFilter`: the shard's (shared/tag-filter.ts), given to each table, which adds its series;
   * `counters`: the shard's, where each table counts rows applied out of time order.
   */
  constructor(
    private readonly tagFilter: TagFilter | null = null,
    private readonly counters: RowOrderCounters | null = null,
  ) {}

  /**
   * Applies a validated batch; `admit` gives each table's rows as they are to be kept (null: none,
   * e.g. the table is dropped). Returns the rows applied.
   */
  apply(batch: WriteBatch, admit: (rows: TableRows) => TableRows | null): number {
    let applied = 0;
    for (const written of batch.tables) {
      if (written.rowCount === 0) continue;
      const rows = admit(written);
      if (rows === null) continue;
      let table = this.tables.get(rows.tableId);
      // A new table's initial columns count too.
      let before = 0;
      if (!table) {
        table = new TableMemtable(rows.tableId, rows.mergeMode, this.tagFilter, this.counters);
        this.tables.set(rows.tableId, table);
      } else {
        before = table.bytes;
      }
      applied += table.append(rows);
      this.bytes += table.bytes - before;
    }
    this.rows += applied;
    return applied;
  }

  /** Forgets a table's rows. */
  dropTable(tableId: number): void {
    const table = this.tables.get(tableId);
    if (!table) return;
    this.tables.delete(tableId);
    this.bytes -= table.bytes;
    this.rows -= table.rows;
  }

  get empty(): boolean {
    return this.rows === 0;
  }
}
