/**
 * `nth_value(x, n [ORDER BY ...])` as an aggregate: the n-th value of the group (1-based; a
 * negative n counts from the last), NULL when the group has fewer rows. NULL values count, as
 * DataFusion's RESPECT NULLS default has it. Like array_agg, each value travels with its ordering
 * key (the call's ORDER BY keys, then the scan-order keys the planner appends), so the router
 * picks the same row however rows spread over shards.
 */
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { compareKeys } from './aggregate-ordered.js';
import { signatureError } from './typed.js';
import type { AggregateFunction } from './types.js';

interface NthState {
  items: Value[];
  keys: Value[][];
  n: number;
}

const nthValue: AggregateFunction<NthState> = {
  kind: 'aggregate',
  name: 'nth_value',
  bind(argTypes, literals = []) {
    const nType = argTypes[1];
    if (argTypes.length !== 2 || nType === undefined || !isInteger(nType)) throw signatureError('nth_value', argTypes);
    const n = literals[1];
    // The position is part of the plan in DataFusion, so it must be a constant.
    if (n === undefined || n === null)
      throw planError(`nth_value not supported for n: ${n === null ? 'NULL' : 'a column'}`);
    if (Number(n) === 0) throw planError('nth_value expects n to be non-zero');
    return { argTypes: [argTypes[0] as DataType, 'Int64'], returnType: argTypes[0] as DataType };
  },
  create: () => ({ items: [], keys: [], n: 0 }),
  update(states, groupOf, args, rowCount, _argTypes, order = []) {
    const values = args[0] as Value[];
    const ns = args[1] as Value[];
    const keyColumns = args.slice(2, 2 + order.length);
    for (let r = 0; r < rowCount; r++) {
      const state = states[groupOf[r] as number] as NthState;
      state.n = Number(ns[r] ?? 0);
      state.items.push(values[r] ?? null);
      if (order.length > 0) state.keys.push(keyColumns.map((k) => k[r] ?? null));
    }
  },
  merge(into, from) {
    if (from.n !== 0) into.n = from.n;
    for (const v of from.items) into.items.push(v);
    for (const k of from.keys) into.keys.push(k);
  },
  finish(state, _returnType, order = []) {
    const count = state.items.length;
    const at = state.n > 0 ? state.n - 1 : count + state.n;
    if (at < 0 || at >= count) return null;
    if (order.length === 0) return state.items[at] ?? null;
    const positions = state.items.map((_, i) => i);
    positions.sort((a, b) => compareKeys(state.keys[a] ?? [], state.keys[b] ?? [], order) || a - b);
    return state.items[positions[at] as number] ?? null;
  },
};

/** The positional aggregate by SQL name (window calls of nth_value bind in window-bind.ts). */
export const NTH_AGGREGATE_FUNCTIONS: Record<string, AggregateFunction> = {
  nth_value: nthValue as AggregateFunction,
};
