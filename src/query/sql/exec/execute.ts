/**
 * `executeSql`: the router's entry point. Parses the whole request first (a syntax error anywhere
 * fails it before anything runs), then executes statements in order; `USE` and `SET time_zone`
 * change the session for the statements after them. The first failing statement fails the request.
 *
 *   SQL text → parseSql → per statement: DDL → env (catalog) | INSERT → env.insert
 *            | SELECT → planQuery → env.scatter (shards run runShardPlan) → mergeShardResults
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { endSpan, startSpan } from '../../../shared/tracing/active-tracer.js';
import { checkTtlOption } from '../../../shared/ttl.js';
import { ParsedCache } from '../../parsed-cache.js';
import { affected, columnarRecords, type ResultColumn, records, type StatementResult } from '../../result.js';
import type { EvalContext } from '../functions/types.js';
import type { Query, Statement } from '../parse/ast.js';
import { parseSql } from '../parse/parser.js';
import { Binder } from '../plan/binder.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import { evaluateConstant } from '../plan/eval.js';
import { resolveTableName, tableNotFound } from '../plan/planner.js';
import { normalizeIdent } from '../plan/scope.js';
import { planError } from '../types/coercion.js';
import { isValidTimezone } from '../types/timestamps.js';
import { executeAdmin } from './admin.js';
import { executeAlter, executeAlterDatabase } from './alter.js';
import { newTableLike, newTableOf, validateDatabaseName } from './ddl.js';
import { executeDelete } from './delete.js';
import { explainStatement } from './explain.js';
import { executeInsert } from './insert.js';
import { queryContext, runQuery as runQueryIn } from './query-exec.js';
import {
  describeTable,
  showCharset,
  showCollation,
  showColumns,
  showCreateDatabase,
  showCreateTable,
  showDatabases,
  showTables,
} from './show.js';
import { executeTql } from './tql.js';

/** Re-exported for the router, which formats results. */
export type { StatementResult } from '../../result.js';

function checkAborted(session: SqlSession): void {
  if (session.signal?.aborted) throw new DbError(ErrorCode.Cancelled, 'Query was cancelled');
}

/** Executes every statement of `sql`, in order, against `env`. */
export async function executeSql(sql: string, session: SqlSession, env: SqlEnv): Promise<StatementResult[]> {
  const statements = tracedParse(sql);
  const results: StatementResult[] = [];
  for (const statement of statements) {
    checkAborted(session);
    results.push(await executeStatement(statement, session, env));
  }
  return results;
}

/** Requests made only of queries, parsed, by text (dashboards repeat theirs every refresh). */
const parsedQueries = new ParsedCache<Statement[]>();

/** The statements of `sql`: kept ones when it is a repeated query, else parsed (and kept if queries). */
function parsedStatements(sql: string): Statement[] {
  const kept = parsedQueries.get(sql);
  if (kept !== undefined) return kept;
  const statements = parseSql(sql);
  if (statements.length > 0 && statements.every((s) => s.kind === 'query' || s.kind === 'tql')) {
    parsedQueries.set(sql, statements);
  }
  return statements;
}

