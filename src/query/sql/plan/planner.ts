/**
 * SELECT planning: resolves the table, binds every clause, and splits the work into the fragment
 * each shard runs (scan, WHERE, projection or partial aggregation, top-k) and the router's merge
 * (final aggregation, HAVING, projection, DISTINCT, ORDER BY, LIMIT/OFFSET).
 *
 * Without ORDER BY, rows come back in GreptimeDB's scan order — primary key columns, then the
 * time index — so results do not depend on how series are spread over shards.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType, TableSchema } from '../../../shared/types.js';
import { isAggregateName } from '../functions/registry.js';
import type { Expr, Ident, ObjectName, Query, Select, SelectItem, TableFactor } from '../parse/ast.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf, isInteger } from '../types/type-names.js';
import { Binder, type OuterScope, type SubqueryHook } from './binder.js';
import type { SqlEnv, SqlSession } from './env.js';
import { evaluateConstant } from './eval.js';
import { exprName, selectItemName, withAlignFill } from './naming.js';
import { isNumbersTable, NUMBERS_TABLE } from './numbers-table.js';
import type { MergePlan, PlanExpr, ShardPlan, SortKey } from './plan.js';
import { planAggregate } from './plan-aggregate.js';
import { distinctOrderByError, type Item, type OrderResolution, resolveOrderBy } from './plan-order.js';
import { planRange } from './plan-range.js';
import { refuseUnnestIn, unnestArguments, unnestItemType } from './plan-unnest.js';
import { type Relation, scopeColumnsOf } from './relation.js';
import { type QuerySource, type SelectPlan, scanOf } from './scan-of.js';
import { normalizeIdent, Scope, type ScopeColumn } from './scope.js';
import { WindowCollector } from './window-bind.js';

export type { QuerySource, SelectPlan };
export { scanOf };

/** The only catalog, as it appears in three-part names and messages. */
export const CATALOG_NAME = 'greptime';

/** The FROM clause, resolved: the source and a factory of fresh scopes over its columns. */
export interface FromInput {
  source: QuerySource;
  /** A fresh scope (scopes assign scan slots as expressions bind, so each plan needs its own). */
  scope(): Scope | null;
}

