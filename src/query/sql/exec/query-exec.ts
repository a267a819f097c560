/**
 * Query execution in the router: WITH, set operations, FROM resolution and subqueries around the
 * SELECT planner.
 *
 *   runQuery → CTEs in scope → body:
 *     SELECT      → FROM: one stored table → pushdown (planSelect → env.scatter → merge)
 *                         anything else    → materialise (scans through the shards, joins,
 *                                            derived tables, CTEs) → planSelect over the relation
 *                                            → runPlanOnBatches in the router → merge
 *     set op      → both sides → combineSet → ORDER BY / LIMIT over the result
 *     (query)     → the inner query, then the outer ORDER BY / LIMIT
 *
 * Subqueries in expressions are run first (subquery.ts) and bound as data.
 */

import { DbError, ErrorCode } from '../../../shared/errors.js';
import { ROUTER_SLICE_MS, TimeSlice } from '../../../shared/time-slice.js';
import { inSpan } from '../../../shared/tracing/active-tracer.js';
import { type ColumnTable, columnBytes, tableRows, tableRowsNow } from '../../columns.js';
import type { ResultColumn } from '../../result.js';
import type { Expr, Ident, Query, QueryBody, Select, TableFactor } from '../parse/ast.js';
import { exprChildren } from '../parse/expr-children.js';
import type { OuterScope } from '../plan/binder.js';
import type { SqlEnv, SqlSession } from '../plan/env.js';
import { CELL_BYTES, GROUP_BYTES, MemoryBudget } from '../plan/memory-budget.js';
import { numbersSource } from '../plan/numbers-table.js';
import type { ShardResult } from '../plan/plan.js';
import {
  containsAggregate,
  type FromInput,
  lookupStoredTable,
  NO_FROM,
  type PlanHooks,
  planSelect,
  relationInput,
  resolveTableName,
  type SelectPlan,
  tableInput,
  tableNotFound,
  tableScopeColumns,
} from '../plan/planner.js';
import { aliasRelation, type Relation, relationBatch, relationOfRows, rowsOf } from '../plan/relation.js';
import { normalizeIdent, Scope } from '../plan/scope.js';
import { planError } from '../types/coercion.js';
import type { Value } from '../types/values.js';
import { INFORMATION_SCHEMA, informationSchemaRelation } from './information-schema.js';
import { joinRelations } from './join.js';
import { mergeShardResults } from './merge.js';
import { combineSet } from './set-ops.js';
import { runPlanOnBatches, runShardPlan } from './shard-exec.js';
import { collectSubqueries, type QueryRows, SubqueryResolutions } from './subquery.js';

/** Most iterations a recursive CTE may take before it is refused. */
const RECURSIVE_CTE_ITERATIONS_MAX = 10_000;

/** A CTE in scope: its definition, the scope it was defined in, and its result once computed. */
interface CteBinding {
  name: string;
  columns: Ident[];
  query: Query;
  ctx: QueryContext;
  recursive: boolean;
  result: Promise<Relation> | null;
}

/** What running a query needs: session, environment, statement time, CTEs and outer rows. */
export interface QueryContext {
  session: SqlSession;
  env: SqlEnv;
  now: bigint;
  ctes: Map<string, CteBinding>;
  /** The enclosing queries' scopes, for correlated subqueries. */
  outer: OuterScope | null;
  /** What the router side of the statement may hold (shard results, join outputs). */
  budget: MemoryBudget;
  /**
   * Long router-side steps (joins, set operations, windows) work in slices of this, so the event
   * loop keeps serving.
   */
  slice: TimeSlice;
}

/**
 * A query's result. A SELECT asked for columns (`runQuery`'s `columnar`) also carries them as
 * merged, and its `rows` are then only made when read.
 */
export interface QueryResult {
  columns: ResultColumn[];
  rows: Value[][];
  table?: ColumnTable | undefined;
}

/** A source with no rows, for plans that never scan (they carry `scan: null`). */
const NO_TABLE = { scan: () => [] };

function checkAborted(session: SqlSession): void {
  if (session.signal?.aborted) throw new DbError(ErrorCode.Cancelled, 'Query was cancelled');
}

