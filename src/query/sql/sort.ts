/** Row ordering shared by shards (pre-sorting, top-k) and the router (final ORDER BY). */
import type { SortKey } from './plan.js';
import { compareValues, type Value } from './values.js';

/** Orders two values by one key: NULLS FIRST/LAST as asked (whatever the direction), then by value. */
function compareCells(a: Value, b: Value, key: SortKey): number {
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === key.nullsFirst ? -1 : 1;
  }
  const c = compareValues(a, b);
  return key.descending ? -c : c;
}

/** Compares rows `i` and `j` of a columnar batch by `keys` (NULLS FIRST/LAST honoured). */
export function compareRows(columns: Value[][], i: number, j: number, keys: SortKey[]): number {
  for (const key of keys) {
    const col = columns[key.index] as Value[];
    const c = compareCells(col[i] as Value, col[j] as Value, key);
    if (c !== 0) return c;
  }
  return 0;
}

/** Compares row `i` of `columns` with a row given by its key values (`keyValues[k]` for `keys[k]`). */
export function compareRowToKeys(columns: Value[][], i: number, keys: SortKey[], keyValues: Value[]): number {
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as SortKey;
    const c = compareCells((columns[key.index] as Value[])[i] as Value, keyValues[k] as Value, key);
    if (c !== 0) return c;
  }
  return 0;
}

/** A stable ordering of `rowCount` rows by `keys`. */
export function sortPermutation(columns: Value[][], rowCount: number, keys: SortKey[]): number[] {
  const order = Array.from({ length: rowCount }, (_, i) => i);
  if (keys.length > 0) order.sort((i, j) => compareRows(columns, i, j, keys) || i - j);
  return order;
}

/** Reorders and truncates columns: rows `order[offset..offset+limit)`. */
export function applyOrder(
  columns: Value[][],
  order: number[],
  offset: number,
  limit: number | null,
): { rowCount: number; columns: Value[][] } {
  const end = limit === null ? order.length : Math.min(order.length, offset + limit);
  const picked = order.slice(Math.min(offset, order.length), end);
  return { rowCount: picked.length, columns: columns.map((c) => picked.map((i) => c[i] as Value)) };
}
