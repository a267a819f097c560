/**
 * Planning of aggregate queries (GROUP BY, aggregate functions, HAVING, DISTINCT): shards fold
 * rows into partial states per group, the router merges groups and evaluates everything above
 * them over the row `[group keys..., aggregate results...]`.
 */

import type { Expr, Ident, Query, Select } from '../parse/ast.js';
import { planError } from '../types/coercion.js';
import type { Binder } from './binder.js';
import { bindGroupingSets, expandGroupingSets, groupingValue, ungroupedArgumentError } from './grouping-sets.js';
import { exprName } from './naming.js';
import { type AggregateCall, type MergePlan, mapChildren, type PlanExpr, planExprKey, type ShardPlan } from './plan.js';
import { distinctOrderByError, type Item, resolveOrderBy, unnest } from './plan-order.js';
import { normalizeIdent, type Scope } from './scope.js';

/** Planner inputs beyond the query. */
export interface AggregatePlanOptions {
  /**
   * Scan-order keys (primary key, time index): `first_value`/`last_value`/`nth_value`/`array_agg`/`string_agg` order by
   * them when the call has no ORDER BY, and break ties with them when it has one, so results do
   * not depend on how rows spread over shards. Asked for only by such a call: naming the keys
   * makes the scan read them, and an `approx_percentile_cont` by hour read every tag of every row.
   */
  implicitOrder: () => PlanExpr[];
}

/** Functions whose result depends on row order. */
const ORDER_SENSITIVE = new Set(['first_value', 'last_value', 'nth_value', 'array_agg', 'string_agg']);

/** The aggregate call a bound aggregate node becomes (with implicit ordering keys added). */
export function aggregateCallOf(
  expr: Extract<PlanExpr, { kind: 'aggregate' }>,
  implicitOrderOf: () => PlanExpr[],
): AggregateCall {
  const call: AggregateCall = { name: expr.name, args: expr.args, distinct: expr.distinct, type: expr.type };
  if (expr.order) call.order = expr.order;
  const implicitOrder = ORDER_SENSITIVE.has(expr.name) ? implicitOrderOf() : [];
  if (implicitOrder.length > 0) {
    call.args = [...expr.args, ...implicitOrder];
    call.order = [...(expr.order ?? []), ...implicitOrder.map(() => ({ descending: false, nullsFirst: true }))];
  }
  if (expr.range) call.rangeNanos = expr.range.rangeNanos;
  return call;
}