/** A fresh context for a top-level statement. */
export function queryContext(session: SqlSession, env: SqlEnv, now: bigint): QueryContext {
  return {
    session,
    env,
    now,
    ctes: new Map(),
    outer: null,
    budget: new MemoryBudget(session.memoryLimitBytes),
    slice: new TimeSlice(ROUTER_SLICE_MS, () => checkAborted(session)),
  };
}

/**
 * Runs a query: WITH, body, ORDER BY, LIMIT. `columnar`: the caller (a statement's output) reads
 * `table` when there is one, so a SELECT's rows need not be built here.
 */
export async function runQuery(query: Query, ctx: QueryContext, columnar = false): Promise<QueryResult> {
  const inner = withCtes(query, ctx);
  if (query.body.kind === 'select') return runSelect(query, query.body, inner, undefined, columnar);
  const relation = await runBody(query.body, inner);
  if (query.orderBy.length === 0 && query.limit === null && query.offset === null)
    return resultOf(relation, inner.slice);
  return orderRelation(relation, query, inner, query.body.kind === 'set_operation' && !query.body.all);
}

function withCtes(query: Query, ctx: QueryContext): QueryContext {
  if (!query.with) return ctx;
  const ctes = new Map(ctx.ctes);
  const seen = new Set<string>();
  const inner: QueryContext = { ...ctx, ctes };
  for (const cte of query.with.ctes) {
    const name = normalizeIdent(cte.name);
    if (seen.has(name)) throw planError(`WITH query name "${name}" specified more than once`);
    seen.add(name);
    // Each CTE sees the ones defined before it (and itself, when recursive).
    const definedIn: QueryContext = { ...ctx, ctes: new Map(ctes) };
    const binding: CteBinding = {
      name,
      columns: cte.columns,
      query: cte.query,
      ctx: definedIn,
      recursive: query.with.recursive,
      result: null,
    };
    ctes.set(name, binding);
    if (binding.recursive) definedIn.ctes.set(name, binding);
  }
  return inner;
}

async function resultOf(relation: Relation, slice: TimeSlice): Promise<QueryResult> {
  return {
    columns: relation.columns.map((c) => ({ name: c.name, type: c.type })),
    rows: await rowsOf(relation, slice),
  };
}

async function runBody(body: QueryBody, ctx: QueryContext): Promise<Relation> {
  switch (body.kind) {
    case 'select': {
      const result = await runSelect({ body, orderBy: [], limit: null, offset: null }, body, ctx);
      return relationOfRows(result.columns, result.rows, ctx.slice);
    }
    case 'nested_query': {
      const result = await runQuery(body.query, ctx);
      return relationOfRows(result.columns, result.rows, ctx.slice);
    }
    case 'set_operation': {
      const left = await runBody(body.left, ctx);
      const right = await runBody(body.right, ctx);
      return combineSet(body.op, body.all, left, right, ctx.slice);
    }
  }
}

/** ORDER BY / LIMIT / OFFSET over a materialised result (set operations, parenthesised queries). */
async function orderRelation(
  relation: Relation,
  query: Query,
  ctx: QueryContext,
  distinct: boolean,
): Promise<QueryResult> {
  const select: Select = {
    kind: 'select',
    distinct: false,
    projection: [{ kind: 'wildcard', qualifier: [] }],
    from: null,
    where: null,
    groupBy: [],
    having: null,
  };
  const outer: Query = { body: select, orderBy: query.orderBy, limit: query.limit, offset: query.offset };
  try {
    return await runSelect(outer, select, ctx, relationInput(relation));
  } catch (err) {
    // Over a distinct result, ORDER BY may only name output columns (DataFusion's wording).
    const missing = err instanceof DbError ? /No field named ([^.\s]+)\./.exec(err.message) : null;
    if (distinct && missing) {
      throw planError(`For SELECT DISTINCT, ORDER BY expressions ${missing[1]} must appear in select list`);
    }
    throw err;
  }
}

/** `information_schema.<view>` (as FROM names it), or null when the name is not one. */
async function virtualTable(
  factor: Extract<TableFactor, { kind: 'table' }>,
  ctx: QueryContext,
): Promise<Relation | null> {
  const [db, name] = resolveTableName(factor.name, ctx.session);
  if (db !== INFORMATION_SCHEMA) return null;
  const relation = await informationSchemaRelation(name, ctx.env);
  if (!relation) throw tableNotFound(db, name, true);
  return factor.alias || factor.columnAliases ? aliasRelation(relation, factor.alias, factor.columnAliases) : relation;
}

