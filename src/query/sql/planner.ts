/**
 * SELECT planning: resolves the table, binds every clause, and splits the work into the fragment
 * each shard runs (scan, WHERE, projection or partial aggregation, top-k) and the router's merge
 * (final aggregation, HAVING, projection, DISTINCT, ORDER BY, LIMIT/OFFSET).
 *
 * Without ORDER BY, rows come back in GreptimeDB's scan order — primary key columns, then the
 * time index — so results do not depend on how series are spread over shards.
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import type { ScanColumn } from '../../shared/scan.js';
import { type DataType, physicalKindOf, type TableSchema } from '../../shared/types.js';
import type { Expr, Ident, ObjectName, Query, SelectItem } from './ast.js';
import { Binder } from './binder.js';
import { planError } from './coercion.js';
import type { SqlEnv, SqlSession } from './env.js';
import { evaluateConstant } from './eval.js';
import { isAggregateName } from './functions/registry.js';
import { exprName, selectItemName } from './naming.js';
import { isNumbersTable, NUMBERS_TABLE } from './numbers-table.js';
import type { MergePlan, PlanExpr, ShardPlan } from './plan.js';
import { planAggregate } from './plan-aggregate.js';
import { type Item, type OrderResolution, resolveOrderBy } from './plan-order.js';
import { normalizeIdent, Scope, type ScopeColumn } from './scope.js';
import { extractPruning } from './time-range.js';
import { arrowNameOf, isInteger } from './type-names.js';

/** The only catalog, as it appears in three-part names and messages. */
export const CATALOG_NAME = 'greptime';

/** Where a query's rows come from. */
export type QuerySource = { kind: 'table'; table: TableSchema } | { kind: 'numbers' } | { kind: 'none' };

/** Everything needed to run a SELECT: result schema, source, shard fragment and merge. */
export interface SelectPlan {
  columns: Array<{ name: string; type: DataType }>;
  source: QuerySource;
  shard: ShardPlan;
  merge: MergePlan;
}

/** `[db, table]` of a (possibly qualified) table name in the session's database. */
export function resolveTableName(name: ObjectName, session: SqlSession): [string, string] {
  const parts = name.map(normalizeIdent);
  if (parts.length === 1) return [session.db, parts[0] as string];
  if (parts.length === 2) return [parts[0] as string, parts[1] as string];
  if (parts.length === 3 && parts[0] === CATALOG_NAME) return [parts[1] as string, parts[2] as string];
  throw new DbError(ErrorCode.TableNotFound, `Table not found: ${parts.join('.')}`);
}

/** GreptimeDB's table-not-found error (prefixed when raised while planning a query). */
export function tableNotFound(db: string, table: string, planning: boolean): DbError {
  return new DbError(
    ErrorCode.TableNotFound,
    `${planning ? 'Failed to plan SQL: ' : ''}Table not found: ${CATALOG_NAME}.${db}.${table}`,
  );
}

function containsAggregate(expr: Expr): boolean {
  switch (expr.kind) {
    case 'function':
      return (
        isAggregateName(normalizeIdent(expr.name[expr.name.length - 1] as Ident)) || expr.args.some(containsAggregate)
      );
    case 'unary':
    case 'nested':
    case 'cast':
      return containsAggregate(expr.expr);
    case 'binary':
      return containsAggregate(expr.left) || containsAggregate(expr.right);
    case 'between':
      return [expr.expr, expr.low, expr.high].some(containsAggregate);
    case 'in_list':
      return [expr.expr, ...expr.list].some(containsAggregate);
    case 'like':
      return containsAggregate(expr.expr) || containsAggregate(expr.pattern);
    case 'is':
      return containsAggregate(expr.expr);
    case 'case':
      return [expr.operand, expr.elseResult, ...expr.whens.flatMap((w) => [w.when, w.result])].some(
        (e) => e !== null && containsAggregate(e),
      );
    default:
      return false;
  }
}

