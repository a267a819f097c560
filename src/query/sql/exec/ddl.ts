/**
 * CREATE / DROP of databases and tables. The SQL side checks the statement the way GreptimeDB
 * does (one time index of a timestamp type, where primary keys may be declared, which DEFAULT
 * expressions are allowed, legal names) and produces a `NewTable`; the catalog (behind `SqlEnv`)
 * owns existence checks and persistence.
 */
import { normalizeIndexOptions } from '../../../shared/column-index.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { checkTtlOption } from '../../../shared/ttl.js';
import type { ColumnIndex, ColumnSchema, DataType } from '../../../shared/types.js';
import type { EvalContext } from '../functions/types.js';
import type { ColumnDef, Expr, Ident, IndexKind, OptionEntry, Statement } from '../parse/ast.js';
import { parseExpression } from '../parse/parser.js';
import { printExpr, printString } from '../parse/printer.js';
import type { NewColumn, NewTable, SqlEnv, SqlSession } from '../plan/env.js';
import { defaultValueOf } from '../plan/insert-values.js';
import { resolveTableName, tableNotFound } from '../plan/planner.js';
import { normalizeIdent } from '../plan/scope.js';
import { formatTimestamp, parseTimestampNanos } from '../types/timestamps.js';
import { dataTypeOfSql, isTimestamp } from '../types/type-names.js';

/** GreptimeDB's rule for table and database names. */
export const NAME_PATTERN = /^[a-zA-Z_:-][a-zA-Z0-9_:\-.@#]*$/;

/** Functions a DEFAULT may call, by their canonical spelling. */
const DEFAULT_FUNCTIONS: Record<string, string> = {
  current_timestamp: 'current_timestamp()',
  now: 'now()',
  localtimestamp: 'localtimestamp()',
};

/** Refuses database names GreptimeDB refuses (code 1002). */
export function validateDatabaseName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new DbError(ErrorCode.Unexpected, `Unexpected, violated: Invalid database name: ${name}`);
  }
}

function invalidColumnOption(column: string, error: string): DbError {
  return new DbError(ErrorCode.InvalidArguments, `Invalid column option, column name: ${column}, error: ${error}`);
}

function illegalPrimaryKeys(reason: string): DbError {
  return new DbError(ErrorCode.InvalidArguments, `Illegal primary keys definition: ${reason}`);
}

/** The canonical SQL of an allowed DEFAULT expression, or GreptimeDB's refusal. */
export function defaultSqlOf(column: string, expr: Expr): string {
  let e = expr;
  while (e.kind === 'nested') e = e.expr;
  switch (e.kind) {
    case 'number':
    case 'string':
    case 'boolean':
    case 'null':
      return printExpr(e);
    case 'unary':
      if (e.op === '-' && e.expr.kind === 'number') return printExpr(e);
      break;
    case 'function': {
      const name = normalizeIdent(e.name[e.name.length - 1] as Ident);
      const canonical = DEFAULT_FUNCTIONS[name];
      if (canonical && e.args.length === 0 && !e.star) return canonical;
      break;
    }
    default:
      break;
  }
  throw new DbError(
    ErrorCode.Unsupported,
    `Unsupported default constraint for column: '${column}', reason: expr '${printExpr(expr)}' not supported`,
  );
}

/** Checks a CREATE TABLE and turns it into the catalog's `NewTable`. */
export function newTableOf(
  stmt: Extract<Statement, { kind: 'create_table' }>,
  session: SqlSession,
  ctx: EvalContext,
): NewTable {
  const [db, name] = resolveTableName(stmt.name, session);
  if (!NAME_PATTERN.test(name)) throw new DbError(ErrorCode.InvalidArguments, `Invalid table name: ${name}`);

  const timeIndexConstraints = stmt.constraints.filter((c) => c.kind === 'time_index');
  for (const c of timeIndexConstraints) {
    if (c.columns.length !== 1)
      throw new DbError(ErrorCode.InvalidSyntax, 'Invalid time index: it should contain only one column in time index');
  }
  const inlineTimeIndex = stmt.columns.filter((c) => c.options.some((o) => o.kind === 'time_index'));
  const timeIndexCount = timeIndexConstraints.length + inlineTimeIndex.length;
  if (timeIndexCount === 0) throw new DbError(ErrorCode.InvalidSyntax, 'Missing time index constraint');
  if (timeIndexCount > 1) {
    throw new DbError(
      ErrorCode.InvalidSyntax,
      `Invalid time index: expected only one time index constraint but actual ${timeIndexCount}`,
    );
  }
  const timeIndexIdent = inlineTimeIndex[0]?.name ?? timeIndexConstraints[0]?.columns[0];
  if (!timeIndexIdent) throw new DbError(ErrorCode.InvalidSyntax, 'Missing time index constraint');
  const timeIndex = normalizeIdent(timeIndexIdent);

  const inlinePrimaryKeys = stmt.columns.filter((c) => c.options.some((o) => o.kind === 'primary_key'));
  const keyConstraints = stmt.constraints.filter((c) => c.kind === 'primary_key');
  if (inlinePrimaryKeys.length > 1)
    throw illegalPrimaryKeys('not allowed to inline multiple primary keys in columns options');
  if (keyConstraints.length + inlinePrimaryKeys.length > 1)
    throw illegalPrimaryKeys('found definitions of primary keys in multiple places');
  const primaryKey = inlinePrimaryKeys[0]
    ? [normalizeIdent(inlinePrimaryKeys[0].name)]
    : (keyConstraints[0]?.columns ?? []).map(normalizeIdent);

  const seen = new Set<string>();
  const columns: NewColumn[] = stmt.columns.map((def) => {
    const column = newColumnOf(def, timeIndex, primaryKey, ctx.timezone);
    if (seen.has(column.name)) throw new DbError(ErrorCode.InvalidArguments, `Duplicate column name: ${column.name}`);
    seen.add(column.name);
    return column;
  });
  if (!seen.has(timeIndex))
    throw new DbError(ErrorCode.InvalidArguments, `Time index column ${timeIndex} is not defined`);
  for (const key of primaryKey) {
    if (!seen.has(key)) throw new DbError(ErrorCode.InvalidArguments, `Primary key column ${key} is not defined`);
    if (key === timeIndex) throw illegalPrimaryKeys(`time index column ${key} cannot be a primary key`);
  }
  // A DEFAULT must produce a value of the column's type: evaluate each once now, as GreptimeDB does.
  columns.forEach((c, i) => {
    if (c.defaultSql !== undefined && !Object.values(DEFAULT_FUNCTIONS).includes(c.defaultSql)) {
      defaultValueOf({ ...c, id: i, defaultSql: c.defaultSql } as ColumnSchema, ctx);
    }
  });
  const options: Record<string, string> = {};
  for (const o of stmt.options) options[o.key.toLowerCase()] = o.value;
  checkTtlOption(options, 'table');
  return { db, name, columns, timeIndex, primaryKey, options };
}

