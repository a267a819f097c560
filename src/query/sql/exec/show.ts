/**
 * Metadata statements: SHOW DATABASES, SHOW TABLES, SHOW CREATE TABLE, DESCRIBE. Layouts are
 * GreptimeDB's (column names, sort order, how types and defaults are spelled).
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { displayTtl } from '../../../shared/ttl.js';
import type { ColumnIndex, DatabaseSchema, TableSchema } from '../../../shared/types.js';
import { records, type StatementResult, stringRecords } from '../../result.js';
import { compileLike } from '../functions/like.js';
import type { EvalContext } from '../functions/types.js';
import type { Ident, ShowFilter, Statement } from '../parse/ast.js';
import { printString } from '../parse/printer.js';
import { Binder } from '../plan/binder.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import { selectRows } from '../plan/eval.js';
import { isNumbersTable, NUMBERS_TABLE } from '../plan/numbers-table.js';
import { resolveTableName, tableNotFound } from '../plan/planner.js';
import { normalizeIdent, Scope } from '../plan/scope.js';
import { planError } from '../types/coercion.js';
import { sqlNameOf } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { defaultDisplay, INFORMATION_SCHEMA, INFORMATION_SCHEMA_TABLES } from './information-schema.js';

/** Databases that exist without being stored. */
const VIRTUAL_DATABASES = ['information_schema'];

/** Applies `LIKE 'pattern'` (to the first column) or `WHERE expr` to string rows. */
function applyFilter(
  filter: ShowFilter | null,
  names: string[],
  rows: Array<Array<string | null>>,
  ctx: EvalContext,
): Array<Array<string | null>> {
  if (!filter) return rows;
  if (filter.kind === 'like') {
    const like = compileLike(filter.pattern, false, null);
    return rows.filter((r) => like.test(r[0] ?? ''));
  }
  // Column names are matched case-insensitively (`WHERE Field = 'x'` must find `Field`).
  const scope = new Scope(
    names.map((name) => ({ name: name.toLowerCase(), type: 'String', qualifier: [], path: [], schema: null })),
  );
  const binder = new Binder({
    scope,
    timezone: ctx.timezone,
    aggregateError: (name) => planError(`Aggregate function ${name} is not allowed in SHOW`),
  });
  const predicate = binder.bind(filter.expr);
  // The binder numbered columns by first use; hand it exactly those columns.
  const columns = scope.scannedColumns().map((ci) => rows.map((r) => r[ci] as Value));
  const keep = selectRows(predicate, { rowCount: rows.length, columns }, ctx);
  return Array.from(keep, (i) => rows[i] as Array<string | null>);
}

/** SHOW [FULL] DATABASES [LIKE | WHERE]: column `Database`, sorted; virtual databases included. */
export function showDatabases(
  stmt: Extract<Statement, { kind: 'show_databases' }>,
  env: SqlEnv,
  ctx: EvalContext,
): StatementResult {
  const names = new Set(env.listDatabases().map((d) => d.name));
  for (const v of VIRTUAL_DATABASES) names.add(v);
  const sorted = [...names].sort();
  const columns = stmt.full ? ['Database', 'Options'] : ['Database'];
  const rows = sorted.map((name) => {
    if (!stmt.full) return [name];
    const options = env.getDatabase(name)?.options ?? {};
    return [
      name,
      Object.entries(options)
        .map(([k, v]) => `${k}='${k === 'ttl' ? displayTtl(v) : v}'`)
        .join(' '),
    ];
  });
  return stringRecords(columns, applyFilter(stmt.filter, columns, rows, ctx));
}