function resolveSource(query: Query, session: SqlSession, env: SqlEnv): { source: QuerySource; scope: Scope | null } {
  const from = query.body.from;
  if (!from) return { source: { kind: 'none' }, scope: null };
  const [db, tableName] = resolveTableName(from.name, session);
  let table = env.getDatabase(db) ? env.getTable(db, tableName) : undefined;
  let source: QuerySource;
  if (table) source = { kind: 'table', table };
  else if (isNumbersTable(db, tableName)) {
    table = NUMBERS_TABLE;
    source = { kind: 'numbers' };
  } else throw tableNotFound(db, tableName, true);
  const alias = from.alias ? normalizeIdent(from.alias) : null;
  const qualifier = alias ? [alias] : from.name.map(normalizeIdent).slice(-2);
  const path = alias ? [alias] : [CATALOG_NAME, db, tableName];
  const columns: ScopeColumn[] = table.columns.map((c) => ({ name: c.name, type: c.type, qualifier, path, schema: c }));
  return { source, scope: new Scope(columns) };
}

function quoted(value: string): Ident {
  return { value, quote: '"' };
}

function expandProjection(projection: SelectItem[], scope: Scope | null): Item[] {
  const items: Item[] = [];
  for (const p of projection) {
    if (p.kind === 'expr') {
      items.push({
        expr: p.expr,
        alias: p.alias ? normalizeIdent(p.alias) : null,
        name: p.alias ? normalizeIdent(p.alias) : selectItemName(p.expr, scope),
      });
      continue;
    }
    if (!scope) throw planError('SELECT * with no tables specified is not valid');
    const qualifier = p.qualifier.map(normalizeIdent);
    let matched = 0;
    for (const c of scope.columns) {
      const tail = c.path.slice(c.path.length - qualifier.length);
      if (qualifier.length > c.path.length || tail.some((x, k) => x !== qualifier[k])) continue;
      matched++;
      items.push({
        expr: { kind: 'identifier', parts: [...c.path.map(quoted), quoted(c.name)] },
        alias: null,
        name: c.name,
      });
    }
    if (matched === 0 && qualifier.length > 0) throw planError(`Invalid qualifier ${qualifier.join('.')}`);
  }
  return items;
}

/** Evaluates a LIMIT or OFFSET expression: a constant non-negative integer, or NULL. */
function constantCount(
  expr: Expr | null,
  what: 'LIMIT' | 'OFFSET',
  session: SqlSession,
  nowNanos: bigint,
): number | null {
  if (!expr) return null;
  const binder = new Binder({
    scope: null,
    timezone: session.timezone,
    aggregateError: (name) =>
      new DbError(ErrorCode.Unsupported, `This feature is not implemented: Unsupported ${what} expression: ${name}`),
  });
  const bound = binder.bind(expr);
  if (bound.type !== 'Null' && !isInteger(bound.type)) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `Error during planning: Expected ${what} to be an integer or null, but got ${arrowNameOf(bound.type)}`,
    );
  }
  const v = evaluateConstant(bound, { nowNanos, timezone: session.timezone });
  if (v === null) return null;
  const n = Number(v);
  if (n < 0)
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `Error during planning: ${what} must be >= 0, '${n}' was provided.`,
    );
  return n;
}

