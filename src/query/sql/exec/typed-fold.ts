/**
 * Aggregates over a Float64 column folded from the scan's vector, not from boxed values: an
 * `avg(usage_user)` grouped by host and minute turned every value of the column into a heap
 * number first (8,192 a batch), which the young generation then copied while the groups were
 * being built. Consecutive rows of one group fold as a run through the function's
 * `updateFloat64Run`, which folds the same values in the same order as `update` would.
 */
import type { Vector } from '../../../shared/types.js';
import { aggregateFunction } from '../functions/registry.js';
import type { AggregateFunction } from '../functions/types.js';
import type { Batch } from '../plan/eval.js';
import type { AggregateCall } from '../plan/plan.js';

type RunFold = NonNullable<AggregateFunction['updateFloat64Run']>;

/**
 * Folds `call` over `batch` into `states` (row r into `states[groupOf[r]]`) when its first argument
 * is a Float64 column the batch still has as a vector and any others are constants (the states took
 * them when made: `approx_percentile_cont(x, 0.9)`); false (nothing done) otherwise.
 */
export function foldTyped(call: AggregateCall, batch: Batch, groupOf: Uint32Array, states: unknown[]): boolean {
  if (call.distinct || !onlyConstantsAfterFirst(call)) return false;
  if (call.order !== undefined && call.order.length > 0) return false;
  if (call.rangeNanos !== undefined) return false;
  const arg = call.args[0];
  if (arg?.kind !== 'column' || arg.type !== 'Float64') return false;
  const vector: Vector | undefined = batch.vectors?.[arg.index];
  if (vector === undefined || vector.kind !== 'f64') return false;
  const fold: RunFold | undefined = aggregateFunction(call.name).updateFloat64Run;
  if (fold === undefined) return false;
  const values = vector.values as Float64Array;
  const valid = vector.valid;
  const selection = batch.selection;
  const n = batch.rowCount;
  let r = 0;
  while (r < n) {
    const g = groupOf[r] as number;
    const from = selection === undefined ? r : (selection[r] as number);
    let to = from + 1;
    r++;
    while (r < n && groupOf[r] === g && (selection === undefined ? r : selection[r]) === to) {
      to++;
      r++;
    }
    fold(states[g], values, valid, from, to);
  }
  return true;
}

/** Whether the call has one argument, or constants after its first (which `create` was given). */
export function onlyConstantsAfterFirst(call: AggregateCall): boolean {
  if (call.args.length === 0) return false;
  for (let i = 1; i < call.args.length; i++) if (call.args[i]?.kind !== 'literal') return false;
  return true;
}