/**
 * Scans a stored table (columns as FROM names them), for joins and correlation. `where` holds
 * WHERE conjuncts that read only this table: they run in the shards, with time and tag pruning.
 */
async function scanTable(
  factor: Extract<TableFactor, { kind: 'table' }>,
  ctx: QueryContext,
  where: Expr | null = null,
): Promise<Relation> {
  const virtual = await virtualTable(factor, ctx);
  if (virtual) return virtual;
  const { db, table } = lookupStoredTable(factor.name, ctx.session, ctx.env);
  const select: Select = {
    kind: 'select',
    distinct: false,
    projection: [{ kind: 'wildcard', qualifier: [] }],
    from: factor,
    where,
    groupBy: [],
    having: null,
  };
  const result = await runSelect(
    { body: select, orderBy: [], limit: null, offset: null },
    select,
    ctx,
    tableInput(factor, ctx.session, ctx.env),
  );
  const columns = tableScopeColumns(table, db, factor.name, factor.alias);
  return {
    columns: columns.map((c) => ({ name: c.name, type: c.type, qualifier: c.qualifier, path: c.path })),
    values: columns.map((_, c) => result.rows.map((r) => r[c] as Value)),
    rowCount: result.rows.length,
  };
}

async function cteRelation(binding: CteBinding): Promise<Relation> {
  if (!binding.result) binding.result = computeCte(binding);
  return binding.result;
}

async function computeCte(binding: CteBinding): Promise<Relation> {
  const { query, ctx } = binding;
  const rename = (r: Relation): Relation => aliasRelation(r, null, binding.columns, []);
  const body = query.body;
  if (!binding.recursive || body.kind !== 'set_operation' || body.op !== 'UNION') {
    const result = await runQuery(query, { ...ctx, ctes: withoutSelf(ctx, binding) });
    return rename(await relationOfRows(result.columns, result.rows, ctx.slice));
  }
  // WITH RECURSIVE: the anchor, then the recursive term over the rows found last, until none.
  const anchorCtx = { ...ctx, ctes: withoutSelf(ctx, binding) };
  const anchor = rename(await runBody(body.left, anchorCtx));
  let all = anchor;
  let working = anchor;
  for (let i = 0; working.rowCount > 0; i++) {
    if (i >= RECURSIVE_CTE_ITERATIONS_MAX) {
      throw new DbError(
        ErrorCode.EngineExecuteQuery,
        `Recursive query exceeded ${RECURSIVE_CTE_ITERATIONS_MAX} iterations`,
      );
    }
    const step: CteBinding = { ...binding, recursive: false, result: Promise.resolve(working) };
    const stepCtx: QueryContext = { ...ctx, ctes: new Map(ctx.ctes).set(binding.name, step) };
    const next = await runBody(body.right, stepCtx);
    const renamed: Relation = { ...next, columns: anchor.columns };
    const merged = await combineSet('UNION', body.all, all, renamed, ctx.slice);
    const added = merged.rowCount - all.rowCount;
    working = body.all
      ? renamed
      : { ...merged, values: merged.values.map((c) => c.slice(all.rowCount)), rowCount: added };
    all = { ...merged, columns: anchor.columns };
  }
  return all;
}

function withoutSelf(ctx: QueryContext, binding: CteBinding): Map<string, CteBinding> {
  const ctes = new Map(ctx.ctes);
  if (ctes.get(binding.name) === binding) ctes.delete(binding.name);
  return ctes;
}

/** A FROM factor as rows in the router; `pushed` maps stored-table factors to filters for them. */
async function materialize(
  factor: TableFactor,
  ctx: QueryContext,
  pushed = new Map<TableFactor, Expr>(),
): Promise<Relation> {
  switch (factor.kind) {
    case 'table': {
      const cte = factor.name.length === 1 ? ctx.ctes.get(normalizeIdent(factor.name[0] as Ident)) : undefined;
      if (cte) {
        const relation = await cteRelation(cte);
        return aliasRelation(relation, factor.alias, factor.columnAliases, [cte.name]);
      }
      return scanTable(factor, ctx, pushed.get(factor) ?? null);
    }
    case 'derived': {
      const result = await runQuery(factor.query, ctx);
      return aliasRelation(
        await relationOfRows(result.columns, result.rows, ctx.slice),
        factor.alias,
        factor.columnAliases,
        [],
      );
    }
    case 'join': {
      const left = await materialize(factor.left, ctx, pushed);
      const right = await materialize(factor.right, ctx, pushed);
      const joined = await joinRelations(
        left,
        right,
        factor.joinType,
        factor.on,
        factor.using,
        { nowNanos: ctx.now, timezone: ctx.session.timezone },
        { budget: ctx.budget, slice: ctx.slice },
      );
      ctx.budget.charge(joined.rowCount * joined.columns.length * CELL_BYTES, 'joining');
      return joined;
    }
  }
}

