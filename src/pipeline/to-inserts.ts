/**
 * A pipeline run's tables (output.ts) → `TableInsert`s for the ingest path, and the options of
 * the tables pipelines make (append-only unless a record says otherwise, as in GreptimeDB). Runs
 * wherever the pipeline ran: a shard decoding an `/v1/ingest` body, or the router.
 */

import { insertColumnOf } from '../query/sql/exec/insert.js';
import type { Value } from '../query/sql/types/values.js';
import { type Utf8Column, Utf8Vector } from '../shared/codec/utf8-column.js';
import type { InsertColumn, InsertOptions, TableInsert } from '../shared/insert.js';
import { allocValues, type PhysicalKind, physicalKindOf, type Vector } from '../shared/types.js';
import type { Cell, OutputColumn, OutputTable } from './output.js';

/** One cell as the column's physical kind wants it (ints as bigint for 64-bit kinds, ...). */
function normalized(cell: Cell, column: OutputColumn, kind: PhysicalKind): Value {
  if (cell === null || column.semantic === 'TAG') return cell;
  if (kind === 'i64' || kind === 'u64') {
    if (typeof cell === 'number') return BigInt(Math.trunc(cell));
    if (typeof cell === 'boolean') return cell ? 1n : 0n;
    return cell;
  }
  if (kind === 'f64') return typeof cell === 'bigint' ? Number(cell) : cell;
  if (kind === 'bool') return cell === true || cell === 1 || cell === 1n;
  return cell;
}

/**
 * `cells` as a vector, for the kinds whose cells need no conversion: strings (`String` cells) and
 * doubles (`number` cells), which are most of a log table. Undefined when a cell is of another
 * type; the caller then takes the general path. Saves an array of values and a kind decision per
 * cell on every line.
 */
function directVector(cells: Cell[], kind: PhysicalKind): Vector | undefined {
  if (kind !== 'str' && kind !== 'f64') return undefined;
  const n = cells.length;
  const out = allocValues(kind, n);
  let valid: Uint8Array | undefined;
  const want = kind === 'str' ? 'string' : 'number';
  for (let r = 0; r < n; r++) {
    const v = cells[r] ?? null;
    if (v === null) {
      valid ??= new Uint8Array(n).fill(1);
      valid[r] = 0;
    } else if (typeof v === want) {
      (out as unknown[])[r] = v;
    } else {
      return undefined;
    }
  }
  return { kind, values: out, valid };
}

/** An output column's cells (one a row) as an insert column. */
export function insertColumnOfCells(column: OutputColumn, cells: Cell[]): InsertColumn {
  let inserted: InsertColumn;
  const kind = physicalKindOf(column.type);
  const vector = column.semantic === 'TAG' ? undefined : directVector(cells, kind);
  if (vector !== undefined) {
    inserted = { name: column.name, semantic: column.semantic, type: column.type, vector };
  } else {
    const n = cells.length;
    const values = new Array<Value>(n);
    for (let r = 0; r < n; r++) values[r] = normalized(cells[r] ?? null, column, kind);
    const schema = { id: 0, name: column.name, semantic: column.semantic, type: column.type, nullable: true };
    inserted = insertColumnOf(schema, values);
  }
  return column.index ? { ...inserted, index: column.index } : inserted;
}

/** A String field column already in UTF-8 (text-plan.ts) as an insert column. */
export function insertColumnOfUtf8(
  column: OutputColumn,
  utf8: Utf8Column,
  valid: Uint8Array | undefined,
): InsertColumn {
  const inserted: InsertColumn = {
    name: column.name,
    semantic: column.semantic,
    type: column.type,
    vector: new Utf8Vector(utf8, valid),
  };
  return column.index ? { ...inserted, index: column.index } : inserted;
}

/** The insert of one output table into `<table><suffix>` of `db`. */
export function insertOf(db: string, table: string, out: OutputTable): TableInsert {
  const n = out.rows.length;
  const columns = out.columns.map((column, c) => {
    const cells = new Array<Cell>(n);
    for (let r = 0; r < n; r++) cells[r] = (out.rows[r] as Cell[])[c] ?? null;
    return insertColumnOfCells(column, cells);
  });
  return { db, table: `${table}${out.tableSuffix}`, rowCount: n, columns };
}

/** Per-row table options (`greptime_ttl` ...) as create options; `append_mode` unless told. */
export function insertOptionsOf(out: Pick<OutputTable, 'options'>): InsertOptions {
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