/** Hooks for what only the router can do, passed down from query-exec.ts. */
export interface PlanHooks {
  subqueries?: SubqueryHook | undefined;
  outer?: OuterScope | null | undefined;
  /** Table comments by table id (`obj_description`), from the catalog. */
  tableComments?: (() => Array<[id: number, comment: string]>) | undefined;
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

/** True when an expression contains an aggregate call (not counting window functions). */
export function containsAggregate(expr: Expr): boolean {
  switch (expr.kind) {
    case 'function':
      return (
        (!expr.over && isAggregateName(normalizeIdent(expr.name[expr.name.length - 1] as Ident))) ||
        expr.args.some(containsAggregate)
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
    case 'in_subquery':
      return containsAggregate(expr.expr);
    case 'like':
      return containsAggregate(expr.expr) || containsAggregate(expr.pattern);
    case 'is':
      return containsAggregate(expr.expr);
    case 'is_distinct':
      return containsAggregate(expr.left) || containsAggregate(expr.right);
    case 'case':
      return [expr.operand, expr.elseResult, ...expr.whens.flatMap((w) => [w.when, w.result])].some(
        (e) => e !== null && containsAggregate(e),
      );
    default:
      return false;
  }
}

/** True when an expression contains a window function call. */
export function containsWindow(expr: Expr): boolean {
  switch (expr.kind) {
    case 'function':
      return expr.over !== undefined || expr.args.some(containsWindow);
    case 'unary':
    case 'nested':
    case 'cast':
      return containsWindow(expr.expr);
    case 'binary':
      return containsWindow(expr.left) || containsWindow(expr.right);
    case 'case':
      return [expr.operand, expr.elseResult, ...expr.whens.flatMap((w) => [w.when, w.result])].some(
        (e) => e !== null && containsWindow(e),
      );
    default:
      return false;
  }
}

/** Scope columns of a stored table (or `numbers`) as FROM names it. */
export function tableScopeColumns(
  table: TableSchema,
  db: string,
  written: ObjectName,
  alias: Ident | null,
): ScopeColumn[] {
  const aliasName = alias ? normalizeIdent(alias) : null;
  const qualifier = aliasName ? [aliasName] : written.map(normalizeIdent).slice(-2);
  const path = aliasName ? [aliasName] : [CATALOG_NAME, db, table.name];
  return table.columns.map((c) => ({ name: c.name, type: c.type, qualifier, path, schema: c }));
}

/** The stored table (or `numbers`) a FROM name refers to, or GreptimeDB's not-found error. */
export function lookupStoredTable(
  name: ObjectName,
  session: SqlSession,
  env: SqlEnv,
): { db: string; table: TableSchema; source: QuerySource } {
  const [db, tableName] = resolveTableName(name, session);
  const table = env.getDatabase(db) ? env.getTable(db, tableName) : undefined;
  if (table) return { db, table, source: { kind: 'table', table } };
  if (isNumbersTable(db, tableName)) return { db, table: NUMBERS_TABLE, source: { kind: 'numbers' } };
  throw tableNotFound(db, tableName, true);
}

/** FROM of one stored table: the shard pushdown path. */
export function tableInput(
  factor: Extract<TableFactor, { kind: 'table' }>,
  session: SqlSession,
  env: SqlEnv,
): FromInput {
  const { db, table, source } = lookupStoredTable(factor.name, session, env);
  if (factor.columnAliases && factor.columnAliases.length > 0) {
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: column aliases of stored tables');
  }
  const columns = tableScopeColumns(table, db, factor.name, factor.alias);
  return { source, scope: () => new Scope(columns) };
}

/** FROM of rows held in the router. */
export function relationInput(relation: Relation): FromInput {
  const columns = scopeColumnsOf(relation);
  return { source: { kind: 'relation', relation }, scope: () => new Scope(columns) };
}

/** No FROM: one empty row. */
export const NO_FROM: FromInput = { source: { kind: 'none' }, scope: () => null };

function quoted(value: string): Ident {
  return { value, quote: '"' };
}

/** The SELECT list with `*` and `t.*` expanded to column references. */
export function expandProjection(projection: SelectItem[], scope: Scope | null): Item[] {
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
export function constantCount(
  expr: Expr | null,
  what: 'LIMIT' | 'OFFSET',
  session: SqlSession,
  nowNanos: bigint,
  hooks: PlanHooks = {},
): number | null {
  if (!expr) return null;
  const binder = new Binder({
    scope: null,
    timezone: session.timezone,
    aggregateError: (name) =>
      new DbError(ErrorCode.Unsupported, `This feature is not implemented: Unsupported ${what} expression: ${name}`),
    subqueries: hooks.subqueries,
  });
  const bound = binder.bind(expr);
  let inner = expr;
  while (inner.kind === 'nested') inner = inner.expr;
  if (inner.kind === 'subquery' && (bound.type === 'Null' || isInteger(bound.type))) {
    // DataFusion takes only literal counts; a subquery of the right type is still refused.
    throw new DbError(
      ErrorCode.Unsupported,
      `This feature is not implemented: Unsupported ${what} expression: Some(ScalarSubquery(<subquery>))`,
    );
  }
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
      // The value as written: Number() would print -9223372036854775808 as -9223372036854776000.
      `Error during planning: ${what} must be >= 0, '${String(v)}' was provided.`,
    );
  return n;
}

/** Plans a SELECT whose FROM is already resolved. `nowNanos` is the statement's start time. */
export function planSelect(
  query: Query,
  select: Select,
  input: FromInput,
  session: SqlSession,
  nowNanos: bigint,
  hooks: PlanHooks = {},
): SelectPlan {
  const { source } = input;
  const scope = input.scope();
  const windows = new WindowCollector();
  const base = new Binder({
    scope,
    timezone: session.timezone,
    database: session.db,
    // GreptimeDB's user when authentication is off (`DEFAULT_USERNAME`).
    user: session.user ?? 'greptime',
    tableComments: hooks.tableComments,
    aggregateError: null,
    subqueries: hooks.subqueries,
    outer: hooks.outer,
  });
  refuseUnnestIn(select.where);
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
  const items = withAlignFill(select.align?.fill ?? null, () => expandProjection(select.projection, scope));
  const limit = constantCount(query.limit, 'LIMIT', session, nowNanos, hooks);
  const offset = constantCount(query.offset, 'OFFSET', session, nowNanos, hooks) ?? 0;

  if (select.align) {
    return planRange(query, select, items, { source, scope, filter, base, limit, offset, session, nowNanos });
  }

  const hasWindow = items.some((i) => containsWindow(i.expr)) || query.orderBy.some((o) => containsWindow(o.expr));
  const hasAggregate =
    items.some((i) => containsAggregate(i.expr)) ||
    (select.having !== null && containsAggregate(select.having)) ||
    query.orderBy.some((o) => containsAggregate(o.expr));
  // DISTINCT over window results comes after the windows: the rows path drops repeated output
  // rows in the router once they are computed. Taken as a GROUP BY of the outputs, the shards
  // were asked to group by window values they cannot compute.
  const distinctAfterWindows =
    select.distinct && hasWindow && !hasAggregate && select.groupBy.length === 0 && select.having === null;
  const aggregateMode =
    hasAggregate || select.groupBy.length > 0 || select.having !== null || (select.distinct && !distinctAfterWindows);
  const windowBinder = hasWindow ? windows.binder(base) : base;

  const noAggregates = windowBinder.with((name) => planError(`Aggregate function ${name} is not allowed here`));
  let shardOutput: ShardPlan['output'];
  let merge: MergePlan;
  let outputs: PlanExpr[];

  if (select.distinctOn && (aggregateMode || hasWindow)) {
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: DISTINCT ON with aggregates or windows');
  }
  const unnestArgs = unnestArguments(query, select, items, !aggregateMode && !hasWindow);
  const unnestTypes: Array<DataType | undefined> = [];
  if (!aggregateMode) {
    outputs = items.map((i, k) => {
      const arg = unnestArgs?.[k];
      if (arg === undefined) return noAggregates.bind(i.expr);
      const list = noAggregates.bind(arg);
      unnestTypes[k] = unnestItemType(list);
      return list;
    });
    const distinctError = distinctAfterWindows ? distinctOrderByError(scope) : null;
    const order = resolveOrderBy(query.orderBy, items, outputs, (e) => noAggregates.bind(e), distinctError);
    const distinctOn = select.distinctOn
      ? distinctOnColumns(select.distinctOn, order, items, outputs, (e) => noAggregates.bind(e))
      : undefined;
    if (source.kind !== 'none' && source.kind !== 'relation' && scope) {
      // Without ORDER BY rows come in scan order; with it, scan order breaks ties.
      addScanOrder(source, scope, outputs.length, order);
    }
    const shardLimit = hasWindow || distinctOn || unnestArgs ? null : limit === null ? null : offset + limit;
    const exprs = [...outputs, ...order.hidden];
    shardOutput = {
      kind: 'rows',
      exprs,
      sort: hasWindow ? [] : order.sort,
      limit: shardLimit,
      scanOrdered: !hasWindow && scope !== null && scanYieldsOrder(source, scope, exprs, order.sort),
    };
    // Columns past the outputs serve the merge's sort only, unless windows, DISTINCT or UNNEST read them.
    if (!hasWindow && !distinctOn && !distinctAfterWindows && !unnestArgs) shardOutput.visible = outputs.length;
    merge = { kind: 'rows', sort: order.sort, offset, limit, visible: outputs.length };
    if (distinctOn) merge.distinctOn = distinctOn;
    else if (distinctAfterWindows) merge.distinctOn = outputs.map((_, k) => k);
    if (unnestArgs) merge.unnest = unnestTypes.flatMap((t, k) => (t === undefined ? [] : [k]));
  } else {
    const planned = planAggregate(query, items, scope, windowBinder, noAggregates, limit, offset, hasAggregate, {
      implicitOrder: once(() => implicitAggregateOrder(source, scope)),
    });
    outputs = planned.outputs;
    shardOutput = planned.shardOutput;
    merge = planned.merge;
  }

  const scan =
    scope && source.kind !== 'none' ? scanOf(source, scope, filter, { nowNanos, timezone: session.timezone }) : null;
  if (hasWindow) {
    if (merge.kind === 'rows' && shardOutput.kind === 'rows') {
      // Shards return their scan columns; windows and outputs are computed in the router.
      const slots = scan ? scan.types.length : 0;
      const extracted = windows.finish(shardOutput.exprs, slots);
      merge.windowed = extracted;
      shardOutput = {
        kind: 'rows',
        exprs: (scan?.types ?? []).map((type, index) => ({ kind: 'column', index, type })),
        sort: [],
        limit: null,
      };
    } else if (merge.kind === 'aggregate') {
      const extracted = windows.finish(merge.outputs, merge.groupCount + merge.aggregates.length);
      merge.outputs = extracted.outputs;
      merge.windows = extracted.windows;
    }
  }
  const shard: ShardPlan = {
    version: 1,
    scan,
    filter,
    nowNanos,
    timezone: session.timezone,
    output: shardOutput,
  };
  return {
    columns: items.map((item, i) => ({ name: item.name, type: unnestTypes[i] ?? (outputs[i] as PlanExpr).type })),
    source,
    shard,
    merge,
  };
}

/**
 * The columns of DISTINCT ON, which must match the leading ORDER BY keys (DataFusion's rule);
 * expressions that are not result columns become hidden columns.
 */
function distinctOnColumns(
  exprs: Expr[],
  order: OrderResolution,
  items: Item[],
  outputs: PlanExpr[],
  bind: (e: Expr) => PlanExpr,
): number[] {
  const resolved = resolveOrderBy(
    exprs.map((expr) => ({ expr, asc: null, nullsFirst: null })),
    items,
    [...outputs, ...order.hidden],
    bind,
    null,
  );
  for (const h of resolved.hidden) order.hidden.push(h);
  const columns = resolved.sort.map((k) => k.index);
  const userKeys = order.sort.slice(0, columns.length).map((k) => k.index);
  if (order.sort.length > 0 && columns.some((c, i) => userKeys[i] !== c)) {
    throw planError('SELECT DISTINCT ON expressions must match initial ORDER BY expressions');
  }
  return columns;
}

/**
 * Plans a SELECT over one stored table, `numbers` or nothing: the shard pushdown path. Used for
 * simple queries; query-exec.ts resolves anything else.
 */
export function planQuery(query: Query, session: SqlSession, env: SqlEnv, nowNanos: bigint): SelectPlan {
  if (query.body.kind !== 'select') throw new Error('planQuery takes a plain SELECT');
  const from = query.body.from;
  let input: FromInput = NO_FROM;
  if (from) {
    if (from.kind !== 'table') throw new Error('planQuery takes a single stored table');
    input = tableInput(from, session, env);
  }
  return planSelect(query, query.body, input, session, nowNanos);
}

/** `f` called at most once, its result kept. */
function once<T>(f: () => T): () => T {
  let result: { value: T } | undefined;
  return () => {
    result ??= { value: f() };
    return result.value;
  };
}

/**
 * Ordering that makes `first_value`/`last_value` without ORDER BY deterministic over shards: scan
 * order (primary key, then time index). Rows of a relation come in one stream and need none.
 */
function implicitAggregateOrder(source: QuerySource, scope: Scope | null): PlanExpr[] {
  if (!scope || (source.kind !== 'table' && source.kind !== 'numbers')) return [];
  const table = source.kind === 'table' ? source.table : NUMBERS_TABLE;
  const names = [...table.primaryKey, ...(table.timeIndex ? [table.timeIndex] : [])];
  const out: PlanExpr[] = [];
  for (const name of names) {
    const i = scope.columns.findIndex((c) => c.name === name && c.schema !== null);
    if (i >= 0) out.push({ kind: 'column', index: scope.slotOf(i), type: (scope.columns[i] as ScopeColumn).type });
  }
  return out;
}

/**
 * Whether a shard's scan of `source` yields rows already sorted by `sort`: a table without
 * primary key is one series, which the scan reads in time order, so a sort by the time index
 * alone, ascending, is the scan order (ties between equal timestamps keep scan order).
 */
function scanYieldsOrder(source: QuerySource, scope: Scope, exprs: PlanExpr[], sort: SortKey[]): boolean {
  if (source.kind !== 'table' || source.table.primaryKey.length > 0 || !source.table.timeIndex) return false;
  const key = sort[0];
  if (sort.length !== 1 || key === undefined || key.descending) return false;
  const e = exprs[key.index];
  const i = scope.columns.findIndex((c) => c.name === source.table.timeIndex && c.schema !== null);
  return e !== undefined && i >= 0 && e.kind === 'column' && e.index === scope.slotOf(i);
}

/** Implicit ORDER BY of a table scan: primary key columns, then the time index (nulls first). */
function addScanOrder(source: QuerySource, scope: Scope, outputCount: number, order: OrderResolution): void {
  if (source.kind !== 'table' && source.kind !== 'numbers') return;
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
