/**
 * Scan pruning derived from WHERE: conjuncts on the time index (`>`, `>=`, `<`, `<=`, `=`,
 * BETWEEN, which binds to two comparisons) narrow `[timeMin, timeMax)`, and equality or IN on
 * string tags becomes a series filter. Pruning is only ever a superset of the matching rows: the
 * shard still evaluates the full predicate, so anything not understood here is simply ignored.
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import { type DataType, NANOS_PER_UNIT, timeUnitOf } from '../../../shared/types.js';
import type { ComparisonOperator, PlanExpr, SeriesFilterSpec } from './plan.js';

/** What a WHERE clause lets storage skip. */
export interface ScanPruning {
  timeMin?: bigint | undefined;
  timeMax?: bigint | undefined;
  seriesFilter: SeriesFilterSpec[];
}

/** Where the time index and String tags sit among the scan slots. */
export interface PruningColumns {
  /** Scan slot and type of the time index, when the query references it. */
  time: { slot: number; type: DataType } | null;
  /** Scan slot → storage column id, for String tags. */
  stringTags: Map<number, number>;
}

/** The AND-ed parts of a predicate. */
export function conjuncts(expr: PlanExpr): PlanExpr[] {
  return expr.kind === 'and' ? [...conjuncts(expr.left), ...conjuncts(expr.right)] : [expr];
}

const FLIPPED: Record<ComparisonOperator, ComparisonOperator> = {
  '=': '=',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

function isColumn(expr: PlanExpr, slot: number): boolean {
  if (expr.kind === 'column') return expr.index === slot;
  // The binder casts the column to a finer timestamp unit when the literal has sub-unit precision.
  return expr.kind === 'cast' && timeUnitOf(expr.type) !== null && isColumn(expr.arg, slot);
}

/** Derives time bounds and series filters from the AND-ed parts of `filter`. */
export function extractPruning(filter: PlanExpr | null, columns: PruningColumns): ScanPruning {
  const out: ScanPruning = { seriesFilter: [] };
  if (!filter) return out;
  const tighten = (min: bigint | null, max: bigint | null): void => {
    if (min !== null && (out.timeMin === undefined || min > out.timeMin)) out.timeMin = min;
    if (max !== null && (out.timeMax === undefined || max < out.timeMax)) out.timeMax = max;
  };
  for (const c of conjuncts(filter)) {
    if (c.kind === 'compare') {
      const range = timeBoundsOf(c, columns.time);
      if (range) {
        tighten(range[0], range[1]);
        continue;
      }
      if (c.op === '=') {
        const spec = tagEquality(c.left, c.right, columns) ?? tagEquality(c.right, c.left, columns);
        if (spec) out.seriesFilter.push(spec);
      }
    } else if (c.kind === 'in' && !c.negated && c.arg.kind === 'column') {
      const columnId = columns.stringTags.get(c.arg.index);
      if (columnId !== undefined && c.list.every((e) => e.kind === 'literal')) {
        const values = c.list
          .map((e) => (e as { value: unknown }).value)
          .filter((v): v is string => typeof v === 'string');
        out.seriesFilter.push({ columnId, values });
      }
    }
  }
  return out;
}

/** The `[min, max)` a comparison of the time index with a timestamp literal bounds it to. */
function timeBoundsOf(
  c: Extract<PlanExpr, { kind: 'compare' }>,
  time: PruningColumns['time'],
): [bigint | null, bigint | null] | null {
  if (!time) return null;
  let op: ComparisonOperator | null = null;
  let lit: PlanExpr | null = null;
  if (isColumn(c.left, time.slot) && c.right.kind === 'literal') [op, lit] = [c.op, c.right];
  else if (isColumn(c.right, time.slot) && c.left.kind === 'literal') [op, lit] = [FLIPPED[c.op], c.left];
  if (!op || !lit || lit.kind !== 'literal' || typeof lit.value !== 'bigint') return null;
  return boundsOf(op, lit.value, lit.type, time.type);
}

/**
 * `filter` less its conjuncts that became time bounds. Storage returns only rows inside the
 * bounds (the scan cuts each series' rows at them), so over a scan given those bounds the
 * conjuncts hold for every row, and evaluating them would only box each timestamp to compare it.
 */
export function residualFilter(filter: PlanExpr | null, time: PruningColumns['time']): PlanExpr | null {
  if (!filter || !time) return filter;
  const kept = conjuncts(filter).filter((c) => c.kind !== 'compare' || timeBoundsOf(c, time) === null);
  if (kept.length === 0) return null;
  return kept.reduce((left, right) => ({ kind: 'and', left, right, type: 'Boolean' }) as PlanExpr);
}

function tagEquality(a: PlanExpr, b: PlanExpr, columns: PruningColumns): SeriesFilterSpec | null {
  if (a.kind !== 'column' || b.kind !== 'literal' || typeof b.value !== 'string') return null;
  const columnId = columns.stringTags.get(a.index);
  return columnId === undefined ? null : { columnId, values: [b.value] };
}

/** `[min, max)` in the column's unit for `column op literal`; null when the operator gives none. */
function boundsOf(
  op: ComparisonOperator,
  value: bigint,
  literalType: DataType,
  columnType: DataType,
): [bigint | null, bigint | null] | null {
  const litUnit = timeUnitOf(literalType);
  const colUnit = timeUnitOf(columnType);
  if (!litUnit || !colUnit) return null;
  const nanos = value * NANOS_PER_UNIT[litUnit];
  const k = NANOS_PER_UNIT[colUnit];
  const floor = floorDiv(nanos, k);
  const exact = nanos - floor * k === 0n;
  switch (op) {
    case '>':
      return [floor + 1n, null];
    case '>=':
      return [exact ? floor : floor + 1n, null];
    case '<':
      return [null, exact ? floor : floor + 1n];
    case '<=':
      return [null, floor + 1n];
    case '=':
      return exact ? [floor, floor + 1n] : [floor + 1n, floor + 1n];
    default:
      return null;
  }
}
