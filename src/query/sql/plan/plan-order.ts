/**
 * ORDER BY resolution shared by plain and aggregate queries: each item becomes a sort key over
 * the result columns (an ordinal, an alias, an expression equal to a result column) or over a
 * hidden extra column appended after them.
 */
import type { DbError } from '../../../shared/errors.js';
import type { Expr, Ident, OrderByItem } from '../parse/ast.js';
import { planError } from '../types/coercion.js';
import { exprName } from './naming.js';
import { type PlanExpr, planExprKey, type SortKey } from './plan.js';
import { normalizeIdent, type Scope } from './scope.js';

/** One SELECT item after `*` expansion. */
export interface Item {
  expr: Expr;
  name: string;
  /** Explicit alias, normalised. */
  alias: string | null;
}

/** The expression inside any number of parentheses. */
export function unnest(expr: Expr): Expr {
  while (expr.kind === 'nested') expr = expr.expr;
  return expr;
}

/** ORDER BY as sort keys over the result columns plus hidden extra columns. */
export interface OrderResolution {
  sort: SortKey[];
  /** Sort expressions that are not result columns, appended as hidden columns. */
  hidden: PlanExpr[];
}

/** SELECT DISTINCT's refusal of an ORDER BY item that is not one of its outputs. */
export function distinctOrderByError(scope: Scope | null): (item: OrderByItem) => DbError {
  return (item) =>
    planError(`For SELECT DISTINCT, ORDER BY expressions ${exprName(item.expr, scope)} must appear in select list`);
}

/**
 * Resolves ORDER BY items to result columns: an ordinal, an alias, an expression equal to a
 * result column, or (unless `distinctOnly`) a hidden extra column.
 */
export function resolveOrderBy(
  orderBy: OrderByItem[],
  items: Item[],
  outputs: PlanExpr[],
  bind: (e: Expr) => PlanExpr,
  distinctOnly: ((item: OrderByItem) => DbError) | null,
): OrderResolution {
  const keys = outputs.map(planExprKey);
  const hidden: PlanExpr[] = [];
  const sort: SortKey[] = [];
  for (const item of orderBy) {
    const e = unnest(item.expr);
    let index = -1;
    if (e.kind === 'number' && /^\d+$/.test(e.text)) {
      const n = Number(e.text);
      if (n < 1 || n > items.length)
        throw planError(`Order by column out of bounds, specified: ${n}, max: ${items.length}`);
      index = n - 1;
    } else if (e.kind === 'identifier' && e.parts.length === 1) {
      index = items.findIndex((it) => it.alias !== null && it.alias === normalizeIdent(e.parts[0] as Ident));
    }
    if (index < 0) {
      const bound = bind(item.expr);
      if (bound.kind === 'literal') continue;
      index = keys.indexOf(planExprKey(bound));
      if (index < 0) {
        if (distinctOnly) throw distinctOnly(item);
        index = outputs.length + hidden.length;
        hidden.push(bound);
      }
    }
    const descending = item.asc === false;
    sort.push({ index, descending, nullsFirst: item.nullsFirst ?? descending });
  }
  return { sort, hidden };
}
