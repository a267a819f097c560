/**
 * The router side of a SQL query: combine what the shards returned.
 *
 *   rows:      concatenate → ORDER BY (shards pre-sorted; the stable sort merges runs) → OFFSET/LIMIT
 *              (a sole shard's `final` rows are in order already: OFFSET only)
 *   aggregate: merge equal groups' states → finish → HAVING → projection → DISTINCT → ORDER BY → OFFSET/LIMIT
 *
 * It runs on the router's event loop, so every loop over rows or groups checks `slice` and yields
 * once its few milliseconds are used: a result of a million rows is merged, filled, sorted and cut
 * without holding /health or the writes. (HAVING and the projection still evaluate a batch in
 * one go.)
 */

import type { TimeSlice } from '../../../shared/time-slice.js';
import { type Column, type ColumnTable, cellAt, concatColumns, isVector } from '../../columns.js';
import type { EvalContext } from '../functions/types.js';
import { type Batch, evaluate, filterBatch } from '../plan/eval.js';
import type { MergePlan, ShardResult } from '../plan/plan.js';
import type { Value } from '../types/values.js';
import { createState, finishState } from './aggregate-exec.js';
import { GroupMerge } from './group-merge.js';
import { fillRange } from './range-fill.js';
import { groupKeyOf } from './shard-exec.js';
import { applyOrderSliced, identityOrder, sortPermutationSliced } from './sort.js';
import { expandUnnest } from './unnest.js';
import { applyWindows } from './window.js';

/**
 * Merges shard results into the statement's columns (visible ones only, in order): typed where
 * the shards sent plain scan columns, values where expressions computed them.
 */
export function mergeShardResults(
  plan: MergePlan,
  results: unknown[],
  ctx: EvalContext,
  slice: TimeSlice,
): Promise<ColumnTable> {
  const shardResults = results as ShardResult[];
  return plan.kind === 'rows' ? mergeRows(plan, shardResults, ctx, slice) : mergeGroups(plan, shardResults, ctx, slice);
}

/**
 * The shards' parts of one column joined: typed when every shard sent the same kind of vector
 * (a copy of bytes), values otherwise.
 */
async function joinParts(parts: Column[], lengths: number[], slice: TimeSlice): Promise<Column> {
  const first = parts[0];
  if (first !== undefined && isVector(first) && parts.every((p) => isVector(p) && p.kind === first.kind)) {
    const joined = concatColumns(parts, lengths);
    await slice.next();
    return joined;
  }
  const out: Value[] = [];
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] as Column;
    const n = lengths[p] as number;
    for (let r = 0; r < n; r++) {
      out.push(cellAt(part, r) as Value);
      if (slice.tick()) await slice.next();
    }
  }
  return out;
}

async function boxSliced(column: Column, rowCount: number, slice: TimeSlice): Promise<Value[]> {
  if (Array.isArray(column)) return column as Value[];
  const out = new Array<Value>(rowCount);
  for (let r = 0; r < rowCount; r++) {
    out[r] = cellAt(column, r) as Value;
    if (slice.tick()) await slice.next();
  }
  return out;
}

async function mergeRows(
  plan: Extract<MergePlan, { kind: 'rows' }>,
  results: ShardResult[],
  ctx: EvalContext,
  slice: TimeSlice,
): Promise<ColumnTable> {
  const only = results.length === 1 ? results[0] : undefined;
  if (only?.kind === 'rows' && only.final === true && !plan.windowed && !plan.unnest && !plan.distinctOn) {
    return applyOrderSliced(only.columns, identityOrder(only.rowCount), plan.offset, plan.limit, slice);
  }
  const parts: Column[][] = [];
  const lengths: number[] = [];
  for (const result of results) {
    if (result.kind !== 'rows') continue;
    result.columns.forEach((c, i) => {
      (parts[i] ??= []).push(c);
    });
    lengths.push(result.rowCount);
  }
  if (lengths.length === 0) return { rowCount: 0, columns: Array.from({ length: plan.visible }, () => []) };
  const rowCount = lengths.reduce((a, b) => a + b, 0);
  let columns: Column[] = [];
  for (const p of parts) columns.push(await joinParts(p, lengths, slice));
  if (plan.windowed) {
    // The shards sent their scan columns: compute windows, then the outputs, here.
    const boxed: Value[][] = [];
    for (const c of columns) boxed.push(await boxSliced(c, rowCount, slice));
    const batch = await applyWindows(plan.windowed.windows, { rowCount, columns: boxed }, ctx, slice);
    columns = plan.windowed.outputs.map((e) => evaluate(e, batch, ctx));
  }
  let rows = rowCount;
  if (plan.unnest) {
    const expanded = await expandUnnest(columns, rowCount, plan.unnest, slice);
    columns = expanded.columns;
    rows = expanded.rowCount;
  }
  let order = await sortPermutationSliced(columns, rows, plan.sort, slice);
  if (plan.distinctOn) {
    const keyColumns = plan.distinctOn.map((c) => columns[c] as Column);
    const seen = new Set<string>();
    const kept: number[] = [];
    for (let i = 0; i < order.length; i++) {
      const r = order[i] as number;
      const k = groupKeyOf(keyColumns.map((c) => cellAt(c, r) as Value));
      if (!seen.has(k)) {
        seen.add(k);
        kept.push(r);
      }
      if (slice.tick()) await slice.next();
    }
    order = kept;
  }
  return applyOrderSliced(columns.slice(0, plan.visible), order, plan.offset, plan.limit, slice);
}