/** Plans a SELECT. `nowNanos` is the statement's start time. */
export function planQuery(query: Query, session: SqlSession, env: SqlEnv, nowNanos: bigint): SelectPlan {
  const select = query.body;
  const { source, scope } = resolveSource(query, session, env);
  const base = new Binder({ scope, timezone: session.timezone, aggregateError: null });
  const filter = select.where
    ? base
        .with((name) => planError(`Aggregate functions are not allowed in the WHERE clause (${name})`))
        .bind(select.where)
    : null;
  if (filter && filter.type !== 'Boolean' && filter.type !== 'Null') {
    throw planError(
      `Cannot create filter with non-boolean predicate '${exprName(select.where as Expr, scope)}' returning ${arrowNameOf(filter.type)}`,
    );
  }
  // WHERE is bound before the projection is expanded, so its errors come first (as in DataFusion).
  const items = expandProjection(select.projection, scope);
  const limit = constantCount(query.limit, 'LIMIT', session, nowNanos);
  const offset = constantCount(query.offset, 'OFFSET', session, nowNanos) ?? 0;

  const hasAggregate =
    items.some((i) => containsAggregate(i.expr)) ||
    (select.having !== null && containsAggregate(select.having)) ||
    query.orderBy.some((o) => containsAggregate(o.expr));
  const aggregateMode = hasAggregate || select.groupBy.length > 0 || select.having !== null || select.distinct;

  const noAggregates = base.with((name) => planError(`Aggregate function ${name} is not allowed here`));
  let shardOutput: ShardPlan['output'];
  let merge: MergePlan;
  let outputs: PlanExpr[];

  if (!aggregateMode) {
    outputs = items.map((i) => noAggregates.bind(i.expr));
    const order = resolveOrderBy(query.orderBy, items, outputs, (e) => noAggregates.bind(e), null);
    if (query.orderBy.length === 0 && source.kind !== 'none' && scope)
      addScanOrder(source, scope, outputs.length, order);
    shardOutput = {
      kind: 'rows',
      exprs: [...outputs, ...order.hidden],
      sort: order.sort,
      limit: limit === null ? null : offset + limit,
    };
    merge = { kind: 'rows', sort: order.sort, offset, limit, visible: outputs.length };
  } else {
    const planned = planAggregate(query, items, scope, base, noAggregates, limit, offset, hasAggregate);
    outputs = planned.outputs;
    shardOutput = planned.shardOutput;
    merge = planned.merge;
  }

  const shard: ShardPlan = {
    version: 1,
    scan: scope && source.kind !== 'none' ? scanOf(source, scope, filter) : null,
    filter,
    nowNanos,
    timezone: session.timezone,
    output: shardOutput,
  };
  return {
    columns: items.map((item, i) => ({ name: item.name, type: (outputs[i] as PlanExpr).type })),
    source,
    shard,
    merge,
  };
}

/** Implicit ORDER BY of a table scan: primary key columns, then the time index (nulls first). */
function addScanOrder(source: QuerySource, scope: Scope, outputCount: number, order: OrderResolution): void {
  const table = source.kind === 'table' ? source.table : NUMBERS_TABLE;
  const names = [...table.primaryKey, ...(table.timeIndex ? [table.timeIndex] : [])];
  for (const name of names) {
    const i = scope.columns.findIndex((c) => c.name === name);
    if (i < 0) continue;
    const column = scope.columns[i] as ScopeColumn;
    order.sort.push({ index: outputCount + order.hidden.length, descending: false, nullsFirst: true });
    order.hidden.push({ kind: 'column', index: scope.slotOf(i), type: column.type });
  }
}

/** The scan request part of the shard plan, with pruning derived from the filter. */
function scanOf(source: QuerySource, scope: Scope, filter: PlanExpr | null): ShardPlan['scan'] {
  const table = source.kind === 'table' ? source.table : NUMBERS_TABLE;
  if (scope.scannedColumns().length === 0) {
    // Something must be read for rows to exist at all (`SELECT count(*)`): the time index is cheapest.
    const ti = scope.columns.findIndex((c) => c.schema?.semantic === 'TIMESTAMP');
    scope.slotOf(Math.max(ti, 0));
  }
  const scanned = scope.scannedColumns();
  const columns: ScanColumn[] = [];
  const types: DataType[] = [];
  const stringTags = new Map<number, number>();
  let time: { slot: number; type: DataType } | null = null;
  scanned.forEach((ci, slot) => {
    const c = scope.columns[ci] as ScopeColumn;
    const schema = c.schema;
    const role = schema?.semantic === 'TIMESTAMP' ? 'time' : schema?.semantic === 'TAG' ? 'tag' : 'field';
    columns.push({ id: schema?.id ?? 0, kind: role === 'tag' ? 'str' : physicalKindOf(c.type), role });
    types.push(c.type);
    if (role === 'time') time = { slot, type: c.type };
    if (role === 'tag' && c.type === 'String' && schema) stringTags.set(slot, schema.id);
  });
  const pruning = extractPruning(filter, { time, stringTags });
  return {
    tableId: table.id,
    columns,
    types,
    timeMin: pruning.timeMin,
    timeMax: pruning.timeMax,
    seriesFilter: pruning.seriesFilter,
  };
}