/** parsedStatements under a `sql.parse` span while tracing; a plain call otherwise. */
function tracedParse(sql: string): Statement[] {
  const span = startSpan('sql.parse');
  if (span === null) return parsedStatements(sql);
  try {
    const statements = parsedStatements(sql);
    span.setAttribute('sql.statements', statements.length);
    endSpan(span);
    return statements;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
}

function nowNanos(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** Plans and runs a query, returning its columns and rows. */
export async function runQuery(
  query: Query,
  session: SqlSession,
  env: SqlEnv,
  now: bigint,
): Promise<{ columns: ResultColumn[]; rows: unknown[][] }> {
  return runQueryIn(query, queryContext(session, env, now));
}

/** What a statement needs of its user; null for session settings (USE, SET), which anyone may change. */
function accessOf(statement: Statement): 'read' | 'write' | null {
  switch (statement.kind) {
    case 'use':
    case 'set':
      return null;
    case 'query':
    case 'show_databases':
    case 'show_tables':
    case 'show_create_table':
    case 'show_create_database':
    case 'show_columns':
    case 'describe':
    case 'explain':
    case 'show_collation':
    case 'show_charset':
    case 'tql':
      return 'read';
    default:
      return 'write';
  }
}

async function executeStatement(statement: Statement, session: SqlSession, env: SqlEnv): Promise<StatementResult> {
  const access = accessOf(statement);
  if (access !== null) env.authorize?.(access);
  const now = nowNanos();
  const ctx: EvalContext = { nowNanos: now, timezone: session.timezone };
  switch (statement.kind) {
    case 'query': {
      // The output reads the merged columns directly (Arrow) or builds rows from them in slices.
      const result = await runQueryIn(statement.query, queryContext(session, env, now), true);
      return result.table ? columnarRecords(result.columns, result.table) : records(result.columns, result.rows);
    }
    case 'insert':
      return affected(await executeInsert(statement, session, env, ctx, (q) => runQuery(q, session, env, now)));
    case 'delete':
      return affected(await executeDelete(statement, session, env, (q) => runQuery(q, session, env, now)));
    case 'create_database': {
      const name = databaseNameOf(statement.name.map(normalizeIdent));
      validateDatabaseName(name);
      const options: Record<string, string> = {};
      for (const o of statement.options) options[o.key.toLowerCase()] = o.value;
      checkTtlOption(options, 'database');
      await env.createDatabase(name, options, statement.ifNotExists);
      return affected(1);
    }
    case 'create_table': {
      const table = newTableOf(statement, session, ctx);
      requireDatabase(env, table.db);
      await env.createTable(table, statement.ifNotExists);
      return affected(0);
    }
    case 'create_table_like': {
      const table = newTableLike(statement, session, env);
      requireDatabase(env, table.db);
      await env.createTable(table, statement.ifNotExists);
      return affected(0);
    }
    case 'drop_table':
      for (const name of statement.names) {
        const parts = name.map(normalizeIdent);
        const db = parts.length >= 2 ? (parts[parts.length - 2] as string) : session.db;
        await env.dropTable(db, parts[parts.length - 1] as string, statement.ifExists);
      }
      return affected(0);
    case 'drop_database': {
      const name = databaseNameOf(statement.name.map(normalizeIdent));
      if (name === session.db) throw new DbError(ErrorCode.InvalidArguments, `Schema \`${name}\` is in use`);
      await env.dropDatabase(name, statement.ifExists);
      return affected(0);
    }
    case 'show_databases':
      return showDatabases(statement, env, ctx);
    case 'show_tables':
      return showTables(statement, session, env, ctx);
    case 'show_create_table':
      return showCreateTable(statement, session, env);
    case 'show_create_database':
      return showCreateDatabase(statement, env);
    case 'show_columns':
      return showColumns(statement, session, env, ctx);
    case 'describe':
      return describeTable(statement, session, env);
    case 'use': {
      const db = normalizeIdent(statement.db);
      requireDatabase(env, db);
      session.db = db;
      return affected(0);
    }
    case 'set':
      applySet(statement, session, ctx);
      return affected(0);
    case 'alter_database':
      await executeAlterDatabase(statement, env);
      return affected(0);
    case 'alter_table':
      await executeAlter(statement, session, env, ctx);
      return affected(0);
    case 'truncate_table': {
      const [db, name] = resolveTableName(statement.name, session);
      if (!env.getDatabase(db) || !env.getTable(db, name)) throw tableNotFound(db, name, false);
      await env.truncateTable(db, name);
      return affected(0);
    }
    case 'explain':
      return explainStatement(statement, session, env, now);
    case 'show_collation':
      return showCollation(statement, ctx);
    case 'show_charset':
      return showCharset(statement, ctx);
    case 'admin':
      return executeAdmin(statement, session, env);
    case 'tql':
      return executeTql(statement, session, env, ctx);
    default: {
      const never: never = statement;
      throw new DbError(ErrorCode.Unsupported, `SQL statement is not supported: ${JSON.stringify(never)}`);
    }
  }
}

/** `db` or `greptime.db`. */
function databaseNameOf(parts: string[]): string {
  return parts[parts.length - 1] as string;
}

function requireDatabase(env: SqlEnv, db: string): void {
  if (!env.getDatabase(db)) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${db}`);
}

function applySet(statement: Extract<Statement, { kind: 'set' }>, session: SqlSession, ctx: EvalContext): void {
  if (statement.variable !== 'time_zone' && statement.variable !== 'timezone') {
    throw new DbError(ErrorCode.Unsupported, `Unsupported set variable: ${statement.variable}`);
  }
  const binder = new Binder({
    scope: null,
    timezone: session.timezone,
    aggregateError: (name) => planError(`Aggregate function ${name} is not allowed in SET`),
  });
  const value = evaluateConstant(binder.bind(statement.value), ctx);
  const zone = typeof value === 'string' ? value : String(value);
  if (!isValidTimezone(zone)) throw new DbError(ErrorCode.InvalidArguments, `Invalid timezone: ${zone}`);
  session.timezone = zone;
}
