/**
 * What a pipeline run produces: rows grouped by target table, with the columns they need. The
 * ingest handler creates or alters tables from `columns` and writes `rows`; the dry-run endpoint
 * prints them. `TableSet` assembles this while a run goes, one record at a time, so that a record
 * that fails half-way (a type conflict on its third column) leaves no trace.
 */
import type { DataType } from '../shared/types.js';
import { RecordError } from './processor.js';
import type { PipelineRecord, TimeUnit } from './value.js';

export type Semantic = 'TAG' | 'FIELD' | 'TIMESTAMP';
/** The column type of timestamps of each unit. */
export const TIMESTAMP_TYPES: Record<TimeUnit, DataType> = {
  s: 'TimestampSecond',
  ms: 'TimestampMillisecond',
  us: 'TimestampMicrosecond',
  ns: 'TimestampNanosecond',
};
export interface ColumnIndex {
  kind: 'inverted' | 'fulltext' | 'skipping';
  options: Record<string, string>;
}
export interface OutputColumn {
  name: string;
  type: DataType;
  semantic: Semantic;
  index?: ColumnIndex;
}
/** A cell: null, boolean, number (ints that fit, floats), bigint (Int64/UInt64 beyond 2^53, and every timestamp as a count of the column's unit), string (String; Json as canonical JSON text). */
export type Cell = null | boolean | number | bigint | string;
export interface OutputTable {
  /** '' for the request's table; else the suffix appended to its name (dispatcher / table_suffix / greptime_table_suffix). */
  tableSuffix: string;
  /** Columns in the order the pipeline produced them (time index per the reference's order rules); grows as later records bring new keys. */
  columns: OutputColumn[];
  /** One array per row, cells aligned with `columns` (shorter rows: missing trailing cells are null). */
  rows: Cell[][];
  /** Per-row table options from greptime_* record keys (ttl, append_mode, ...), if any. */
  options?: Record<string, string>;
}
export interface RecordFailure {
  index: number;
  message: string;
}
export interface RunResult {
  tables: OutputTable[];
  failures: RecordFailure[];
}

/** The stage after processors that turns a record into one row: fixed transform, v2, auto or identity. */
export interface RowMaker {
  /** Columns fixed by a transform section (for DDL), or null when they depend on the data. */
  readonly declared: OutputColumn[] | null;
  /**
   * The row for `record` (which it may consume), as columns and cells of equal length; a fresh
   * `cells` array each time. Throws RecordError.
   */
  make(record: PipelineRecord, nowNanos: () => bigint): { columns: OutputColumn[]; cells: Cell[] };
}

/** Rows of one table that share the same per-row options. */
interface Group {
  options: Record<string, string> | undefined;
  rows: Cell[][];
}

/** One target table: its columns so far and its rows, grouped by per-row options. */
class TableBuilder {
  readonly columns: OutputColumn[] = [];
  private readonly positionOf = new Map<string, number>();
  readonly groups = new Map<string, Group>();
  // Most rows of a run carry the very same column list (fixed transforms); map it once.
  private cachedLayout: OutputColumn[] | null = null;
  private cachedPositions: number[] = [];
  private cachedInPlace = false;

  constructor(readonly suffix: string) {}

  /** Drops the columns past the first `n` (added by a record that then failed). */
  truncate(n: number): void {
    for (const c of this.columns.splice(n)) this.positionOf.delete(c.name);
    this.cachedLayout = null;
  }

  /** Adds a row; returns its group. May add columns even when it throws. */
  add(columns: OutputColumn[], cells: Cell[], optionsKey: string, options: Record<string, string> | undefined): Group {
    const positions = this.layout(columns);
    let row: Cell[];
    if (positions === null) {
      row = cells;
    } else {
      row = new Array<Cell>(this.columns.length).fill(null);
      for (let i = 0; i < positions.length; i++) row[positions[i] as number] = cells[i] ?? null;
    }
    let group = this.groups.get(optionsKey);
    if (group === undefined) {
      group = { options, rows: [] };
      this.groups.set(optionsKey, group);
    }
    group.rows.push(row);
    return group;
  }

  /** Where each of `columns` sits in this table (null: exactly in place), adding new ones. */
  private layout(columns: OutputColumn[]): number[] | null {
    if (columns === this.cachedLayout) {
      return this.cachedInPlace && columns.length === this.columns.length ? null : this.cachedPositions;
    }
    const positions: number[] = [];
    let inPlace = true;
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i] as OutputColumn;
      let at = this.positionOf.get(c.name);
      if (at === undefined) {
        at = this.columns.length;
        this.columns.push(c);
        this.positionOf.set(c.name, at);
      } else {
        const have = (this.columns[at] as OutputColumn).type;
        if (have !== c.type) {
          throw new RecordError(
            `Column datatype mismatch. For column: ${c.name}, expected datatype: ${have}, actual datatype: ${c.type}`,
          );
        }
      }
      if (at !== i) inPlace = false;
      positions.push(at);
    }
    this.cachedLayout = columns;
    this.cachedPositions = positions;
    this.cachedInPlace = inPlace;
    return inPlace && columns.length === this.columns.length ? null : positions;
  }
}

/** The tables of one run, with per-record transactions. */
export class TableSet {
  private readonly tables = new Map<string, TableBuilder>();
  // What the current record added, to undo on rollback: a row per entry, columns past a count.
  private readonly pushed: Group[] = [];
  private readonly grown: [TableBuilder, number][] = [];

  /**
   * Adds one row; `columns` describes `cells` (a reused array is fine: it is mapped once). Throws
   * RecordError on a type conflict; call `rollback` then to drop the record's other rows too.
   */
  add(suffix: string, options: Record<string, string> | undefined, columns: OutputColumn[], cells: Cell[]): void {
    let table = this.tables.get(suffix);
    if (table === undefined) {
      table = new TableBuilder(suffix);
      this.tables.set(suffix, table);
    }
    const before = table.columns.length;
    try {
      this.pushed.push(table.add(columns, cells, options === undefined ? '' : optionsKey(options), options));
    } finally {
      if (table.columns.length !== before) this.grown.push([table, before]);
    }
  }

  /** Keeps everything added since the last commit or rollback. */
  commit(): void {
    this.pushed.length = 0;
    this.grown.length = 0;
  }

  /** Forgets everything added since the last commit or rollback. */
  rollback(): void {
    for (let i = this.pushed.length - 1; i >= 0; i--) this.pushed[i]?.rows.pop();
    for (let i = this.grown.length - 1; i >= 0; i--) {
      const [table, n] = this.grown[i] as [TableBuilder, number];
      table.truncate(n);
    }
    this.commit();
  }

  result(): OutputTable[] {
    const out: OutputTable[] = [];
    for (const table of this.tables.values()) {
      for (const g of table.groups.values()) {
        if (g.rows.length === 0) continue;
        const t: OutputTable = { tableSuffix: table.suffix, columns: table.columns.slice(), rows: g.rows };
        if (g.options !== undefined) t.options = g.options;
        out.push(t);
      }
    }
    return out;
  }
}

function optionsKey(options: Record<string, string>): string {
  return Object.keys(options)
    .sort()
    .map((k) => `${k}=${options[k]}`)
    .join('\u0000');
}
