/**
 * A pipeline run's tables (src/pipeline/output.ts) → `TableInsert`s for the ingest pipeline, and
 * the options tables made by pipelines get (append-only, as GreptimeDB's are).
 */
import type { Cell, OutputColumn, OutputTable } from '../../pipeline/output.js';
import { insertColumnOf } from '../../query/sql/insert.js';
import type { InsertOptions, TableInsert } from '../../shared/insert.js';
import { physicalKindOf } from '../../shared/types.js';

/** One cell as the column's physical kind wants it (ints as bigint for 64-bit kinds, ...). */
function normalized(cell: Cell, column: OutputColumn): Cell {
  if (cell === null) return null;
  const kind = physicalKindOf(column.type);
  if (kind === 'i64' || kind === 'u64') {
    if (typeof cell === 'number') return BigInt(Math.trunc(cell));
    if (typeof cell === 'boolean') return cell ? 1n : 0n;
    return cell;
  }
  if (kind === 'f64') return typeof cell === 'bigint' ? Number(cell) : cell;
  return cell;
}

/** The insert of one output table into `<table><suffix>` of `db`. */
export function insertOf(db: string, table: string, out: OutputTable): TableInsert {
  const n = out.rows.length;
  return {
    db,
    table: `${table}${out.tableSuffix}`,
    rowCount: n,
    columns: out.columns.map((column, c) => {
      const values = new Array<Cell>(n);
      for (let r = 0; r < n; r++) values[r] = normalized(out.rows[r]?.[c] ?? null, column);
      return insertColumnOf(
        { id: 0, name: column.name, semantic: column.semantic, type: column.type, nullable: true },
        values,
      );
    }),
  };
}

/** Per-row table options (`greptime_ttl` ...) as create options; `append_mode` unless told. */
export function insertOptionsOf(out: OutputTable): InsertOptions {
  const options = { ...(out.options ?? {}) };
  const autoCreate = options.auto_create_table !== 'false';
  delete options.auto_create_table;
  const mergeMode = options.merge_mode;
  const appendMode = options.append_mode ?? (mergeMode ? 'false' : 'true');
  delete options.append_mode;
  delete options.merge_mode;
  return {
    autoCreateTable: autoCreate,
    autoAddColumns: true,
    createMergeMode: appendMode === 'true' ? 'append' : mergeMode === 'last_non_null' ? 'last_non_null' : 'last_row',
    createOptions: options,
  };
}
