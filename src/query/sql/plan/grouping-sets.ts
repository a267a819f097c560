/**
 * GROUP BY ROLLUP / CUBE / GROUPING SETS, planned as DataFusion expands them: the GROUP BY items
 * multiply out into a list of grouping sets (`a, ROLLUP (b, c)` → `(a), (a, b), (a, b, c)`),
 * every row is aggregated once per set, and a column outside a row's set reads NULL. A hidden
 * last group key holds the set's position, so rows of different sets never merge even where
 * their visible keys are equal, and `grouping()` is computed from that key.
 */

import type { DbError } from '../../../shared/errors.js';
import type { Expr, GroupingSetExpr, Ident } from '../parse/ast.js';
import { exprChildren } from '../parse/expr-children.js';
import { planError } from '../types/coercion.js';
import { exprName } from './naming.js';
import { type PlanExpr, planExprKey } from './plan.js';
import { normalizeIdent, type Scope } from './scope.js';

/** DataFusion's limit on the number of grouping sets of one GROUP BY. */
const GROUPING_SETS_MAX = 4096;
/** DataFusion's limit on the items of one CUBE (its sets are the subsets of a 64-bit mask). */
const CUBE_ITEMS_MAX = 63;

/** The type of the hidden set-position key. */
export const SET_POSITION_TYPE = 'UInt32';

function checkSetCount(count: number): void {
  if (count > GROUPING_SETS_MAX) {
    throw planError(
      `The number of grouping_set in grouping_sets exceeds the maximum limit ${GROUPING_SETS_MAX}, found ${count}`,
    );
  }
}

/** One expression per element: DataFusion refuses tuples inside ROLLUP and CUBE. */
function singleItems(item: GroupingSetExpr): Expr[] {
  const form = item.form === 'ROLLUP' ? 'Tuple expressions are not supported for Rollup expressions' : null;
  return item.sets.map((set) => {
    if (set.length !== 1) throw planError(form ?? 'Tuple expressions not are supported for Cube expressions');
    return set[0] as Expr;
  });
}

function setsOf(item: GroupingSetExpr): Expr[][] {
  if (item.form === 'GROUPING SETS') return item.sets;
  const items = singleItems(item);
  if (item.form === 'ROLLUP') return items.map((_, n) => items.slice(0, n)).concat([items]);
  if (items.length > CUBE_ITEMS_MAX) throw planError('The size of the set must be less than 64.');
  checkSetCount(2 ** items.length);
  // Subsets in the order of their bit masks, as DataFusion lists a CUBE's sets.
  const sets: Expr[][] = [];
  for (let mask = 0; mask < 2 ** items.length; mask++) sets.push(items.filter((_, i) => mask & (1 << i)));
  return sets;
}

/**
 * The grouping sets of a GROUP BY list (each the written expressions it groups by), or null when
 * the list has no ROLLUP, CUBE or GROUPING SETS item. Several items multiply out in order.
 */
export function expandGroupingSets(groupBy: Expr[]): Expr[][] | null {
  if (!groupBy.some((g) => g.kind === 'grouping_set')) return null;
  let sets: Expr[][] = [[]];
  for (const item of groupBy) {
    const own = item.kind === 'grouping_set' ? setsOf(item) : [[item]];
    checkSetCount(sets.length * own.length);
    sets = sets.flatMap((left) => own.map((right) => [...left, ...right]));
  }
  return sets;
}

/** Grouping sets over the distinct group expressions they mention. */
export interface BoundGroupingSets {
  /** Distinct group expressions in order of first mention. */
  exprs: PlanExpr[];
  /** The written form of each (for error messages). */
  sources: Expr[];
  /** Per set, the positions in `exprs` it groups by. */
  sets: number[][];
}

/** Binds the expressions of grouping sets, numbering each distinct expression once. */
export function bindGroupingSets(
  sets: Expr[][],
  bind: (e: Expr) => { expr: PlanExpr; source: Expr },
): BoundGroupingSets {
  const out: BoundGroupingSets = { exprs: [], sources: [], sets: [] };
  const keys: string[] = [];
  for (const set of sets) {
    const positions = new Set<number>();
    for (const written of set) {
      const { expr, source } = bind(written);
      const key = planExprKey(expr);
      let p = keys.indexOf(key);
      if (p < 0) {
        p = keys.length;
        keys.push(key);
        out.exprs.push(expr);
        out.sources.push(source);
      }
      positions.add(p);
    }
    out.sets.push([...positions]);
  }
  return out;
}

/**
 * The value `grouping(args)` takes in the merged row: one bit per argument, 1 when the row's set
 * does not group by it, the first argument highest (DataFusion and PostgreSQL). Without grouping
 * sets every column is grouped, so it is 0. `positions` are the arguments' group positions.
 */
export function groupingValue(positions: number[], sets: number[][] | null, setColumn: number): PlanExpr {
  const zero: PlanExpr = { kind: 'literal', value: 0, type: 'Int32' };
  if (sets === null) return zero;
  const setsByMask = new Map<number, number[]>();
  sets.forEach((set, s) => {
    const mask = positions.reduce((m, p) => (m << 1) | (set.includes(p) ? 0 : 1), 0);
    if (mask !== 0) setsByMask.set(mask, [...(setsByMask.get(mask) ?? []), s]);
  });
  if (setsByMask.size === 0) return zero;
  const position: PlanExpr = { kind: 'column', index: setColumn, type: SET_POSITION_TYPE };
  return {
    kind: 'case',
    operand: null,
    whens: [...setsByMask].map(([mask, ids]) => ({
      when: {
        kind: 'in',
        arg: position,
        list: ids.map((id) => ({ kind: 'literal', value: id, type: SET_POSITION_TYPE })),
        negated: false,
        type: 'Boolean',
      },
      result: { kind: 'literal', value: mask, type: 'Int32' },
    })),
    elseResult: zero,
    type: 'Int32',
  };
}

/** The written arguments of every `grouping(…)` call in these expressions. */
function groupingArguments(exprs: Expr[]): Expr[] {
  const out: Expr[] = [];
  const walk = (e: Expr): void => {
    if (e.kind === 'function' && !e.over && normalizeIdent(e.name[e.name.length - 1] as Ident) === 'grouping')
      out.push(...e.args);
    exprChildren(e).forEach(walk);
  };
  exprs.forEach(walk);
  return out;
}

/**
 * DataFusion's error for a grouping() argument that is no group expression. The bound argument
 * is named by the written one it came from, found among the grouping() calls of `written`.
 */
export function ungroupedArgumentError(
  arg: PlanExpr,
  written: Expr[],
  bind: (e: Expr) => PlanExpr,
  groupSources: Expr[],
  scope: Scope | null,
): DbError {
  const key = planExprKey(arg);
  const source = groupingArguments(written).find((a) => {
    try {
      return planExprKey(bind(a)) === key;
    } catch {
      return false;
    }
  });
  const name = source ? exprName(source, scope, true) : key;
  const grouped = groupSources.map((g) => exprName(g, scope, true)).join(', ');
  return planError(`Argument ${name} to grouping function is not in grouping columns ${grouped}`);
}
