/**
 * `ADMIN fn(args)`: GreptimeDB's maintenance calls. `flush_table` and `compact_table` (and their
 * region forms) flush or compact storage; the result is one row with the value 0 under a column
 * named after the statement, as GreptimeDB prints it.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { records, type StatementResult } from '../../result.js';
import type { Ident, Statement } from '../parse/ast.js';
import { printExpr } from '../parse/printer.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import { resolveTableName, tableNotFound } from '../plan/planner.js';
import { normalizeIdent } from '../plan/scope.js';

const ACTIONS: Record<string, 'flush' | 'compact'> = {
  flush_table: 'flush',
  flush_region: 'flush',
  compact_table: 'compact',
  compact_region: 'compact',
};

/** Executes an ADMIN statement. */
export async function executeAdmin(
  stmt: Extract<Statement, { kind: 'admin' }>,
  session: SqlSession,
  env: SqlEnv,
): Promise<StatementResult> {
  const call = stmt.call;
  const name = normalizeIdent(call.name[call.name.length - 1] as Ident);
  const action = ACTIONS[name];
  if (!action) throw new DbError(ErrorCode.Unsupported, `This feature is not implemented: ADMIN ${name}`);
  const first = call.args[0];
  if (name.endsWith('_table')) {
    if (first?.kind !== 'string') {
      throw new DbError(ErrorCode.InvalidArguments, `Invalid function args: ${name} expects a table name string`);
    }
    const parts = first.value.split('.').map((value): Ident => ({ value, quote: "'" }));
    const [db, table] = resolveTableName(parts, session);
    if (!env.getDatabase(db) || !env.getTable(db, table)) throw tableNotFound(db, table, false);
    await env.maintainTable(db, table, action);
  } else {
    await env.maintainTable(session.db, '', action);
  }
  return records([{ name: `ADMIN ${printExpr(call)}`, type: 'UInt64' }], [[0n]]);
}