/** The stored-table leaves of a join tree made only of inner and cross joins, else null. */
function innerJoinLeaves(
  factor: TableFactor,
  ctx: QueryContext,
): Array<Extract<TableFactor, { kind: 'table' }>> | null {
  switch (factor.kind) {
    case 'table': {
      const isCte = factor.name.length === 1 && ctx.ctes.has(normalizeIdent(factor.name[0] as Ident));
      return isCte || resolveTableName(factor.name, ctx.session)[0] === INFORMATION_SCHEMA ? [] : [factor];
    }
    case 'derived':
      return [];
    case 'join': {
      if (factor.joinType !== 'inner' && factor.joinType !== 'cross') return null;
      const left = innerJoinLeaves(factor.left, ctx);
      const right = innerJoinLeaves(factor.right, ctx);
      return left && right ? [...left, ...right] : null;
    }
  }
}

/** The column references of an expression, or null when it holds anything but plain scalar code. */
function identifiersOf(expr: Expr): string[][] | null {
  const out: string[][] = [];
  let plain = true;
  const visit = (e: Expr): void => {
    switch (e.kind) {
      case 'identifier':
        out.push(e.parts.map(normalizeIdent));
        return;
      case 'subquery':
      case 'exists':
      case 'in_subquery':
      case 'interval':
        plain = false;
        return;
      case 'function':
        if (e.over || e.range || containsAggregate(e)) plain = false;
        else e.args.forEach(visit);
        return;
      default:
        exprChildren(e).forEach(visit);
        return;
    }
  };
  visit(expr);
  return plain ? out : null;
}

function andConjuncts(expr: Expr): Expr[] {
  let e = expr;
  while (e.kind === 'nested') e = e.expr;
  return e.kind === 'binary' && e.op === 'AND' ? [...andConjuncts(e.left), ...andConjuncts(e.right)] : [expr];
}

/**
 * WHERE conjuncts of an inner-join query that read columns of exactly one stored table are also
 * sent to that table's scan, so shards filter (and prune by time and tag) before rows reach the
 * router. The whole WHERE still runs after the join, so this only saves work.
 */
function pushdownFilters(select: Select, ctx: QueryContext): Map<TableFactor, Expr> {
  const pushed = new Map<TableFactor, Expr>();
  if (!select.where || !select.from || select.from.kind !== 'join') return pushed;
  const leaves = innerJoinLeaves(select.from, ctx);
  if (!leaves || leaves.length === 0) return pushed;
  const scopes = leaves.map((leaf) => {
    const { db, table } = lookupStoredTable(leaf.name, ctx.session, ctx.env);
    return new Scope(tableScopeColumns(table, db, leaf.name, leaf.alias));
  });
  for (const conjunct of andConjuncts(select.where)) {
    const refs = identifiersOf(conjunct);
    if (!refs || refs.length === 0) continue;
    let owner = -1;
    let ok = true;
    for (const parts of refs) {
      const matches = scopes.map((s, i) => {
        try {
          return s.lookup(parts) >= 0 ? i : -1;
        } catch {
          return -2;
        }
      });
      const found = matches.filter((i) => i !== -1);
      if (found.length !== 1 || (found[0] as number) < 0 || (owner >= 0 && owner !== found[0])) {
        ok = false;
        break;
      }
      owner = found[0] as number;
    }
    if (!ok || owner < 0) continue;
    const leaf = leaves[owner] as TableFactor;
    const prev = pushed.get(leaf);
    pushed.set(leaf, prev ? { kind: 'binary', op: 'AND', left: prev, right: conjunct } : conjunct);
  }
  return pushed;
}

