/**
 * Row ordering shared by shards (pre-sorting, top-k) and the router (final ORDER BY). Sorting
 * computes a permutation; columns are gathered once at the end, typed vectors as typed arrays.
 */

import type { TimeSlice } from '../../../shared/time-slice.js';
import { type Column, concatColumns, gatherColumn } from '../../columns.js';
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

type RowCompare = (i: number, j: number) => number;

/** Compares two rows of one column by `key`, reading typed vectors without boxing their cells. */
function keyCompare(column: Column, key: SortKey): RowCompare {
  if (Array.isArray(column)) {
    const col = column as Value[];
    return (i, j) => compareCells(col[i] as Value, col[j] as Value, key);
  }
  const sign = key.descending ? -1 : 1;
  const valid = column.valid;
  let values: RowCompare;
  switch (column.kind) {
    case 'f64': {
      const a = column.values as Float64Array;
      values = (i, j) => {
        const x = a[i] as number;
        const y = a[j] as number;
        if (x < y) return -1;
        if (x > y) return 1;
        if (x === y) return 0;
        // NaN sorts after every number, as compareValues orders it.
        const xn = Number.isNaN(x);
        return xn === Number.isNaN(y) ? 0 : xn ? 1 : -1;
      };
      break;
    }
    case 'i64':
    case 'u64': {
      // Two 32-bit words per value (little-endian): high word signed for i64, then low unsigned.
      const bytes = column.values as BigInt64Array | BigUint64Array;
      const hi =
        column.kind === 'i64'
          ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length * 2)
          : new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length * 2);
      const lo = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length * 2);
      values = (i, j) => {
        const x = hi[2 * i + 1] as number;
        const y = hi[2 * j + 1] as number;
        if (x !== y) return x < y ? -1 : 1;
        const u = lo[2 * i] as number;
        const v = lo[2 * j] as number;
        return u < v ? -1 : u > v ? 1 : 0;
      };
      break;
    }
    case 'bool': {
      const a = column.values as Uint8Array;
      values = (i, j) => (a[i] as number) - (a[j] as number);
      break;
    }
    case 'str': {
      // Strings are JS values already; a null entry also means NULL, so compare as cells.
      const a = column.values as Array<string | null>;
      return (i, j) =>
        compareCells(
          valid !== undefined && valid[i] === 0 ? null : (a[i] ?? null),
          valid !== undefined && valid[j] === 0 ? null : (a[j] ?? null),
          key,
        );
    }
  }
  if (valid === undefined) return sign === 1 ? values : (i, j) => -values(i, j);
  const nullSide = key.nullsFirst ? -1 : 1;
  return (i, j) => {
    const vi = valid[i] === 1;
    const vj = valid[j] === 1;
    if (vi && vj) return sign * values(i, j);
    if (vi === vj) return 0;
    return vi ? -nullSide : nullSide;
  };
}

/** Compares two rows by `keys`, then by index: a total order, so any sort of it is stable. */
function rowCompare(columns: Column[], keys: SortKey[]): RowCompare {
  const compares = keys.map((key) => keyCompare(columns[key.index] as Column, key));
  if (compares.length === 1) {
    const only = compares[0] as RowCompare;
    return (i, j) => only(i, j) || i - j;
  }
  return (i, j) => {
    for (const c of compares) {
      const r = c(i, j);
      if (r !== 0) return r;
    }
    return i - j;
  };
}

/** Rows 0..rowCount-1 in their own order. */
export function identityOrder(rowCount: number): number[] {
  const order = new Array<number>(rowCount);
  for (let i = 0; i < rowCount; i++) order[i] = i;
  return order;
}

/** A stable ordering of `rowCount` rows by `keys`. */
export function sortPermutation(columns: Column[], rowCount: number, keys: SortKey[]): number[] {
  const order = identityOrder(rowCount);
  if (keys.length > 0) order.sort(rowCompare(columns, keys));
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
  columns: Column[],
  rowCount: number,
  keys: SortKey[],
  slice: TimeSlice,
): Promise<number[]> {
  if (keys.length === 0 || rowCount <= SORT_RUN_ROWS) return sortPermutation(columns, rowCount, keys);
  const cmp = rowCompare(columns, keys);
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
export function applyOrder(columns: Column[], order: number[], offset: number, limit: number | null): ColumnsOut {
  const end = limit === null ? order.length : Math.min(order.length, offset + limit);
  const start = Math.min(offset, order.length);
  return { rowCount: end - start, columns: columns.map((c) => gatherColumn(c, order, start, end)) };
}

interface ColumnsOut {
  rowCount: number;
  columns: Column[];
}

/** Rows gathered between two looks at `slice`. */
const GATHER_STEP_ROWS = 65_536;

function isIdentity(order: readonly number[]): boolean {
  for (let i = 0; i < order.length; i++) if (order[i] !== i) return false;
  return true;
}

/** Whether every column holds exactly `rows` values (a shard's vector may be longer). */
function holdExactly(columns: readonly Column[], rows: number): boolean {
  return columns.every((c) => (Array.isArray(c) ? c.length : c.values.length) === rows);
}

/** `applyOrder` for long results, checking `slice` between steps of the copy. */
export async function applyOrderSliced(
  columns: Column[],
  order: number[],
  offset: number,
  limit: number | null,
  slice: TimeSlice,
): Promise<ColumnsOut> {
  const end = limit === null ? order.length : Math.min(order.length, offset + limit);
  const start = Math.min(offset, order.length);
  // Rows already in order (one shard's sorted rows, mostly) and uncut: the columns as they are.
  if (start === 0 && end === order.length && isIdentity(order) && holdExactly(columns, end)) {
    return { rowCount: end, columns };
  }
  const out: Column[] = [];
  for (const c of columns) {
    if (Array.isArray(c)) {
      const picked = new Array<unknown>(end - start);
      for (let r = start; r < end; r++) {
        picked[r - start] = c[order[r] as number];
        if (slice.tick()) await slice.next();
      }
      out.push(picked);
      continue;
    }
    // Typed copies are cheap per row: check the clock per step rather than per row.
    const parts: Column[] = [];
    const lengths: number[] = [];
    for (let s = start; s < end; s += GATHER_STEP_ROWS) {
      const e = Math.min(end, s + GATHER_STEP_ROWS);
      parts.push(gatherColumn(c, order, s, e));
      lengths.push(e - s);
      await slice.next();
    }
    out.push(parts.length === 0 ? gatherColumn(c, order, start, end) : concatColumns(parts, lengths));
  }
  return { rowCount: end - start, columns: out };
}
