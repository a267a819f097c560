/**
 * Joins of two materialised relations, in the router. The ON condition is bound over the
 * concatenated columns; its `left = right` conjuncts become hash keys (build on the right side,
 * probe with the left), the rest is a residual filter evaluated over candidate pairs. Outer joins
 * add the unmatched rows of the preserved side(s) padded with NULLs. NULL keys never match.
 */
import type { Expr, Ident, JoinType } from './ast.js';
import { Binder } from './binder.js';
import { planError } from './coercion.js';
import { type Batch, evaluate, filterBatch } from './eval.js';
import type { EvalContext } from './functions/types.js';
import type { PlanExpr } from './plan.js';
import type { Relation, RelationColumn } from './relation.js';
import { scopeColumnsOf } from './relation.js';
import { Scope } from './scope.js';
import { groupKeyOf } from './shard-exec.js';
import { conjuncts } from './time-range.js';
import { arrowNameOf } from './type-names.js';
import type { Value } from './values.js';

/** A scope whose scan slots are the column indexes (every column pre-assigned in order). */
export function identityScope(relation: Relation): Scope {
  const scope = new Scope(scopeColumnsOf(relation));
  for (let i = 0; i < relation.columns.length; i++) scope.slotOf(i);
  return scope;
}

/** The highest and lowest column index an expression reads, or null when it reads none. */
function columnRange(expr: PlanExpr): [number, number] | null {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  const visit = (e: PlanExpr): void => {
    if (e.kind === 'column') {
      lo = Math.min(lo, e.index);
      hi = Math.max(hi, e.index);
      return;
    }
    switch (e.kind) {
      case 'literal':
        return;
      case 'arithmetic':
      case 'compare':
      case 'and':
      case 'or':
        visit(e.left);
        visit(e.right);
        return;
      case 'not':
      case 'negate':
      case 'is':
      case 'cast':
      case 'add_interval':
        visit(e.arg);
        return;
      case 'in':
        visit(e.arg);
        e.list.forEach(visit);
        return;
      case 'like':
        visit(e.arg);
        visit(e.pattern);
        return;
      case 'call':
      case 'aggregate':
        e.args.forEach(visit);
        return;
      case 'case':
        if (e.operand) visit(e.operand);
        for (const w of e.whens) {
          visit(w.when);
          visit(w.result);
        }
        if (e.elseResult) visit(e.elseResult);
        return;
      default:
        lo = Number.NEGATIVE_INFINITY;
        hi = Number.POSITIVE_INFINITY;
    }
  };
  visit(expr);
  return lo === Number.POSITIVE_INFINITY ? null : [lo, hi];
}

function side(expr: PlanExpr, leftCount: number): 'left' | 'right' | 'both' | 'none' {
  const range = columnRange(expr);
  if (!range) return 'none';
  if (range[1] < leftCount) return 'left';
  if (range[0] >= leftCount) return 'right';
  return 'both';
}

/** Rows `left[li[k]] ++ right[ri[k]]` (index -1: NULLs) as one batch. */
function pairBatch(left: Relation, right: Relation, li: number[], ri: number[]): Batch {
  const pick = (col: Value[], idx: number[]): Value[] => idx.map((i) => (i < 0 ? null : (col[i] as Value)));
  return {
    rowCount: li.length,
    columns: [...left.values.map((c) => pick(c, li)), ...right.values.map((c) => pick(c, ri))],
  };
}

