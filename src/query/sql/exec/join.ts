/**
 * Joins of two materialised relations, in the router. The ON condition is bound over the
 * concatenated columns; its `left = right` conjuncts become hash keys (build on the right side,
 * probe with the left), the rest is a residual filter evaluated over candidate pairs. Outer joins
 * add the unmatched rows of the preserved side(s) padded with NULLs. NULL keys never match.
 */

import type { TimeSlice } from '../../../shared/time-slice.js';
import type { EvalContext } from '../functions/types.js';
import type { Expr, Ident, JoinType } from '../parse/ast.js';
import { Binder } from '../plan/binder.js';
import { type Batch, evaluate, filterBatch } from '../plan/eval.js';
import { CELL_BYTES, type MemoryBudget } from '../plan/memory-budget.js';
import type { PlanExpr } from '../plan/plan.js';
import type { Relation, RelationColumn } from '../plan/relation.js';
import { scopeColumnsOf } from '../plan/relation.js';
import { Scope } from '../plan/scope.js';
import { conjuncts } from '../plan/time-range.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { groupKeyOf } from './shard-exec.js';

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
const NO_MATCH: readonly number[] = [];

/** Rows of a side (0 until `rowCount`) that no kept pair uses. */
function unmatched(kept: readonly number[], rowCount: number): number[] {
  const matched = new Uint8Array(rowCount);
  for (const i of kept) matched[i] = 1;
  const out: number[] = [];
  for (let i = 0; i < rowCount; i++) if (matched[i] === 0) out.push(i);
  return out;
}

/** The values of `col` at `idx`, NULL where an index is -1 (the padded side of an outer join). */
function pick(col: Value[], idx: number[]): Value[] {
  return idx.map((i) => (i < 0 ? null : (col[i] as Value)));
}

/** `pick` for a whole output column, a step at a time. */
async function pickSliced(col: Value[], idx: number[], slice: TimeSlice): Promise<Value[]> {
  const out = new Array<Value>(idx.length);
  for (let start = 0; start < idx.length; start += PAIRS_PER_STEP) {
    const end = Math.min(idx.length, start + PAIRS_PER_STEP);
    for (let k = start; k < end; k++) {
      const i = idx[k] as number;
      out[k] = i < 0 ? null : (col[i] as Value);
    }
    await slice.next();
  }
  return out;
}

function pairBatch(left: Relation, right: Relation, li: number[], ri: number[]): Batch {
  return {
    rowCount: li.length,
    columns: [...left.values.map((c) => pick(c, li)), ...right.values.map((c) => pick(c, ri))],
  };
}

/** What a join may use of the query's resources while it runs in the router. */
export interface JoinLimits {
  /** Charged with the candidate pairs before they are made, released when the join ends. */
  budget: MemoryBudget;
  /** Called between units of work: yields the event loop and throws when the query is cancelled. */
  slice: TimeSlice;
}

/** Candidate pairs handled between two slice checks (and evaluated as one batch by the filter). */
const PAIRS_PER_STEP = 16_384;

/**
 * Joins two relations. `using` columns must exist on both sides and compare equal. The join runs
 * on the router's thread, so it counts its pairs before making them (a cross join of two large
 * inputs fails on the memory limit at once, not after seconds of work) and works in slices.
 */