async function mergeGroups(
  plan: Extract<MergePlan, { kind: 'aggregate' }>,
  results: ShardResult[],
  ctx: EvalContext,
  slice: TimeSlice,
): Promise<ColumnTable> {
  const groups = new GroupMerge(plan.aggregates);
  for (const result of results) if (result.kind === 'groups') await groups.add(result, slice);
  if (plan.grandTotalSets) addGrandTotals(plan, groups);
  if (!plan.grouped && groups.count === 0)
    groups.make(
      [],
      plan.aggregates.map((call) => createState(call)),
    );
  const n = groups.count;
  const columns: Value[][] = [];
  for (let c = 0; c < plan.groupCount; c++) {
    const column = new Array<Value>(n);
    for (let g = 0; g < n; g++) column[g] = groups.keyAt(g, c);
    columns.push(column);
  }
  for (let a = 0; a < plan.aggregates.length; a++) {
    const call = plan.aggregates[a] as (typeof plan.aggregates)[number];
    const finished = new Array<Value>(n);
    for (let g = 0; g < n; g++) {
      finished[g] = finishState(call, groups.stateAt(g, a));
      if (slice.tick()) await slice.next();
    }
    columns.push(finished);
  }
  let batch: Batch = plan.range
    ? await fillRange(plan.range, plan.aggregates, columns, n, slice)
    : { rowCount: n, columns };
  if (plan.having) batch = filterBatch(plan.having, batch, ctx);
  if (plan.windows) batch = await applyWindows(plan.windows, batch, ctx, slice);
  let outputs: Value[][] = plan.outputs.map((e) => evaluate(e, batch, ctx));
  let rowCount = batch.rowCount;
  if (plan.distinct) {
    const seen = new Set<string>();
    const keep: number[] = [];
    for (let r = 0; r < rowCount; r++) {
      const k = groupKeyOf(outputs.slice(0, plan.visible).map((c) => c[r] as Value));
      if (!seen.has(k)) {
        seen.add(k);
        keep.push(r);
      }
      if (slice.tick()) await slice.next();
    }
    outputs = outputs.map((c) => keep.map((r) => c[r] as Value));
    rowCount = keep.length;
  }
  const order = await sortPermutationSliced(outputs, rowCount, plan.sort, slice);
  return applyOrderSliced(outputs.slice(0, plan.visible), order, plan.offset, plan.limit, slice);
}

/**
 * The row of each empty grouping set that no shard sent (no input rows): like an aggregate
 * without GROUP BY, a grand total exists over nothing (count 0, sum NULL).
 */
function addGrandTotals(plan: Extract<MergePlan, { kind: 'aggregate' }>, groups: GroupMerge): void {
  const position = plan.groupCount - 1;
  const present = new Set<Value>();
  for (let g = 0; g < groups.count; g++) present.add(groups.keyAt(g, position));
  for (const s of plan.grandTotalSets ?? []) {
    if (present.has(s)) continue;
    const key = new Array<Value>(plan.groupCount).fill(null);
    key[position] = s;
    groups.make(
      key,
      plan.aggregates.map((call) => createState(call)),
    );
  }
}
