/**
 * `unnest(list)` as a SELECT item: one result row per list item. The shards return the lists and
 * the router expands them (exec/unnest.ts) before ORDER BY and LIMIT, so a shard cannot cut rows
 * by LIMIT first. Only the plain form is planned: a top-level item of a query without GROUP BY,
 * aggregates, DISTINCT or windows; elsewhere it is refused as not implemented rather than bound
 * as an unknown function.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, listItemTypeOf } from '../../../shared/types.js';
import type { Expr, Ident, Query, Select } from '../parse/ast.js';
import { planError } from '../types/coercion.js';
import type { PlanExpr } from './plan.js';
import type { Item } from './plan-order.js';
import { normalizeIdent } from './scope.js';

function isUnnestCall(expr: Expr): expr is Extract<Expr, { kind: 'function' }> {
  return (
    expr.kind === 'function' &&
    expr.name.length === 1 &&
    normalizeIdent(expr.name[0] as Ident) === 'unnest' &&
    expr.over === undefined
  );
}

/** True when `unnest(...)` appears anywhere in the expression. */
function containsUnnest(expr: Expr | null | undefined): boolean {
  if (!expr || typeof expr !== 'object') return false;
  if (isUnnestCall(expr)) return true;
  // Walk every child expression generically: the AST's expression fields are objects with `kind`.
  for (const value of Object.values(expr)) {
    if (Array.isArray(value)) {
      for (const v of value) if (isExprLike(v) && containsUnnest(v)) return true;
    } else if (isExprLike(value) && containsUnnest(value)) return true;
  }
  return false;
}

function isExprLike(v: unknown): v is Expr {
  return typeof v === 'object' && v !== null && 'kind' in v;
}

function notImplemented(): DbError {
  return new DbError(
    ErrorCode.Unsupported,
    'This feature is not implemented: unnest() other than as a SELECT item without GROUP BY, aggregates, DISTINCT or windows',
  );
}

/** Refuses an unnest in a clause bound before the SELECT list (WHERE). */
export function refuseUnnestIn(expr: Expr | null): void {
  if (containsUnnest(expr)) throw notImplemented();
}

/**
 * The argument of each top-level `unnest(x)` item (undefined for other items), or null when the
 * query has none. Throws for an unnest anywhere else or in a query the plain form does not cover.
 */
export function unnestArguments(
  query: Query,
  select: Select,
  items: Item[],
  plain: boolean,
): Array<Expr | undefined> | null {
  const args = items.map((i) => (isUnnestCall(i.expr) ? i.expr : undefined));
  const nested =
    items.some((i) => !isUnnestCall(i.expr) && containsUnnest(i.expr)) ||
    args.some((call) => call?.args.some((a) => containsUnnest(a))) ||
    containsUnnest(select.where) ||
    containsUnnest(select.having) ||
    select.groupBy.some((g) => containsUnnest(g)) ||
    query.orderBy.some((o) => containsUnnest(o.expr));
  const any = args.some((a) => a !== undefined);
  if (nested || (any && (!plain || select.distinct || select.distinctOn))) throw notImplemented();
  if (!any) return null;
  return args.map((call) => {
    if (call === undefined) return undefined;
    if (call.args.length !== 1 || call.star || call.distinct) {
      throw planError(`unnest() expects 1 argument, got ${call.args.length}`);
    }
    return call.args[0] as Expr;
  });
}

/** The item type an unnest column holds; the bound argument must be a list (or NULL). */
export function unnestItemType(arg: PlanExpr): DataType {
  if (arg.type === 'Null') return 'Null';
  const item = listItemTypeOf(arg.type);
  if (item === null) throw planError('unnest() can only be applied to array, struct and null');
  return item;
}
