/**
 * ALTER TABLE: the checks GreptimeDB makes and the new table shape they produce, which the
 * catalog (behind `SqlEnv.alterTable`) stores atomically. Storage needs nothing: it keys columns
 * by id, so an added column reads NULL for older rows, a dropped column's data is never read
 * again (a re-added name gets a new id), and a renamed table keeps its id and data.
 *
 * Forms: ADD [COLUMN] [IF NOT EXISTS] def [FIRST | AFTER c] (several, comma-separated),
 * DROP [COLUMN] c, RENAME [TO] t, MODIFY [COLUMN] c type, MODIFY [COLUMN] c SET DEFAULT e |
 * DROP DEFAULT (several), MODIFY [COLUMN] c SET {FULLTEXT | INVERTED | SKIPPING} INDEX [WITH(...)] |
 * UNSET ... INDEX, SET 'k' = 'v' [, ...], UNSET 'k' [, ...]. A column holds one index.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { checkTtlOption, parseTtlMs, tryTtlMs } from '../../../shared/ttl.js';
import {
  type ColumnSchema,
  type DataType,
  isBinaryLike,
  physicalKindOf,
  type TableSchema,
} from '../../../shared/types.js';
import type { EvalContext } from '../functions/types.js';
import type { AlterOperation, Statement } from '../parse/ast.js';
import type { AlteredTable, NewColumn, SqlEnv, SqlSession } from '../plan/env.js';
import { defaultValueOf } from '../plan/insert-values.js';
import { CATALOG_NAME, resolveTableName, tableNotFound } from '../plan/planner.js';
import { normalizeIdent } from '../plan/scope.js';
import { dataTypeOfSql, sqlNameOf } from '../types/type-names.js';
import { columnIndexOf, defaultSqlOf, NAME_PATTERN, newColumnOf, normalizeTimestampDefault } from './ddl.js';

type Column = AlteredTable['columns'][number];

/** Types whose stored values a later type can be cast from: plain scalars, not Json/Binary/lists. */
function isRecastable(type: DataType): boolean {
  return type !== 'Json' && !isBinaryLike(type) && !type.startsWith('List<') && !type.startsWith('Decimal(');
}

/** Table options ALTER TABLE SET/UNSET may change (GreptimeDB's mutable region options). */
const MUTABLE_OPTIONS = /^(ttl|comment|sst_format|skip_wal|compaction\..+|append_mode|memtable\..+)$/;

function invalidAlter(table: string, reason: string): DbError {
  return new DbError(ErrorCode.InvalidArguments, `Invalid alter table(${table}) request: ${reason}`);
}

function columnIndex(columns: Column[], name: string, table: string): number {
  const i = columns.findIndex((c) => c.name === name);
  if (i < 0) throw new DbError(ErrorCode.TableColumnNotFound, `Column ${name} not exists in table ${table}`);
  return i;
}

/** Checks that a column's default gives a value of its type (as CREATE TABLE does). */
function checkDefault(column: Column, ctx: EvalContext): void {
  if (column.defaultSql === undefined) return;
  defaultValueOf({ ...column, id: column.id ?? 0 } as ColumnSchema, ctx);
}

