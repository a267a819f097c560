/** Row ordering shared by shards (pre-sorting, top-k) and the router (final ORDER BY). */
import type { SortKey } from './plan.js';
import { compareValues, type Value } from './values.js';

/** Compares rows `i` and `j` of a columnar batch by `keys` (NULLS FIRST/LAST honoured). */
export function compareRows(columns: Value[][], i: number, j: number, keys: SortKey[]): number {
  for (const key of keys) {
    const col = columns[key.index] as Value[];
    const a = col[i] as Value;
    const b = col[j] as Value;
    let c: number;
    if (a === null || b === null) {
      if (a === b) continue;
      c = (a === null) === key.nullsFirst ? -1 : 1;
      if (c !== 0) return c;
      continue;
    }
    c = compareValues(a, b);
    if (c !== 0) return key.descending ? -c : c;
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
