/**
 * The common dashboard aggregate, `GROUP BY` tags of `count`/`sum`/`avg`/`min`/`max` over Float64
 * fields (or `DISTINCT` over a tag) with no row filter, folded a series run at a time: a scan chunk says where each series'
 * rows begin, a series' tags are the same on all its rows, so its group is looked up once per run
 * and the field's Float64Array is folded straight into the group's state. The general path boxes
 * every value of every column into a `Value[]` first and looks the group up per row; the states
 * and results are the same (the functions' `updateFloat64Run` folds the same values in the same
 * order as their `update`).
 */
import type { ScanChunk, SeriesSummary } from '../../../shared/scan.js';
import type { DataType, Vector } from '../../../shared/types.js';
import { aggregateFunction } from '../functions/registry.js';
import type { AggregateFunction } from '../functions/types.js';
import type { ShardPlan } from '../plan/plan.js';
import { tagValue } from '../types/tag-text.js';
import type { Value } from '../types/values.js';
import { onlyConstantsAfterFirst } from './typed-fold.js';

export interface SeriesRunPlan {
  /** Scan slots of the GROUP BY tags, and their logical types. */
  keySlots: number[];
  keyTypes: DataType[];
  /**
   * Per aggregate call: its function and the scan slot of its Float64 argument (null: none); or,
   * for `DISTINCT` over a tag (`count(DISTINCT host)`), the tag's slot and type: a tag is the same
   * on every row of a series, so one value a series run (or summary) is all the distinct set needs.
   */
  calls: Array<{ fn: AggregateFunction; slot: number | null; distinctTag?: DataType }>;
}

/** The partial state of a DISTINCT call (aggregate-exec.ts). */
interface DistinctState {
  distinct: Set<Value>;
}

/** The plan's run form, or null when the aggregate needs the general path. */
export function seriesRunPlanOf(p: ShardPlan): SeriesRunPlan | null {
  const scan = p.scan;
  const output = p.output;
  if (output.kind !== 'aggregate' || scan === null || p.filter !== null || scan.casts || scan.fills) return null;
  // A row of a grouping-sets query folds into one group per set: not one group per series run.
  if (output.groupingSets !== undefined) return null;
  const keySlots: number[] = [];
  for (const e of output.groupBy) {
    if (e.kind !== 'column' || scan.columns[e.index]?.role !== 'tag') return null;
    keySlots.push(e.index);
  }
  const calls: SeriesRunPlan['calls'] = [];
  for (const call of output.aggregates) {
    if ((call.order && call.order.length > 0) || call.rangeNanos !== undefined) return null;
    const fn = aggregateFunction(call.name);
    if (call.distinct) {
      const arg = call.args[0];
      if (call.args.length !== 1 || arg?.kind !== 'column' || scan.columns[arg.index]?.role !== 'tag') return null;
      calls.push({ fn, slot: arg.index, distinctTag: scan.types[arg.index] as DataType });
      continue;
    }
    if (fn.updateFloat64Run === undefined || (call.args.length > 1 && !onlyConstantsAfterFirst(call))) return null;
    const arg = call.args[0];
    if (arg === undefined) {
      if (fn.name !== 'count') return null;
      calls.push({ fn, slot: null });
      continue;
    }
    if (arg.kind !== 'column' || scan.columns[arg.index]?.kind !== 'f64' || scan.types[arg.index] !== 'Float64') {
      return null;
    }
    calls.push({ fn, slot: arg.index });
  }
  return { keySlots, keyTypes: keySlots.map((slot) => scan.types[slot] as DataType), calls };
}

/** The value of a tag column at `row`: its stored text, typed as tag-text.ts defines. */
function tagAt(vector: Vector, row: number, type: DataType): Value {
  const text = vector.valid && vector.valid[row] === 0 ? null : ((vector.values as Array<string | null>)[row] ?? null);
  return tagValue(text, type);
}

/**
 * Folds every series run of `chunk` into the states of its group (`groupOf(key)` finds or makes
 * it; `states[a][g]` is aggregate a's state of group g). False when the chunk does not say where
 * its series begin, and the caller must take the general path.
 */
export function foldSeriesRuns(
  plan: SeriesRunPlan,
  chunk: ScanChunk,
  groupOf: (key: Value[]) => number,
  states: unknown[][],
): boolean {
  const starts = chunk.seriesStarts;
  if (starts === undefined) return false;
  const n = chunk.rowCount;
  for (let i = 0; i < starts.length; i++) {
    const from = starts[i] as number;
    const to = i + 1 < starts.length ? (starts[i + 1] as number) : n;
    if (from >= to) continue;
    const key = plan.keySlots.map((slot, k) =>
      tagAt(chunk.vectors[slot] as Vector, from, plan.keyTypes[k] as DataType),
    );
    const g = groupOf(key);
    for (let a = 0; a < plan.calls.length; a++) {
      const { fn, slot, distinctTag } = plan.calls[a] as SeriesRunPlan['calls'][number];
      if (distinctTag !== undefined) {
        const value = tagAt(chunk.vectors[slot as number] as Vector, from, distinctTag);
        if (value !== null) ((states[a] as unknown[])[g] as DistinctState).distinct.add(value);
        continue;
      }
      const vector = slot === null ? null : (chunk.vectors[slot] as Vector);
      const update = fn.updateFloat64Run as NonNullable<AggregateFunction['updateFloat64Run']>;
      update((states[a] as unknown[])[g], vector ? (vector.values as Float64Array) : null, vector?.valid, from, to);
    }
  }
  return true;
}

/** Whether every call of the plan can fold series summaries (`ScanRequest.summaries`). */
export function takesSummaries(plan: SeriesRunPlan): boolean {
  return plan.calls.every(({ fn, distinctTag }) => distinctTag !== undefined || fn.updateSummary !== undefined);
}

/** Folds series given by their statistics into the states of their groups, as `foldSeriesRuns` does rows. */
export function foldSummaries(
  plan: SeriesRunPlan,
  summaries: readonly SeriesSummary[],
  groupOf: (key: Value[]) => number,
  states: unknown[][],
): void {
  for (const s of summaries) {
    const key = plan.keySlots.map((slot, k) => tagValue(s.tags[slot] ?? null, plan.keyTypes[k] as DataType));
    const g = groupOf(key);
    for (let a = 0; a < plan.calls.length; a++) {
      const { fn, slot, distinctTag } = plan.calls[a] as SeriesRunPlan['calls'][number];
      if (distinctTag !== undefined) {
        const value = tagValue(s.tags[slot as number] ?? null, distinctTag);
        if (value !== null && s.rows > 0) ((states[a] as unknown[])[g] as DistinctState).distinct.add(value);
        continue;
      }
      const update = fn.updateSummary as NonNullable<AggregateFunction['updateSummary']>;
      if (slot === null) {
        update((states[a] as unknown[])[g], s.rows, null, 0, Number.NaN, Number.NaN);
        continue;
      }
      const at = slot * 4;
      const st = s.stats;
      update(
        (states[a] as unknown[])[g],
        s.rows,
        st[at] as number,
        st[at + 1] as number,
        st[at + 2] as number,
        st[at + 3] as number,
      );
    }
  }
}
