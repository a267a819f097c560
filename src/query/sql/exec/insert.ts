/**
 * INSERT / REPLACE execution: turns `VALUES` rows (or a query's rows) into one `TableInsert`
 * carrying every column of the table (missing ones filled with their DEFAULT or NULL) and hands
 * it to the router's ingest path through `env.insert`. REPLACE is INSERT: a row with the same
 * series and timestamp replaces the old one anyway.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { InsertColumn, TableInsert } from '../../../shared/insert.js';
import { effectiveTtlMs, expiryCutoff, unitsPerSecondOf } from '../../../shared/ttl.js';
import {
  allocValues,
  type ColumnSchema,
  type DatabaseSchema,
  type DataType,
  physicalKindOf,
  type TableSchema,
  timeUnitOf,
  type Vector,
} from '../../../shared/types.js';
import type { EvalContext } from '../functions/types.js';
import type { Expr, Query, Statement } from '../parse/ast.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import { defaultValueOf, insertValueOf, timestampFromText } from '../plan/insert-values.js';
import { isNumbersTable } from '../plan/numbers-table.js';
import { resolveTableName, tableNotFound } from '../plan/planner.js';
import { normalizeIdent } from '../plan/scope.js';
import { tagText } from '../types/tag-text.js';
import { castValue, type Value } from '../types/values.js';

/** Runs the query part of INSERT ... SELECT; supplied by execute.ts to avoid an import cycle. */
export type QueryRunner = (
  query: Query,
) => Promise<{ columns: Array<{ name: string; type: DataType }>; rows: unknown[][] }>;

/** Executes INSERT/REPLACE and returns the number of rows written. */
export async function executeInsert(
  stmt: Extract<Statement, { kind: 'insert' }>,
  session: SqlSession,
  env: SqlEnv,
  ctx: EvalContext,
  runQuery: QueryRunner,
): Promise<number> {
  const [db, tableName] = resolveTableName(stmt.table, session);
  const table = env.getDatabase(db) ? env.getTable(db, tableName) : undefined;
  if (!table) {
    if (isNumbersTable(db, tableName)) throw new DbError(ErrorCode.Unsupported, 'Table numbers is read-only');
    throw tableNotFound(db, tableName, false);
  }
  const targets = targetColumns(stmt, table);
  const values: Value[][] = table.columns.map(() => []);
  let rowCount = 0;
  if (stmt.source.kind === 'values') {
    for (const row of stmt.source.rows) {
      if (row.length !== targets.length) {
        throw new DbError(
          ErrorCode.InvalidArguments,
          `Invalid SQL, error: column count mismatch, columns: ${targets.length}, values: ${row.length}`,
        );
      }
      addRow(table, targets, (k, column) => insertedValue(row[k] as Expr, column, ctx), values, ctx);
      rowCount++;
    }
  } else {
    const result = await runQuery(stmt.source.query);
    if (result.columns.length !== targets.length) {
      throw new DbError(
        ErrorCode.PlanQuery,
        "Failed to plan SQL: Error during planning: Column count doesn't match insert query!",
      );
    }
    for (const row of result.rows) {
      addRow(
        table,
        targets,
        (k, column) => {
          const v = row[k] as Value;
          const from = (result.columns[k] as { type: DataType }).type;
          if (typeof v === 'string' && timeUnitOf(column.type)) return timestampFromText(v, column.type, ctx.timezone);
          return castValue(v, from, column.type);
        },
        values,
        ctx,
      );
      rowCount++;
    }
  }
  const live = withoutExpiredRows(table, env.getDatabase(db), values, rowCount, Date.now());
  if (live.rowCount === 0) return 0;
  const insert: TableInsert = {
    db,
    table: table.name,
    rowCount: live.rowCount,
    columns: table.columns.map((c, i) => insertColumnOf(c, live.values[i] as Value[])),
  };
  await env.insert(insert);
  return live.rowCount;
}

/**
 * The rows still inside the table's ttl at `nowMs`, as GreptimeDB's frontend filters an insert
 * (sqlness `ttl/ttl_ingestion_filter`): the others are not written, and not counted as affected.
 * `instant` keeps none. The shards apply the same filter to every other write path.
 */
