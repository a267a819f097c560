/**
 * Aggregates whose result depends on row order: `first_value` and `last_value`. The ordering keys
 * travel as trailing arguments (the planner appends the call's ORDER BY keys, then scan-order keys
 * as tie-breakers), so partial states from different shards merge deterministically: each state
 * keeps its value together with the key of the row it came from.
 */
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import { compareValues, type Value } from '../types/values.js';
import type { AggregateFunction, AggregateOrder } from './types.js';

interface OrderedState {
  has: boolean;
  value: Value;
  key: Value[];
}

/** Compares ordering keys under their directions (NULLS FIRST/LAST honoured). */
export function compareKeys(a: Value[], b: Value[], order: AggregateOrder[]): number {
  for (let i = 0; i < order.length; i++) {
    const o = order[i] as AggregateOrder;
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === null || y === null) {
      if (x === y) continue;
      return (x === null) === o.nullsFirst ? -1 : 1;
    }
    const c = compareValues(x, y);
    if (c !== 0) return o.descending ? -c : c;
  }
  return 0;
}

function ordered(name: 'first_value' | 'last_value'): AggregateFunction<OrderedState> {
  const last = name === 'last_value';
  /** True when a row with key `candidate` replaces the state's row. */
  const wins = (state: OrderedState, candidate: Value[], order: AggregateOrder[]): boolean => {
    if (!state.has) return true;
    const c = compareKeys(candidate, state.key, order);
    return last ? c >= 0 : c < 0;
  };
  return {
    kind: 'aggregate',
    name,
    bind(argTypes: DataType[]) {
      if (argTypes.length !== 1) {
        throw planError(
          `The function '${name}' expected 1 arguments but received ${argTypes.length} No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.\n\tCandidate functions:\n\t${name}(Any)`,
        );
      }
      return { argTypes, returnType: argTypes[0] as DataType };
    },
    create: () => ({ has: false, value: null, key: [] }),
    update(states, groupOf, args, rowCount, _argTypes, order = []) {
      const values = args[0] as Value[];
      const keys = args.slice(1);
      for (let r = 0; r < rowCount; r++) {
        const state = states[groupOf[r] as number] as OrderedState;
        const key = keys.map((k) => k[r] as Value);
        if (order.length === 0 ? last || !state.has : wins(state, key, order)) {
          state.has = true;
          state.value = values[r] ?? null;
          state.key = key;
        }
      }
    },
    merge(into, from, order = []) {
      if (!from.has) return;
      if (order.length === 0 ? last || !into.has : wins(into, from.key, order)) {
        into.has = true;
        into.value = from.value;
        into.key = from.key;
      }
    },
    finish: (state) => state.value,
  };
}

/** Ordered aggregates by SQL name. */
export const ORDERED_AGGREGATE_FUNCTIONS: Record<string, AggregateFunction> = {
  first_value: ordered('first_value') as AggregateFunction,
  last_value: ordered('last_value') as AggregateFunction,
};