/**
 * GreptimeDB stores a text DEFAULT of a timestamp column as a timestamp, read in the session time
 * zone when the table is created or altered: `'2024-01-30 00:00:00'` under UTC+8 becomes
 * `'2024-01-29 16:00:00+0000'`. Later inserts then get the same instant whatever their zone.
 */
export function normalizeTimestampDefault(
  type: DataType,
  defaultSql: string | undefined,
  timezone: string,
): string | undefined {
  if (defaultSql === undefined || !isTimestamp(type)) return defaultSql;
  const e = parseExpression(defaultSql);
  if (e.kind !== 'string') return defaultSql;
  const nanos = parseTimestampNanos(e.value, timezone);
  if (nanos === null) return defaultSql;
  const text = formatTimestamp(nanos, 'ns').replace('T', ' ');
  const [whole, fraction] = text.split('.');
  const trimmed = fraction ? fraction.replace(/0+$/, '') : '';
  const digits = trimmed.length === 0 ? '' : `.${trimmed.padEnd(Math.ceil(trimmed.length / 3) * 3, '0')}`;
  return printString(`${whole}${digits}+0000`);
}

/** A column of CREATE TABLE or ALTER TABLE ADD COLUMN, checked. */
export function newColumnOf(def: ColumnDef, timeIndex: string, primaryKey: string[], timezone = 'UTC'): NewColumn {
  const name = normalizeIdent(def.name);
  const type = dataTypeOfSql(def.dataType);
  if (type === 'IntervalMonthDayNano') {
    throw new DbError(
      ErrorCode.InvalidArguments,
      `Invalid SQL, error: column name \`${name}\` is interval type, which is not supported`,
    );
  }
  const isTimeIndex = name === timeIndex;
  let nullable = true;
  let defaultSql: string | undefined;
  let index: ColumnIndex | undefined;
  for (const o of def.options) {
    if (o.kind === 'index') {
      index = columnIndexOf(name, type, o.index, o.options);
      continue;
    }
    if (o.kind === 'null') {
      if (isTimeIndex) throw invalidColumnOption(name, "time index column can't be null");
      nullable = true;
    } else if (o.kind === 'not_null') nullable = false;
    else if (o.kind === 'default') defaultSql = defaultSqlOf(name, o.expr);
  }
  if (isTimeIndex) {
    if (!isTimestamp(type)) throw invalidColumnOption(name, 'time index column data type should be timestamp');
    nullable = false;
  }
  const semantic = isTimeIndex ? 'TIMESTAMP' : primaryKey.includes(name) ? 'TAG' : 'FIELD';
  const column: NewColumn = {
    name,
    type,
    semantic,
    nullable,
    defaultSql: normalizeTimestampDefault(type, defaultSql, timezone),
  };
  if (index) column.index = index;
  return column;
}

/** A column index of CREATE TABLE or ALTER TABLE, its options checked and completed. */
export function columnIndexOf(column: string, type: DataType, kind: IndexKind, options: OptionEntry[]): ColumnIndex {
  if (kind === 'fulltext' && type !== 'String') {
    throw invalidColumnOption(column, 'FULLTEXT index only supports string type');
  }
  const fail = (message: string): never => {
    throw invalidColumnOption(column, message);
  };
  return { kind, options: normalizeIndexOptions(kind, options, fail) };
}

/** CREATE TABLE ... LIKE: the source table's columns, keys and options under a new name. */
export function newTableLike(
  stmt: Extract<Statement, { kind: 'create_table_like' }>,
  session: SqlSession,
  env: SqlEnv,
): NewTable {
  const [db, name] = resolveTableName(stmt.name, session);
  if (!NAME_PATTERN.test(name)) throw new DbError(ErrorCode.InvalidArguments, `Invalid table name: ${name}`);
  const [sourceDb, sourceName] = resolveTableName(stmt.source, session);
  const source = env.getTable(sourceDb, sourceName);
  if (!source) throw tableNotFound(sourceDb, sourceName, false);
  return {
    db,
    name,
    columns: source.columns.map((c) => ({
      name: c.name,
      type: c.type,
      semantic: c.semantic,
      nullable: c.nullable,
      defaultSql: c.defaultSql,
      ...(c.index ? { index: c.index } : {}),
    })),
    timeIndex: source.timeIndex,
    primaryKey: [...source.primaryKey],
    options: { ...source.options },
  };
}