/** SHOW [FULL] TABLES [FROM db] [LIKE | WHERE]: column `Tables` (and `Table_type`), sorted. */
export function showTables(
  stmt: Extract<Statement, { kind: 'show_tables' }>,
  session: SqlSession,
  env: SqlEnv,
  ctx: EvalContext,
): StatementResult {
  const db = stmt.db ? normalizeIdent(stmt.db[stmt.db.length - 1] as Ident) : session.db;
  if (!env.getDatabase(db) && !VIRTUAL_DATABASES.includes(db))
    throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${db}`);
  const tables = new Map<string, string>();
  for (const t of env.listTables(db)) tables.set(t.name, 'BASE TABLE');
  if (db === INFORMATION_SCHEMA) for (const name of INFORMATION_SCHEMA_TABLES) tables.set(name, 'LOCAL TEMPORARY');
  if (isNumbersTable(db, 'numbers') && !tables.has('numbers')) tables.set('numbers', 'TEMPORARY');
  const columns = stmt.full ? ['Tables', 'Table_type'] : ['Tables'];
  const rows = [...tables.keys()].sort().map((name) => (stmt.full ? [name, tables.get(name) ?? 'BASE TABLE'] : [name]));
  return stringRecords(columns, applyFilter(stmt.filter, columns, rows, ctx));
}

function lookupTable(
  name: Extract<Statement, { kind: 'describe' }>['name'],
  session: SqlSession,
  env: SqlEnv,
  asWritten = false,
): TableSchema {
  const [db, table] = resolveTableName(name, session);
  const found = env.getDatabase(db) ? env.getTable(db, table) : undefined;
  if (found) return found;
  if (isNumbersTable(db, table)) return NUMBERS_TABLE;
  // DESCRIBE names the table as written; the other statements give the full name.
  if (asWritten) throw new DbError(ErrorCode.TableNotFound, `Table not found: ${name.map(normalizeIdent).join('.')}`);
  throw tableNotFound(db, table, false);
}

/** DESCRIBE: `Column`, `Type`, `Key`, `Null`, `Default`, `Semantic Type`. */
export function describeTable(
  stmt: Extract<Statement, { kind: 'describe' }>,
  session: SqlSession,
  env: SqlEnv,
): StatementResult {
  const table = lookupTable(stmt.name, session, env, true);
  const rows = table.columns.map((c) => [
    c.name,
    c.type,
    c.semantic === 'FIELD' ? '' : 'PRI',
    c.nullable ? 'YES' : 'NO',
    defaultDisplay(c.defaultSql),
    c.semantic,
  ]);
  return stringRecords(['Column', 'Type', 'Key', 'Null', 'Default', 'Semantic Type'], rows);
}

function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `FULLTEXT INDEX WITH(analyzer = 'English', ...)`: options sorted by key, as GreptimeDB prints them. */
export function indexClauseSql(index: ColumnIndex): string {
  const head = `${index.kind.toUpperCase()} INDEX`;
  const options = Object.entries(index.options).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (options.length === 0) return head;
  return `${head} WITH(${options.map(([k, v]) => `${k} = ${printString(v)}`).join(', ')})`;
}

/**
 * GreptimeDB's canonical DDL of a table, as SHOW CREATE TABLE prints it. The ttl shown is the one
 * in effect, in GreptimeDB's form: the table's own, else its database's (`database`).
 */
export function createTableSql(table: TableSchema, database?: DatabaseSchema): string {
  const lines = table.columns.map((c) => {
    let line = `  ${quoteName(c.name)} ${sqlNameOf(c.type)} ${c.nullable ? 'NULL' : 'NOT NULL'}`;
    if (c.defaultSql !== undefined) line += ` DEFAULT ${c.defaultSql}`;
    if (c.index) line += ` ${indexClauseSql(c.index)}`;
    return line;
  });
  if (table.timeIndex) lines.push(`  TIME INDEX (${quoteName(table.timeIndex)})`);
  if (table.primaryKey.length > 0) lines.push(`  PRIMARY KEY (${table.primaryKey.map(quoteName).join(', ')})`);
  let out = `CREATE TABLE IF NOT EXISTS ${quoteName(table.name)} (\n${lines.join(',\n')}\n)\n\nENGINE=mito\n`;
  const shown: Record<string, string> = {};
  const inherited = database?.options.ttl;
  if (table.options.ttl === undefined && inherited !== undefined && inherited.trim() !== '') {
    shown.ttl = displayTtl(inherited);
  }
  for (const [k, v] of Object.entries(table.options)) shown[k] = k === 'ttl' ? displayTtl(v) : v;
  const options = Object.entries(shown);
  if (options.length > 0) {
    out += `WITH(\n${options.map(([k, v]) => `  ${k} = ${printString(v)}`).join(',\n')}\n)`;
  }
  return out;
}

/** SHOW CREATE TABLE: `Table`, `Create Table`. */
export function showCreateTable(
  stmt: Extract<Statement, { kind: 'show_create_table' }>,
  session: SqlSession,
  env: SqlEnv,
): StatementResult {
  const table = lookupTable(stmt.name, session, env);
  return stringRecords(['Table', 'Create Table'], [[table.name, createTableSql(table, env.getDatabase(table.db))]]);
}

/** SHOW CREATE DATABASE: `Database`, `Create Database` (options in GreptimeDB's form). */
export function showCreateDatabase(
  stmt: Extract<Statement, { kind: 'show_create_database' }>,
  env: SqlEnv,
): StatementResult {
  const name = stmt.name.map(normalizeIdent).join('.');
  const db = env.getDatabase(name);
  if (!db) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${name}`);
  let text = `CREATE DATABASE IF NOT EXISTS ${name}`;
  const options = Object.entries(db.options);
  if (options.length > 0) {
    const shown = options.map(([k, v]) => `  ${k} = ${printString(k === 'ttl' ? displayTtl(v) : v)}`);
    text += `\nWITH(\n${shown.join(',\n')}\n)`;
  }
  return stringRecords(['Database', 'Create Database'], [[name, text]]);
}