/** FROM, resolved: one stored table stays a pushdown source; anything else is materialised. */
async function resolveFrom(from: TableFactor | null, ctx: QueryContext, select?: Select): Promise<FromInput> {
  if (!from) return NO_FROM;
  if (from.kind === 'table') {
    const isCte = from.name.length === 1 && ctx.ctes.has(normalizeIdent(from.name[0] as Ident));
    const virtual = isCte ? null : await virtualTable(from, ctx);
    if (virtual) return relationInput(virtual);
    if (!isCte) return tableInput(from, ctx.session, ctx.env);
  }
  return relationInput(await materialize(from, ctx, select ? pushdownFilters(select, ctx) : undefined));
}

/** Every table's comment (its `comment` option) by table id, across databases. */
function tableComments(env: SqlEnv): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  for (const db of env.listDatabases()) {
    for (const table of env.listTables(db.name)) {
      const comment = table.options.comment;
      if (comment !== undefined) out.push([table.id, comment]);
    }
  }
  return out;
}

/** Plans and runs one SELECT (with its ORDER BY / LIMIT from `query`). */
async function runSelect(
  query: Query,
  select: Select,
  ctx: QueryContext,
  given?: FromInput,
  columnar = false,
): Promise<QueryResult> {
  let input = given ?? (await resolveFrom(select.from, ctx, select));
  const hooks: PlanHooks = { outer: ctx.outer, tableComments: () => tableComments(ctx.env) };
  const subqueries = collectSubqueries(select, query);
  let resolutions: SubqueryResolutions | null = null;
  if (subqueries.length > 0) {
    resolutions = new SubqueryResolutions();
    const run = async (q: Query, outer: OuterScope): Promise<QueryRows> => runQuery(q, { ...ctx, outer });
    const correlated = await resolutions.probe(subqueries, input, ctx.outer, run);
    if (correlated.length > 0) {
      if (input.source.kind === 'table' && select.from?.kind === 'table') {
        input = relationInput(await scanTable(select.from, ctx));
      }
      if (input.source.kind !== 'relation') {
        throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: correlated subqueries here');
      }
      for (const { expr, used } of correlated) {
        await resolutions.resolveCorrelated(expr, used, input, input.source.relation, ctx.outer, run);
      }
    }
    hooks.subqueries = resolutions;
  }
  const plan: SelectPlan = await inSpan('sql.plan', () =>
    planSelect(query, select, input, ctx.session, ctx.now, hooks),
  );
  if (resolutions && !select.from && resolutions.emptiesSelectWithoutFrom(select)) {
    return { columns: plan.columns, rows: [] };
  }
  const table = await executePlan(plan, ctx);
  if (!columnar) return { columns: plan.columns, rows: (await tableRows(table, ctx.slice)) as Value[][] };
  let rows: Value[][] | null = null;
  return {
    columns: plan.columns,
    table,
    get rows(): Value[][] {
      rows ??= tableRowsNow(table) as Value[][];
      return rows;
    },
  };
}

/** Runs a plan: scatter to the shards, or locally for `numbers`, no FROM and relations. */
export async function executePlan(plan: SelectPlan, ctx: QueryContext): Promise<ColumnTable> {
  const { session, env, now } = ctx;
  let results: unknown[];
  switch (plan.source.kind) {
    case 'table': {
      const fragment = { ...plan.shard, memoryLimitBytes: session.memoryLimitBytes };
      // Active while the shards run, so each shard's task span is its child.
      results = await inSpan('sql.shard_scan', () => env.scatter(fragment, session.signal));
      break;
    }
    case 'numbers':
      results = [await runShardPlan(plan.shard, numbersSource)];
      break;
    case 'none':
      results = [await runShardPlan(plan.shard, NO_TABLE)];
      break;
    case 'relation':
      results = [runPlanOnBatches(plan.shard, [relationBatch(plan.source.relation, plan.shard)])];
      break;
  }
  checkAborted(session);
  for (const r of results as ShardResult[]) {
    if (r.kind === 'rows') {
      const bytes = r.columns.reduce((sum, c) => sum + columnBytes(c, r.rowCount, CELL_BYTES), 0);
      ctx.budget.charge(bytes, 'merging shard rows');
    } else ctx.budget.charge(r.keys.length * GROUP_BYTES, 'merging shard groups');
  }
  return inSpan('sql.merge', () =>
    mergeShardResults(plan.merge, results, { nowNanos: now, timezone: session.timezone }, ctx.slice),
  );
}