/** Joins two relations. `using` columns must exist on both sides and compare equal. */
export function joinRelations(
  left: Relation,
  right: Relation,
  joinType: JoinType,
  on: Expr | null,
  using: Ident[] | null,
  ctx: EvalContext,
): Relation {
  const combined: Relation = {
    columns: [...left.columns, ...right.columns],
    values: [...left.values, ...right.values],
    rowCount: 0,
  };
  const scope = identityScope(combined);
  const binder = new Binder({
    scope,
    timezone: ctx.timezone,
    aggregateError: (name) => planError(`Aggregate functions are not allowed in join conditions (${name})`),
  });
  const nl = left.columns.length;
  let condition: PlanExpr | null = null;
  if (on) condition = binder.bind(on);
  if (using) {
    for (const ident of using) {
      const name = ident.quote === null ? ident.value.toLowerCase() : ident.value;
      const li = left.columns.findIndex((c) => c.name === name);
      const ri = right.columns.findIndex((c) => c.name === name);
      if (li < 0 || ri < 0) throw planError(`USING column ${name} is not in both join inputs`);
      const eq = binder.compare(
        '=',
        { kind: 'column', index: li, type: (left.columns[li] as RelationColumn).type },
        { kind: 'column', index: nl + ri, type: (right.columns[ri] as RelationColumn).type },
      );
      condition = condition ? { kind: 'and', left: condition, right: eq, type: 'Boolean' } : eq;
    }
  }
  if (condition && condition.type !== 'Boolean' && condition.type !== 'Null') {
    throw planError(`join condition should be boolean type, but got ${arrowNameOf(condition.type)}`);
  }
  const leftKeys: PlanExpr[] = [];
  const rightKeys: PlanExpr[] = [];
  const residual: PlanExpr[] = [];
  for (const c of condition ? conjuncts(condition) : []) {
    if (c.kind === 'compare' && c.op === '=') {
      const a = side(c.left, nl);
      const b = side(c.right, nl);
      if (a === 'left' && b === 'right') {
        leftKeys.push(c.left);
        rightKeys.push(c.right);
        continue;
      }
      if (a === 'right' && b === 'left') {
        leftKeys.push(c.right);
        rightKeys.push(c.left);
        continue;
      }
    }
    residual.push(c);
  }
  const filter = residual.reduce<PlanExpr | null>(
    (acc, e) => (acc ? { kind: 'and', left: acc, right: e, type: 'Boolean' } : e),
    null,
  );

  // Candidate pairs: hash on the equi-join keys, or every pair.
  const li: number[] = [];
  const ri: number[] = [];
  if (leftKeys.length > 0) {
    const rightBatch = pairBatch(left, right, new Array(right.rowCount).fill(-1), [...Array(right.rowCount).keys()]);
    const leftBatch = pairBatch(left, right, [...Array(left.rowCount).keys()], new Array(left.rowCount).fill(-1));
    const rk = rightKeys.map((e) => evaluate(e, rightBatch, ctx));
    const lk = leftKeys.map((e) => evaluate(e, leftBatch, ctx));
    const table = new Map<string, number[]>();
    for (let r = 0; r < right.rowCount; r++) {
      const key = rk.map((c) => c[r] as Value);
      if (key.some((v) => v === null)) continue;
      const k = groupKeyOf(key);
      let list = table.get(k);
      if (!list) table.set(k, (list = []));
      list.push(r);
    }
    for (let l = 0; l < left.rowCount; l++) {
      const key = lk.map((c) => c[l] as Value);
      if (key.some((v) => v === null)) continue;
      for (const r of table.get(groupKeyOf(key)) ?? []) {
        li.push(l);
        ri.push(r);
      }
    }
  } else {
    for (let l = 0; l < left.rowCount; l++) {
      for (let r = 0; r < right.rowCount; r++) {
        li.push(l);
        ri.push(r);
      }
    }
  }
  let pairs = pairBatch(left, right, li, ri);
  let keptLeft = li;
  let keptRight = ri;
  if (filter) {
    const marked = { rowCount: pairs.rowCount, columns: [...pairs.columns, li, ri] as Value[][] };
    pairs = filterBatch(filter, marked, ctx);
    keptLeft = pairs.columns[pairs.columns.length - 2] as number[];
    keptRight = pairs.columns[pairs.columns.length - 1] as number[];
    pairs = { rowCount: pairs.rowCount, columns: pairs.columns.slice(0, -2) };
  }
  const outLeft = [...keptLeft];
  const outRight = [...keptRight];
  if (joinType === 'left' || joinType === 'full') {
    const matched = new Uint8Array(left.rowCount);
    for (const l of keptLeft) matched[l] = 1;
    for (let l = 0; l < left.rowCount; l++) {
      if (!matched[l]) {
        outLeft.push(l);
        outRight.push(-1);
      }
    }
  }
  if (joinType === 'right' || joinType === 'full') {
    const matched = new Uint8Array(right.rowCount);
    for (const r of keptRight) matched[r] = 1;
    for (let r = 0; r < right.rowCount; r++) {
      if (!matched[r]) {
        outLeft.push(-1);
        outRight.push(r);
      }
    }
  }
  const result = pairBatch(left, right, outLeft, outRight);
  return { columns: combined.columns, values: result.columns, rowCount: result.rowCount };
}
