/**
 * Running aggregate calls over groups, shared by the shard (partial states) and the router
 * (merging and finishing). `DISTINCT` wraps any aggregate: its partial state is the set of
 * distinct non-NULL argument values, shipped whole and replayed into the real aggregate at the end.
 */
import type { DataType } from '../../../shared/types.js';
import { aggregateFunction } from '../functions/registry.js';
import type { AggregateCall, AggregateOrder } from '../plan/plan.js';
import type { Value } from '../types/values.js';

/** Partial state of a DISTINCT aggregate. Sets survive structured clone. */
interface DistinctState {
  distinct: Set<Value>;
}

/** A fresh partial state for one group. */
export function createState(call: AggregateCall): unknown {
  return call.distinct
    ? ({ distinct: new Set<Value>() } satisfies DistinctState)
    : aggregateFunction(call.name).create();
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
    for (let r = 0; r < rowCount; r++) {
      const v = col[r] as Value;
      if (v !== null) (states[groupOf[r] as number] as DistinctState).distinct.add(v);
    }
    return;
  }
  aggregateFunction(call.name).update(states, groupOf, args, rowCount, argTypes(call), call.order);
}

/** Folds a partial state from another shard into `into`. */
export function mergeState(call: AggregateCall, into: unknown, from: unknown): void {
  if (call.distinct) {
    for (const v of (from as DistinctState).distinct) (into as DistinctState).distinct.add(v);
    return;
  }
  aggregateFunction(call.name).merge(into, from, call.order);
}

/** The aggregate's result value from a (merged) state. */
export function finishState(call: AggregateCall, state: unknown): Value {
  const fn = aggregateFunction(call.name);
  if (call.distinct) {
    const values = [...(state as DistinctState).distinct];
    const inner = fn.create();
    // Ordered DISTINCT calls order by the argument itself (DataFusion requires it), so the
    // distinct values are their own ordering key; tie-breaking keys mean nothing here.
    const order = call.order && call.order.length > 0 ? [call.order[0] as AggregateOrder] : undefined;
    const args = order ? [values, values] : [values];
    fn.update([inner], new Uint32Array(values.length), args, values.length, argTypes(call), order);
    return fn.finish(inner, call.type, order);
  }
  return fn.finish(state, call.type, call.order);
}

function argTypes(call: AggregateCall): DataType[] {
  return call.args.map((a) => a.type);
}
