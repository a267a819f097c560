/**
 * A pipeline run's tables (output.ts) → `TableInsert`s for the ingest path, and the options of
 * the tables pipelines make (append-only unless a record says otherwise, as in GreptimeDB). Runs
 * wherever the pipeline ran: a shard decoding an `/v1/ingest` body, or the router.
 */
import type { InsertColumn, InsertOptions, TableInsert } from '../shared/insert.js';
import { allocValues, physicalKindOf, type Vector } from '../shared/types.js';
import type { Cell, OutputColumn, OutputTable } from './output.js';

/** One column's cells as a vector of its type's physical kind (tags as text, as storage keys them). */
function vectorOf(column: OutputColumn, rows: Cell[][], c: number): Vector {
  const n = rows.length;
  if (column.semantic === 'TAG') {
    const values = new Array<string | null>(n);
    for (let r = 0; r < n; r++) {
      const v = rows[r]?.[c] ?? null;
      values[r] = v === null ? null : typeof v === 'string' ? v : String(v);
    }
    return { kind: 'str', values };
  }
  const kind = physicalKindOf(column.type);
  const out = allocValues(kind, n);
  let valid: Uint8Array | undefined;
  for (let r = 0; r < n; r++) {
    const v = rows[r]?.[c] ?? null;
    if (v === null) {
      valid ??= new Uint8Array(n).fill(1);
      valid[r] = 0;
      continue;
    }
    switch (kind) {
      case 'bool':
        (out as Uint8Array)[r] = v === true || v === 1 || v === 1n ? 1 : 0;
        break;
      case 'str':
        (out as Array<string | null>)[r] = typeof v === 'string' ? v : String(v);
        break;
      case 'f64':
        (out as Float64Array)[r] = Number(v);
        break;
      default:
        (out as BigInt64Array)[r] = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
    }
  }
  return { kind, values: out, valid } as Vector;
}

/** The insert of one output table into `<table><suffix>` of `db`. */
export function insertOf(db: string, table: string, out: OutputTable): TableInsert {
  const columns: InsertColumn[] = out.columns.map((column, c) => ({
    name: column.name,
    semantic: column.semantic,
    type: column.type,
    vector: vectorOf(column, out.rows, c),
    ...(column.index ? { index: column.index } : {}),
  }));
  return { db, table: `${table}${out.tableSuffix}`, rowCount: out.rows.length, columns };
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
