/** Row ordering shared by shards (pre-sorting, top-k) and the router (final ORDER BY). */
import type { TimeSlice } from '../../../shared/time-slice.js';
import type { SortKey } from '../plan/plan.js';
import { compareValues, type Value } from '../types/values.js';

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

/** Rows sorted natively in one go by `sortPermutationSliced`: a few milliseconds of comparisons. */
const SORT_RUN_ROWS = 16_384;

/**
 * The same order as `sortPermutation`, computed so that a long sort never holds the thread: runs
 * of SORT_RUN_ROWS are sorted natively, then merged pairwise, checking `slice` as it goes. The
 * row index breaks ties, so the order is total and the result stable, as a single sort's.
 */
export async function sortPermutationSliced(
  columns: Value[][],
  rowCount: number,
  keys: SortKey[],
  slice: TimeSlice,
): Promise<number[]> {
  if (keys.length === 0 || rowCount <= SORT_RUN_ROWS) return sortPermutation(columns, rowCount, keys);
  const cmp = (i: number, j: number): number => compareRows(columns, i, j, keys) || i - j;
  let runs: number[][] = [];
  for (let start = 0; start < rowCount; start += SORT_RUN_ROWS) {
    const end = Math.min(rowCount, start + SORT_RUN_ROWS);
    const run = new Array<number>(end - start);
    for (let i = start; i < end; i++) run[i - start] = i;
    run.sort(cmp);
    runs.push(run);
    await slice.next();
  }
  while (runs.length > 1) {
    const merged: number[][] = [];
    for (let k = 0; k < runs.length; k += 2) {
      const a = runs[k] as number[];
      const b = runs[k + 1];
      merged.push(b === undefined ? a : await mergeRuns(a, b, cmp, slice));
    }
    runs = merged;
  }
  return runs[0] as number[];
}

async function mergeRuns(
  a: number[],
  b: number[],
  cmp: (i: number, j: number) => number,
  slice: TimeSlice,
): Promise<number[]> {
  const out = new Array<number>(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) {
    out[o++] = cmp(a[i] as number, b[j] as number) <= 0 ? (a[i++] as number) : (b[j++] as number);
    if (slice.tick()) await slice.next();
  }
  while (i < a.length) out[o++] = a[i++] as number;
  while (j < b.length) out[o++] = b[j++] as number;
  return out;
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

/** `applyOrder` for long results, checking `slice` as it copies. */
export async function applyOrderSliced(
  columns: Value[][],
  order: number[],
  offset: number,
  limit: number | null,
  slice: TimeSlice,
): Promise<{ rowCount: number; columns: Value[][] }> {
  const end = limit === null ? order.length : Math.min(order.length, offset + limit);
  const start = Math.min(offset, order.length);
  const out: Value[][] = [];
  for (const c of columns) {
    const picked = new Array<Value>(end - start);
    for (let r = start; r < end; r++) {
      picked[r - start] = c[order[r] as number] as Value;
      if (slice.tick()) await slice.next();
    }
    out.push(picked);
  }
  return { rowCount: end - start, columns: out };
}
