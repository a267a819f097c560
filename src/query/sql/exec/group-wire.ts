/**
 * A shard's grouped partial result as it crosses to the router: key columns and, per aggregate,
 * its states packed where their shape allows. Sent as one array and one state object per group,
 * a 60,000-group answer was hundreds of thousands of objects for structured clone to walk on
 * the shard's thread and to rebuild on the router's (19% of a shard on such a query); columns
 * cut that about 3×, and states of numbers packed into Float64Arrays (count, sum, avg, min/max
 * of numbers: the common aggregates) are transferred, not cloned, and rebuilt only as the router
 * merges them.
 */
import { wholeBuffers } from '../../columns.js';
import type { GroupsResult, PackedKeys, PackedStates } from '../plan/plan.js';
import type { Value } from '../types/values.js';

/** The answer for `keys` (one row per group) and `states[a][g]` (aggregate a, group g). */
export function groupsResult(keys: readonly Value[][], states: readonly unknown[][]): GroupsResult {
  const count = keys.length;
  const keyCount = count === 0 ? 0 : (keys[0] as Value[]).length;
  const columns: Value[][] = [];
  for (let c = 0; c < keyCount; c++) {
    const column = new Array<Value>(count);
    for (let g = 0; g < count; g++) column[g] = (keys[g] as Value[])[c] as Value;
    columns.push(column);
  }
  return groupsResultOfColumns(count, columns, states);
}

/** The same answer from key columns (`columns[c][g]`: key column c of group g). */
export function groupsResultOfColumns(
  count: number,
  columns: readonly Value[][],
  states: readonly unknown[][],
): GroupsResult {
  return { kind: 'groups', count, keys: columns.map(packKeys), states: states.map(packStates) };
}

/**
 * A key column as a typed array when every value is a number (or every one an int64 bigint),
 * NULLs aside: time buckets and numeric tags, which structured clone would copy one by one.
 */
export function packKeys(values: Value[]): PackedKeys {
  const first = values.find((v) => v !== null);
  if (typeof first === 'number') {
    const packed = packed64(values, new Float64Array(values.length), (v) => typeof v === 'number');
    if (packed !== null) return { kind: 'f64', values: packed.values, nulls: packed.nulls };
  } else if (typeof first === 'bigint') {
    const fits = (v: Value): boolean => typeof v === 'bigint' && BigInt.asIntN(64, v) === v;
    const packed = packed64(values, new BigInt64Array(values.length), fits);
    if (packed !== null) return { kind: 'i64', values: packed.values, nulls: packed.nulls };
  }
  return { kind: 'values', values };
}

/** `values` copied into `into` with their NULLs marked, or null at the first value `fits` refuses. */
function packed64<A extends Float64Array | BigInt64Array>(
  values: readonly Value[],
  into: A,
  fits: (v: Value) => boolean,
): { values: A; nulls: Uint8Array | undefined } | null {
  let nulls: Uint8Array | undefined;
  for (let g = 0; g < values.length; g++) {
    const v = values[g] as Value;
    if (v === null) (nulls ??= new Uint8Array(values.length))[g] = 1;
    else if (fits(v)) into[g] = v as never;
    else return null;
  }
  return { values: into, nulls };
}

/** Group g's value of a key column. */
export function keyAt(packed: PackedKeys, g: number): Value {
  if (packed.kind === 'values') return packed.values[g] as Value;
  if (packed.nulls?.[g] === 1) return null;
  return packed.values[g] as number | bigint;
}

/** `states` packed into number columns when every one has the same plain, numeric shape. */
export function packStates(states: readonly unknown[]): PackedStates {
  const objects: PackedStates = { kind: 'objects', states: states as unknown[] };
  const first = states[0];
  if (first === null || typeof first !== 'object' || Object.getPrototypeOf(first) !== Object.prototype) return objects;
  const names = Object.keys(first);
  if (names.length === 0) return objects;
  const numbers = names.map(() => new Float64Array(states.length));
  const nulls = new Array<Uint8Array | undefined>(names.length).fill(undefined);
  for (let g = 0; g < states.length; g++) {
    const state = states[g] as Record<string, unknown>;
    if (state === null || typeof state !== 'object' || Object.getPrototypeOf(state) !== Object.prototype)
      return objects;
    let seen = 0;
    for (const name in state) {
      if (name !== names[seen]) return objects;
      const v = state[name];
      if (typeof v === 'number') (numbers[seen] as Float64Array)[g] = v;
      else if (v === null) (nulls[seen] ??= new Uint8Array(states.length))[g] = 1;
      else return objects;
      seen++;
    }
    if (seen !== names.length) return objects;
  }
  return { kind: 'fields', names, numbers, nulls };
}

/** Group g's state, rebuilt when packed (a new object: the merge may fold into it). */
export function stateAt(packed: PackedStates, g: number): unknown {
  if (packed.kind === 'objects') return packed.states[g];
  const state: Record<string, number | null> = {};
  for (let f = 0; f < packed.names.length; f++) {
    state[packed.names[f] as string] =
      packed.nulls[f]?.[g] === 1 ? null : ((packed.numbers[f] as Float64Array)[g] as number);
  }
  return state;
}

/** The buffers of the packed keys and states, to transfer rather than copy to the router. */
export function groupBuffers(result: GroupsResult): ArrayBuffer[] {
  const views: Array<ArrayBufferView | undefined> = [];
  for (const packed of result.keys) if (packed.kind !== 'values') views.push(packed.values, packed.nulls);
  for (const packed of result.states) if (packed.kind === 'fields') views.push(...packed.numbers, ...packed.nulls);
  return wholeBuffers(views);
}