/** Plans the aggregate part of a query: group keys, partial aggregates, and the router-side merge. */
export function planAggregate(
  query: Query,
  items: Item[],
  scope: Scope | null,
  base: Binder,
  noAggregates: Binder,
  limit: number | null,
  offset: number,
  hasAggregate: boolean,
  options: AggregatePlanOptions,
): { outputs: PlanExpr[]; shardOutput: ShardPlan['output']; merge: MergePlan } {
  const select = query.body as Select;
  const distinctAsGroups = select.distinct && select.groupBy.length === 0 && !hasAggregate;
  /** A GROUP BY item as bound: an ordinal or alias stands for its SELECT item. */
  const resolveGroupItem = (g: Expr): { expr: PlanExpr; source: Expr } => {
    const e = unnest(g);
    if (e.kind === 'number' && /^\d+$/.test(e.text)) {
      const n = Number(e.text);
      const item = items[n - 1];
      if (!item)
        throw planError(`Cannot find column with position ${n} in SELECT clause. Valid columns: 1 to ${items.length}`);
      return { expr: noAggregates.bind(item.expr), source: item.expr };
    }
    if (e.kind === 'identifier' && e.parts.length === 1) {
      const name = normalizeIdent(e.parts[0] as Ident);
      const aliased = items.find((it) => it.alias === name);
      if (aliased && (!scope || scope.lookup([name]) < 0))
        return { expr: noAggregates.bind(aliased.expr), source: aliased.expr };
    }
    return { expr: noAggregates.bind(g), source: g };
  };
  let groupExprs: PlanExpr[];
  let groupSources: Expr[];
  let groupingSets: number[][] | null = null;
  if (distinctAsGroups) {
    groupExprs = items.map((i) => noAggregates.bind(i.expr));
    groupSources = items.map((i) => i.expr);
  } else {
    const expanded = expandGroupingSets(select.groupBy);
    if (expanded) {
      const bound = bindGroupingSets(expanded, resolveGroupItem);
      groupExprs = bound.exprs;
      groupSources = bound.sources;
      groupingSets = bound.sets;
    } else {
      const resolved = select.groupBy.map(resolveGroupItem);
      groupExprs = resolved.map((r) => r.expr);
      groupSources = resolved.map((r) => r.source);
    }
  }
  const groupKeys = groupExprs.map(planExprKey);
  // With grouping sets, the set's position is a last, hidden group key.
  const setColumn = groupExprs.length;
  const groupCount = groupExprs.length + (groupingSets ? 1 : 0);
  const aggregates: AggregateCall[] = [];
  const aggregateKeys: string[] = [];

  /** The group positions of grouping()'s arguments, each of which must be a group expression. */
  const groupingPositions = (args: PlanExpr[]): number[] =>
    args.map((arg) => {
      const p = groupKeys.indexOf(planExprKey(arg));
      if (p >= 0) return p;
      const written = [...items.map((i) => i.expr), ...(select.having ? [select.having] : [])];
      for (const o of query.orderBy) written.push(o.expr);
      throw ungroupedArgumentError(arg, written, (e) => noAggregates.bind(e), groupSources, scope);
    });

  const rewrite = (expr: PlanExpr): PlanExpr => {
    const gi = groupKeys.indexOf(planExprKey(expr));
    if (gi >= 0) return { kind: 'column', index: gi, type: expr.type };
    switch (expr.kind) {
      case 'aggregate': {
        if (expr.name === 'grouping') return groupingValue(groupingPositions(expr.args), groupingSets, setColumn);
        const key = planExprKey(expr);
        let ai = aggregateKeys.indexOf(key);
        if (ai < 0) {
          ai = aggregates.length;
          aggregateKeys.push(key);
          aggregates.push(aggregateCallOf(expr, options.implicitOrder));
        }
        return { kind: 'column', index: groupCount + ai, type: expr.type };
      }
      case 'column': {
        const columnIndex = scope?.scannedColumns()[expr.index] ?? -1;
        const name = scope && columnIndex >= 0 ? scope.qualifiedName(columnIndex) : `#${expr.index}`;
        const grouped = select.groupBy.map((g) => exprName(g, scope)).join(', ');
        throw planError(
          `Column in SELECT must be in GROUP BY or an aggregate function: Column "${name}" must appear in the GROUP BY clause or must be part of an aggregate function, currently only "${grouped}" appears in the SELECT clause satisfies this requirement`,
        );
      }
      case 'literal':
        return expr;
      default:
        return mapChildren(expr, rewrite);
    }
  };

  const outputs = distinctAsGroups
    ? groupExprs.map((g, i) => ({ kind: 'column' as const, index: i, type: g.type }))
    : items.map((i) => rewrite(base.bind(i.expr)));
  let having: PlanExpr | null = null;
  if (select.having) {
    having = rewrite(base.bind(select.having));
    if (having.type !== 'Boolean' && having.type !== 'Null')
      throw planError('HAVING clause must be a boolean expression');
  }
  const distinctError = select.distinct ? distinctOrderByError(scope) : null;
  const order = distinctAsGroups
    ? resolveOrderBy(query.orderBy, items, groupExprs, (e) => noAggregates.bind(e), distinctError)
    : resolveOrderBy(query.orderBy, items, outputs, (e) => rewrite(base.bind(e)), distinctError);
  return {
    outputs,
    shardOutput: groupingSets
      ? { kind: 'aggregate', groupBy: groupExprs, aggregates, groupingSets }
      : { kind: 'aggregate', groupBy: groupExprs, aggregates },
    merge: {
      kind: 'aggregate',
      groupCount,
      aggregates,
      grouped: groupCount > 0,
      ...(groupingSets ? { grandTotalSets: grandTotalsOf(groupingSets) } : {}),
      having,
      outputs: [...outputs, ...order.hidden],
      distinct: select.distinct && !distinctAsGroups,
      sort: order.sort,
      offset,
      limit,
      visible: outputs.length,
    },
  };
}

/** Positions of the empty grouping sets: each yields a grand-total row even from no rows. */
function grandTotalsOf(sets: number[][]): number[] {
  return sets.flatMap((set, s) => (set.length === 0 ? [s] : []));
}