function applyOperation(
  op: AlterOperation,
  table: TableSchema,
  next: AlteredTable,
  session: SqlSession,
  env: SqlEnv,
  ctx: EvalContext,
): void {
  const tableName = table.name;
  switch (op.kind) {
    case 'add_column': {
      const name = normalizeIdent(op.column.name);
      if (next.columns.some((c) => c.name === name)) {
        if (op.ifNotExists) return;
        throw new DbError(ErrorCode.TableColumnExists, `Column ${name} already exists in table ${tableName}`);
      }
      if (op.column.options.some((o) => o.kind === 'time_index')) {
        throw invalidAlter(tableName, `cannot add time index column ${name}`);
      }
      if (dataTypeOfSql(op.column.dataType) === 'IntervalMonthDayNano') {
        throw new DbError(ErrorCode.Unsupported, 'Not supported: Add column with interval type');
      }
      const isKey = op.column.options.some((o) => o.kind === 'primary_key');
      const column: NewColumn = newColumnOf(
        op.column,
        next.columns.find((c) => c.semantic === 'TIMESTAMP')?.name ?? '',
        isKey ? [name] : [],
        session.timezone,
      );
      if (!column.nullable && column.defaultSql === undefined) {
        throw invalidAlter(tableName, `no default value for non-null column ${name}`);
      }
      checkDefault(column, ctx);
      let at = next.columns.length;
      if (op.location?.kind === 'first') at = 0;
      else if (op.location?.kind === 'after')
        at = columnIndex(next.columns, normalizeIdent(op.location.column), tableName) + 1;
      next.columns.splice(at, 0, column);
      if (isKey) next.primaryKey.push(name);
      return;
    }
    case 'drop_column': {
      const name = normalizeIdent(op.name);
      const i = columnIndex(next.columns, name, tableName);
      const column = next.columns[i] as Column;
      if (column.semantic !== 'FIELD') {
        throw new DbError(
          ErrorCode.InvalidArguments,
          `Not allowed to remove index column ${name} from table ${tableName}`,
        );
      }
      next.columns.splice(i, 1);
      return;
    }
    case 'rename_table': {
      const name = normalizeIdent(op.newName);
      if (!NAME_PATTERN.test(name)) {
        throw new DbError(ErrorCode.Unexpected, `Unexpected, violated: Invalid table name: ${name}`);
      }
      if (name === table.name || env.getTable(table.db, name)) {
        throw new DbError(
          ErrorCode.TableAlreadyExists,
          `Table already exists, table: ${CATALOG_NAME}.${table.db}.${name}`,
        );
      }
      next.name = name;
      return;
    }
    case 'modify_column_type': {
      const name = normalizeIdent(op.name);
      const column = next.columns[columnIndex(next.columns, name, tableName)] as Column;
      const type = dataTypeOfSql(op.dataType);
      if (type === 'IntervalMonthDayNano') {
        throw new DbError(ErrorCode.Unsupported, 'Not supported: Modify column type to interval type');
      }
      if (column.semantic !== 'FIELD') {
        throw invalidAlter(tableName, `column ${name} is a tag or the time index; only fields can change type`);
      }
      if (physicalKindOf(type) !== physicalKindOf(column.type)) {
        if (!isRecastable(type) || !isRecastable(column.type)) {
          throw new DbError(
            ErrorCode.Unsupported,
            `Not supported: changing column ${name} from ${sqlNameOf(column.type)} to ${sqlNameOf(type)}`,
          );
        }
        // Stored rows keep their old kind; reads cast them (planner.ts). One prior type per kind,
        // the newest, since that is what the latest rows of that kind were written as.
        const priors = [...(column.priorTypes ?? []), column.type].filter(
          (t) => physicalKindOf(t) !== physicalKindOf(type),
        );
        column.priorTypes = priors.filter(
          (t, i) => !priors.slice(i + 1).some((later) => physicalKindOf(later) === physicalKindOf(t)),
        );
      }
      column.type = type;
      checkDefault(column, ctx);
      return;
    }
    case 'set_default': {
      const name = normalizeIdent(op.name);
      const column = next.columns[columnIndex(next.columns, name, tableName)] as Column;
      let e = op.expr;
      while (e.kind === 'nested') e = e.expr;
      if (e.kind === 'null') {
        if (!column.nullable) {
          throw new DbError(ErrorCode.InvalidArguments, 'Default value should not be null for non null column');
        }
        column.defaultSql = undefined;
        return;
      }
      column.defaultSql = normalizeTimestampDefault(column.type, defaultSqlOf(name, op.expr), session.timezone);
      checkDefault(column, ctx);
      return;
    }
    case 'drop_default': {
      const name = normalizeIdent(op.name);
      const column = next.columns[columnIndex(next.columns, name, tableName)] as Column;
      if (!column.nullable)
        throw invalidAlter(tableName, `column ${name} is not nullable and \`default\` cannot be dropped`);
      column.defaultSql = undefined;
      return;
    }
    case 'set_index': {
      const name = normalizeIdent(op.name);
      const column = next.columns[columnIndex(next.columns, name, tableName)] as Column;
      column.index = columnIndexOf(name, column.type, op.index, op.options);
      return;
    }
    case 'unset_index': {
      const name = normalizeIdent(op.name);
      const column = next.columns[columnIndex(next.columns, name, tableName)] as Column;
      if (column.index?.kind === op.index) column.index = undefined;
      return;
    }
    case 'set_options':
      for (const o of op.options) {
        const key = o.key.toLowerCase();
        if (!MUTABLE_OPTIONS.test(key)) {
          throw new DbError(ErrorCode.InvalidArguments, `Invalid set table option request: invalid key: ${o.key}`);
        }
        if (key === 'ttl') parseTtlMs(o.value, 'table');
        next.options[key] = o.value;
      }
      return;
    case 'unset_options':
      for (const k of op.keys) {
        const key = k.toLowerCase();
        if (!MUTABLE_OPTIONS.test(key)) {
          throw new DbError(ErrorCode.InvalidArguments, `Invalid unset table option request: invalid key: ${k}`);
        }
        delete next.options[key];
      }
      return;
  }
}