/** SHOW [FULL] COLUMNS FROM t [FROM db]: MySQL layout plus `Greptime_type`, sorted by name. */
export function showColumns(
  stmt: Extract<Statement, { kind: 'show_columns' }>,
  session: SqlSession,
  env: SqlEnv,
  ctx: EvalContext,
): StatementResult {
  const name = stmt.db ? [...stmt.db, ...stmt.table.slice(-1)] : stmt.table;
  const table = lookupTable(name, session, env);
  const columns = stmt.full
    ? ['Field', 'Type', 'Collation', 'Null', 'Key', 'Default', 'Comment', 'Privileges', 'Extra', 'Greptime_type']
    : ['Field', 'Type', 'Null', 'Key', 'Default', 'Extra', 'Greptime_type'];
  const rows = [...table.columns]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((c) => {
      const type = sqlNameOf(c.type).toLowerCase();
      const key = c.semantic === 'TAG' ? 'PRI' : c.semantic === 'TIMESTAMP' ? 'TIME INDEX' : '';
      const nullable = c.nullable ? 'YES' : 'NO';
      const dflt = defaultDisplay(c.defaultSql);
      return stmt.full
        ? [c.name, type, c.type === 'String' ? 'utf8_bin' : '', nullable, key, dflt, '', 'select,insert', '', c.type]
        : [c.name, type, nullable, key, dflt, '', c.type];
    });
  return stringRecords(columns, applyFilter(stmt.filter, columns, rows, ctx));
}

/** SHOW COLLATION [LIKE | WHERE]: the one collation GreptimeDB has. */
export function showCollation(stmt: Extract<Statement, { kind: 'show_collation' }>, ctx: EvalContext): StatementResult {
  const names = ['Collation', 'Charset', 'Id', 'Default', 'Compiled', 'Sortlen'];
  const rows = applyFilter(stmt.filter, names, [['utf8_bin', 'utf8', '1', 'Yes', 'Yes', '1']], ctx);
  return records(
    names.map((name) => ({
      name,
      type: name === 'Id' || name === 'Sortlen' ? ('UInt64' as const) : ('String' as const),
    })),
    rows.map((r) => r.map((v, i) => (i === 2 || i === 5 ? BigInt(v as string) : v))),
  );
}

/** SHOW CHARSET [LIKE | WHERE]: the one character set GreptimeDB has. */
export function showCharset(stmt: Extract<Statement, { kind: 'show_charset' }>, ctx: EvalContext): StatementResult {
  const names = ['Charset', 'Description', 'Default collation', 'Maxlen'];
  const rows = applyFilter(stmt.filter, names, [['utf8', 'UTF-8 Unicode', 'utf8_bin', '4']], ctx);
  return records(
    names.map((name) => ({ name, type: name === 'Maxlen' ? ('UInt64' as const) : ('String' as const) })),
    rows.map((r) => r.map((v, i) => (i === 3 ? BigInt(v as string) : v))),
  );
}
