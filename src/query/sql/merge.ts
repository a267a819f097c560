/**
 * The router side of a SQL query: combine what the shards returned.
 *
 *   rows:      concatenate → ORDER BY (shards pre-sorted; the stable sort merges runs) → OFFSET/LIMIT
 *   aggregate: merge equal groups' states → finish → HAVING → projection → DISTINCT → ORDER BY → OFFSET/LIMIT
 */
import { createState, finishState, mergeState } from './aggregate-exec.js';
import { type Batch, evaluate, filterBatch } from './eval.js';
import type { EvalContext } from './functions/types.js';
import type { MergePlan, ShardResult } from './plan.js';
import { fillRange } from './range-fill.js';
import { groupKeyOf } from './shard-exec.js';
import { applyOrder, sortPermutation } from './sort.js';
import type { Value } from './values.js';
import { applyWindows } from './window.js';

/** Merges shard results into the statement's rows (visible columns only, in column order). */
export function mergeShardResults(plan: MergePlan, results: unknown[], ctx: EvalContext): Value[][] {
  const shardResults = results as ShardResult[];
  return plan.kind === 'rows' ? mergeRows(plan, shardResults, ctx) : mergeGroups(plan, shardResults, ctx);
}

function toRows(columns: Value[][], rowCount: number, visible: number): Value[][] {
  const rows = new Array<Value[]>(rowCount);
  for (let r = 0; r < rowCount; r++) {
    const row = new Array<Value>(visible);
    for (let c = 0; c < visible; c++) row[c] = (columns[c] as Value[])[r] as Value;
    rows[r] = row;
  }
  return rows;
}

function mergeRows(plan: Extract<MergePlan, { kind: 'rows' }>, results: ShardResult[], ctx: EvalContext): Value[][] {
  let columns: Value[][] | null = null;
  let rowCount = 0;
  for (const result of results) {
    if (result.kind !== 'rows') continue;
    if (!columns) columns = result.columns.map(() => []);
    result.columns.forEach((c, i) => {
      const target = (columns as Value[][])[i] as Value[];
      for (const v of c) target.push(v);
    });
    rowCount += result.rowCount;
  }
  if (!columns) return [];
  if (plan.windowed) {
    // The shards sent their scan columns: compute windows, then the outputs, here.
    const batch = applyWindows(plan.windowed.windows, { rowCount, columns }, ctx);
    columns = plan.windowed.outputs.map((e) => evaluate(e, batch, ctx));
  }
  let order = sortPermutation(columns, rowCount, plan.sort);
  if (plan.distinctOn) {
    const keyColumns = plan.distinctOn.map((c) => (columns as Value[][])[c] as Value[]);
    const seen = new Set<string>();
    order = order.filter((r) => {
      const k = groupKeyOf(keyColumns.map((c) => c[r] as Value));
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  const out = applyOrder(columns, order, plan.offset, plan.limit);
  return toRows(out.columns, out.rowCount, plan.visible);
}

function mergeGroups(
  plan: Extract<MergePlan, { kind: 'aggregate' }>,
  results: ShardResult[],
  ctx: EvalContext,
): Value[][] {
  const index = new Map<string, number>();
  const keys: Value[][] = [];
  const states: unknown[][] = [];
  for (const result of results) {
    if (result.kind !== 'groups') continue;
    result.keys.forEach((key, i) => {
      const k = groupKeyOf(key);
      const incoming = result.states[i] as unknown[];
      const g = index.get(k);
      if (g === undefined) {
        index.set(k, keys.length);
        keys.push(key);
        states.push(incoming);
      } else {
        const target = states[g] as unknown[];
        plan.aggregates.forEach((call, a) => {
          mergeState(call, target[a], incoming[a]);
        });
      }
    });
  }
  if (!plan.grouped && keys.length === 0) {
    keys.push([]);
    states.push(plan.aggregates.map((call) => createState(call)));
  }
  const n = keys.length;
  const columns: Value[][] = [];
  for (let c = 0; c < plan.groupCount; c++) columns.push(keys.map((k) => k[c] as Value));
  plan.aggregates.forEach((call, a) => {
    columns.push(states.map((s) => finishState(call, s[a])));
  });
  let batch: Batch = plan.range ? fillRange(plan.range, plan.aggregates, columns, n) : { rowCount: n, columns };
  if (plan.having) batch = filterBatch(plan.having, batch, ctx);
  if (plan.windows) batch = applyWindows(plan.windows, batch, ctx);
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
    }
    outputs = outputs.map((c) => keep.map((r) => c[r] as Value));
    rowCount = keep.length;
  }
  const order = sortPermutation(outputs, rowCount, plan.sort);
  const out = applyOrder(outputs, order, plan.offset, plan.limit);
  return toRows(out.columns, out.rowCount, plan.visible);
}
