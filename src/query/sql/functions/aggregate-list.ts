/**
 * `array_agg(x [ORDER BY ...])`: every value of the group, NULLs included, as a `List<T>`; NULL
 * when the group has no rows. The partial state keeps each value with its ordering key (the
 * call's ORDER BY keys, then scan-order keys the planner appends, as for `first_value`), so the
 * router orders the merged items the same way however rows spread over shards.
 */
import { type DataType, listTypeOf } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { compareKeys } from './aggregate-ordered.js';
import type { AggregateFunction, AggregateOrder } from './types.js';

/** Values in arrival order, and (when the call is ordered) the key of each. */
interface ListState {
  items: Value[];
  keys: Value[][];
}

function sortedItems(state: ListState, order: AggregateOrder[]): Value[] {
  if (order.length === 0) return state.items;
  const positions = state.items.map((_, i) => i);
  positions.sort((a, b) => compareKeys(state.keys[a] ?? [], state.keys[b] ?? [], order) || a - b);
  return positions.map((i) => state.items[i] as Value);
}

const arrayAgg: AggregateFunction<ListState> = {
  kind: 'aggregate',
  name: 'array_agg',
  bind(argTypes: DataType[]) {
    if (argTypes.length !== 1) {
      throw planError(
        `The function 'array_agg' expected 1 arguments but received ${argTypes.length} No function matches the given name and argument types 'array_agg(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
      );
    }
    return { argTypes, returnType: listTypeOf(argTypes[0] as DataType) };
  },
  create: () => ({ items: [], keys: [] }),
  update(states, groupOf, args, rowCount, _argTypes, order = []) {
    const values = args[0] as Value[];
    const keyColumns = args.slice(1, 1 + order.length);
    for (let r = 0; r < rowCount; r++) {
      const state = states[groupOf[r] as number] as ListState;
      state.items.push(values[r] ?? null);
      if (order.length > 0) state.keys.push(keyColumns.map((k) => k[r] ?? null));
    }
  },
  merge(into, from) {
    for (const v of from.items) into.items.push(v);
    for (const k of from.keys) into.keys.push(k);
  },
  finish: (state, _returnType, order = []) => (state.items.length === 0 ? null : sortedItems(state, order)),
};

/** List aggregates by SQL name. */
export const LIST_AGGREGATE_FUNCTIONS: Record<string, AggregateFunction> = {
  array_agg: arrayAgg as AggregateFunction,
};