function withoutExpiredRows(
  table: TableSchema,
  database: DatabaseSchema | undefined,
  values: Value[][],
  rowCount: number,
  nowMs: number,
): { values: Value[][]; rowCount: number } {
  const ttlMs = effectiveTtlMs(table, database);
  const timeIndex = table.columns.findIndex((c) => c.semantic === 'TIMESTAMP');
  if (ttlMs === null || timeIndex < 0) return { values, rowCount };
  const cutoff = expiryCutoff(
    { ttlMs, unitsPerSecond: unitsPerSecondOf((table.columns[timeIndex] as ColumnSchema).type) },
    nowMs,
  );
  const times = values[timeIndex] as Value[];
  const keep: number[] = [];
  for (let r = 0; r < rowCount; r++) if (BigInt(times[r] as bigint) >= cutoff) keep.push(r);
  if (keep.length === rowCount) return { values, rowCount };
  return { values: values.map((column) => keep.map((r) => column[r] as Value)), rowCount: keep.length };
}

function targetColumns(stmt: Extract<Statement, { kind: 'insert' }>, table: TableSchema): number[] {
  if (stmt.columns.length === 0) return table.columns.map((_, i) => i);
  return stmt.columns.map((ident) => {
    const name = normalizeIdent(ident);
    const i = table.columns.findIndex((c) => c.name === name);
    if (i < 0) throw new DbError(ErrorCode.TableColumnNotFound, `Column ${name} not found in table ${table.name}`);
    return i;
  });
}

function insertedValue(expr: Expr, column: ColumnSchema, ctx: EvalContext): Value {
  let e = expr;
  while (e.kind === 'nested') e = e.expr;
  return e.kind === 'default' ? defaultValueOf(column, ctx) : insertValueOf(e, column, ctx);
}

/** Appends one row: given values for `targets`, defaults for every other column. */
function addRow(
  table: TableSchema,
  targets: number[],
  given: (k: number, column: ColumnSchema) => Value,
  values: Value[][],
  ctx: EvalContext,
): void {
  const row: Value[] = table.columns.map(() => null);
  const provided = new Array<boolean>(table.columns.length).fill(false);
  targets.forEach((ci, k) => {
    row[ci] = given(k, table.columns[ci] as ColumnSchema);
    provided[ci] = true;
  });
  table.columns.forEach((c, ci) => {
    if (!provided[ci]) row[ci] = defaultValueOf(c, ctx);
    if (row[ci] === null && (!c.nullable || c.semantic === 'TIMESTAMP')) {
      throw new DbError(ErrorCode.InvalidArguments, `Invalid argument: column ${c.name} does not accept NULL`);
    }
    (values[ci] as Value[]).push(row[ci] as Value);
  });
}

/** Column values as a storage vector; tags become text (see tag-text.ts). */
export function insertColumnOf(column: ColumnSchema, values: Value[]): InsertColumn {
  const n = values.length;
  let vector: Vector;
  if (column.semantic === 'TAG') {
    vector = { kind: 'str', values: values.map(tagText) };
  } else {
    const kind = physicalKindOf(column.type);
    const out = allocValues(kind, n);
    let valid: Uint8Array | undefined;
    for (let i = 0; i < n; i++) {
      const v = values[i] as Value;
      if (v === null) {
        valid ??= new Uint8Array(n).fill(1);
        valid[i] = 0;
        continue;
      }
      if (kind === 'bool') (out as Uint8Array)[i] = v ? 1 : 0;
      // Decimals wider than 64 bits are stored as their unscaled digits (see shared/types.ts).
      else if (kind === 'str') (out as Array<string | null>)[i] = typeof v === 'string' ? v : String(v);
      else if (kind === 'f64') (out as Float64Array)[i] = v as number;
      else (out as BigInt64Array | BigUint64Array)[i] = v as bigint;
    }
    vector = { kind, values: out, valid };
  }
  return { name: column.name, semantic: column.semantic, type: column.type, vector };
}