export async function joinRelations(
  left: Relation,
  right: Relation,
  joinType: JoinType,
  on: Expr | null,
  using: Ident[] | null,
  ctx: EvalContext,
  limits: JoinLimits,
): Promise<Relation> {
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

  const { budget, slice } = limits;
  const pairBytes = (combined.columns.length + 2) * CELL_BYTES;
  let chargedBytes = 0;
  const charge = (pairs: number): void => {
    budget.charge(pairs * pairBytes, 'joining');
    chargedBytes += pairs * pairBytes;
  };

  // Candidate pairs: hash on the equi-join keys, or every pair.
  let probe: ((l: number) => readonly number[]) | null = null;
  if (leftKeys.length > 0) {
    const rightBatch = pairBatch(left, right, new Array(right.rowCount).fill(-1), [...Array(right.rowCount).keys()]);
    const leftBatch = pairBatch(left, right, [...Array(left.rowCount).keys()], new Array(left.rowCount).fill(-1));
    const rk = rightKeys.map((e) => evaluate(e, rightBatch, ctx));
    const lk = leftKeys.map((e) => evaluate(e, leftBatch, ctx));
    const table = new Map<string, number[]>();
    for (let r = 0; r < right.rowCount; r++) {
      if (r % PAIRS_PER_STEP === 0) await slice.next();
      const key = rk.map((c) => c[r] as Value);
      if (key.some((v) => v === null)) continue;
      const k = groupKeyOf(key);
      let list = table.get(k);
      if (!list) table.set(k, (list = []));
      list.push(r);
    }
    const matches = new Array<readonly number[]>(left.rowCount);
    let pairs = 0;
    for (let l = 0; l < left.rowCount; l++) {
      if (l % PAIRS_PER_STEP === 0) await slice.next();
      const key = lk.map((c) => c[l] as Value);
      const list = key.some((v) => v === null) ? NO_MATCH : (table.get(groupKeyOf(key)) ?? NO_MATCH);
      matches[l] = list;
      pairs += list.length;
    }
    charge(pairs);
    probe = (l) => matches[l] as readonly number[];
  } else {
    charge(left.rowCount * right.rowCount);
  }

  // Pairs are made and filtered a step at a time, each step a slice check.
  const keptLeft: number[] = [];
  const keptRight: number[] = [];
  let li: number[] = [];
  let ri: number[] = [];
  const flush = async (): Promise<void> => {
    if (li.length === 0) return;
    if (filter) {
      const pairs = pairBatch(left, right, li, ri);
      const marked = { rowCount: pairs.rowCount, columns: [...pairs.columns, li, ri] as Value[][] };
      const kept = filterBatch(filter, marked, ctx);
      const keptL = kept.columns[kept.columns.length - 2] as number[];
      const keptR = kept.columns[kept.columns.length - 1] as number[];
      for (let k = 0; k < keptL.length; k++) {
        keptLeft.push(keptL[k] as number);
        keptRight.push(keptR[k] as number);
      }
    } else {
      for (let k = 0; k < li.length; k++) {
        keptLeft.push(li[k] as number);
        keptRight.push(ri[k] as number);
      }
    }
    li = [];
    ri = [];
    await slice.next();
  };
  for (let l = 0; l < left.rowCount; l++) {
    const candidates = probe ? probe(l) : null;
    const count = candidates ? candidates.length : right.rowCount;
    for (let k = 0; k < count; k++) {
      li.push(l);
      ri.push(candidates ? (candidates[k] as number) : k);
      if (li.length >= PAIRS_PER_STEP) await flush();
    }
  }
  await flush();
  // Outer joins add the unmatched rows of their preserved side(s), padded with NULLs (index -1).
  const unmatchedLeft = joinType === 'left' || joinType === 'full' ? unmatched(keptLeft, left.rowCount) : [];
  const unmatchedRight = joinType === 'right' || joinType === 'full' ? unmatched(keptRight, right.rowCount) : [];
  const outLeft = keptLeft;
  const outRight = keptRight;
  for (const l of unmatchedLeft) {
    outLeft.push(l);
    outRight.push(-1);
  }
  for (const r of unmatchedRight) {
    outLeft.push(-1);
    outRight.push(r);
  }
  const values: Value[][] = [];
  for (const col of left.values) values.push(await pickSliced(col, outLeft, slice));
  for (const col of right.values) values.push(await pickSliced(col, outRight, slice));
  budget.release(chargedBytes);
  return { columns: combined.columns, values, rowCount: outLeft.length };
}