/** Database options ALTER DATABASE may set or unset (GreptimeDB's: the default ttl, compaction). */
const DATABASE_OPTIONS = /^(ttl|compaction\..+)$/;

/** Executes ALTER DATABASE SET / UNSET: every key checked, then the options stored at once. */
export async function executeAlterDatabase(
  stmt: Extract<Statement, { kind: 'alter_database' }>,
  env: SqlEnv,
): Promise<void> {
  const name = stmt.name.map(normalizeIdent).join('.');
  const db = env.getDatabase(name);
  if (!db) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${name}`);
  const options = { ...db.options };
  const op = stmt.operation;
  const verb = op.kind === 'set_options' ? 'set' : 'unset';
  const refuse = (key: string, value?: string): never => {
    const shown = value === undefined ? '' : `, value: ${value}`;
    throw new DbError(ErrorCode.InvalidArguments, `Invalid ${verb} database option, key: ${key}${shown}`);
  };
  if (op.kind === 'set_options') {
    for (const o of op.options) {
      const key = o.key.toLowerCase();
      if (!DATABASE_OPTIONS.test(key)) refuse(o.key, o.value);
      // A database default that stores nothing is refused here as GreptimeDB does (its sqlness show_ttl).
      if (key === 'ttl' && tryTtlMs(o.value) === 0) refuse(o.key, o.value);
      options[key] = o.value;
    }
    checkTtlOption(options, 'database');
  } else {
    for (const k of op.keys) if (!DATABASE_OPTIONS.test(k.toLowerCase())) refuse(k);
    for (const k of op.keys) delete options[k.toLowerCase()];
  }
  await env.alterDatabase(name, options);
}

/** Executes ALTER TABLE: checks every operation against the evolving shape, then stores it once. */
export async function executeAlter(
  stmt: Extract<Statement, { kind: 'alter_table' }>,
  session: SqlSession,
  env: SqlEnv,
  ctx: EvalContext,
): Promise<void> {
  const [db, name] = resolveTableName(stmt.name, session);
  const table = env.getDatabase(db) ? env.getTable(db, name) : undefined;
  if (!table) throw tableNotFound(db, name, false);
  const next: AlteredTable = {
    name: table.name,
    columns: table.columns.map((c) => ({ ...c })),
    primaryKey: [...table.primaryKey],
    options: { ...table.options },
  };
  for (const op of stmt.operations) applyOperation(op, table, next, session, env, ctx);
  await env.alterTable(db, table.name, next);
}
