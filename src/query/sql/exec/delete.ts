/**
 * DELETE execution. Storage deletes by (series, timestamp): the rows the WHERE clause selects are
 * found with an ordinary query over the table's tags and time index, and one tombstone per row is
 * written through the ingest path (`TableInsert.deletes`). A tombstone hides every older row of its
 * series and timestamp; rows written later are visible again, as in GreptimeDB.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { TableInsert } from '../../../shared/insert.js';
import type { ColumnSchema, DataType } from '../../../shared/types.js';
import type { Query, Statement } from '../parse/ast.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import { isNumbersTable } from '../plan/numbers-table.js';
import { resolveTableName, tableNotFound } from '../plan/planner.js';
import { castValue, type Value } from '../types/values.js';
import type { QueryRunner } from './insert.js';
import { insertColumnOf } from './insert.js';

/** Executes DELETE and returns the number of rows deleted. */
export async function executeDelete(
  stmt: Extract<Statement, { kind: 'delete' }>,
  session: SqlSession,
  env: SqlEnv,
  runQuery: QueryRunner,
): Promise<number> {
  const [db, tableName] = resolveTableName(stmt.table, session);
  const table = env.getDatabase(db) ? env.getTable(db, tableName) : undefined;
  if (!table) {
    if (isNumbersTable(db, tableName)) throw new DbError(ErrorCode.Unsupported, 'Table numbers is read-only');
    throw tableNotFound(db, tableName, false);
  }
  const keyColumns = table.columns.filter((c) => c.semantic === 'TAG' || c.name === table.timeIndex);
  const query: Query = {
    body: {
      kind: 'select',
      distinct: false,
      projection: keyColumns.map((c) => ({
        kind: 'expr',
        expr: { kind: 'identifier', parts: [{ value: c.name, quote: '`' }] },
        alias: null,
      })),
      from: { kind: 'table', name: stmt.table, alias: null },
      where: stmt.where,
      groupBy: [],
      having: null,
    },
    orderBy: [],
    limit: null,
    offset: null,
  };
  const result = await runQuery(query);
  if (result.rows.length === 0) return 0;
  const values: Value[][] = keyColumns.map(() => []);
  for (const row of result.rows) {
    keyColumns.forEach((c, i) => {
      const from = (result.columns[i] as { type: DataType }).type;
      (values[i] as Value[]).push(castValue(row[i] as Value, from, c.type));
    });
  }
  const insert: TableInsert = {
    db,
    table: table.name,
    rowCount: result.rows.length,
    columns: keyColumns.map((c: ColumnSchema, i) => insertColumnOf(c, values[i] as Value[])),
    deletes: true,
  };
  await env.insert(insert);
  return result.rows.length;
}
