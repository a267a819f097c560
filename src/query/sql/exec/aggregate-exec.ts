/**
 * Running aggregate calls over groups, shared by the shard (partial states) and the router
 * (merging and finishing). `DISTINCT` wraps any aggregate: its partial state is the set of
 * distinct non-NULL argument values, shipped whole and replayed into the real aggregate at the end,
 * together with the call's other arguments as first seen (string_agg's separator), which must be
 * constants.
 */
import type { DataType } from '../../../shared/types.js';
import { aggregateFunction } from '../functions/registry.js';
import type { AggregateCall, AggregateOrder } from '../plan/plan.js';
import type { Value } from '../types/values.js';

/** Partial state of a DISTINCT aggregate. Sets survive structured clone. */
interface DistinctState {
  distinct: Set<Value>;
  /** Arguments 1.. of the function itself (not ORDER BY keys) from the first counted row. */
  rest: Value[] | null;
}

/** A fresh partial state for one group. */
export function createState(call: AggregateCall): unknown {
  return call.distinct
    ? ({ distinct: new Set<Value>(), rest: null } satisfies DistinctState)
    : aggregateFunction(call.name).create(literalArgs(call));
}

/** The call's constant arguments (undefined where an argument is not a literal). */
function literalArgs(call: AggregateCall): Array<Value | undefined> {
  return call.args.map((a) => (a.kind === 'literal' ? a.value : undefined));
}

/** Folds a batch's argument columns into per-group states. */
export function updateStates(
  call: AggregateCall,
  states: unknown[],
  groupOf: Uint32Array,
  args: Value[][],
  rowCount: number,
): void {
  if (call.distinct) {
    const col = args[0];
    if (!col) return;
    const own = ownArgCount(call);
    for (let r = 0; r < rowCount; r++) {
      const v = col[r] as Value;
      if (v === null) continue;
      const state = states[groupOf[r] as number] as DistinctState;
      state.distinct.add(v);
      if (own > 1 && state.rest === null) state.rest = args.slice(1, own).map((a) => a[r] ?? null);
    }
    return;
  }
  aggregateFunction(call.name).update(states, groupOf, args, rowCount, argTypes(call), call.order);
}

/** Folds a partial state from another shard into `into`. */
export function mergeState(call: AggregateCall, into: unknown, from: unknown): void {
  if (call.distinct) {
    const target = into as DistinctState;
    for (const v of (from as DistinctState).distinct) target.distinct.add(v);
    target.rest ??= (from as DistinctState).rest;
    return;
  }
  aggregateFunction(call.name).merge(into, from, call.order);
}

/** The aggregate's result value from a (merged) state. */
export function finishState(call: AggregateCall, state: unknown): Value {
  const fn = aggregateFunction(call.name);
  if (call.distinct) {
    const { distinct, rest } = state as DistinctState;
    const values = [...distinct];
    const inner = fn.create(literalArgs(call));
    const restColumns = (rest ?? new Array<Value>(ownArgCount(call) - 1).fill(null)).map((v) => values.map(() => v));
    // Ordered DISTINCT calls order by the argument itself (DataFusion requires it), so the
    // distinct values are their own ordering key; tie-breaking keys mean nothing here.
    const order = call.order && call.order.length > 0 ? [call.order[0] as AggregateOrder] : undefined;
    const args = order ? [values, ...restColumns, values] : [values, ...restColumns];
    fn.update([inner], new Uint32Array(values.length), args, values.length, argTypes(call), order);
    return fn.finish(inner, call.type, order);
  }
  return fn.finish(state, call.type, call.order);
}

/** How many of the call's arguments are the function's own: the rest are ORDER BY keys. */
function ownArgCount(call: AggregateCall): number {
  return Math.max(1, call.args.length - (call.order?.length ?? 0));
}

function argTypes(call: AggregateCall): DataType[] {
  return call.args.map((a) => a.type);
}
