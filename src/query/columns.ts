/**
 * Result columns as the read path carries them from a shard's scan to an output format. A column
 * read unchanged from storage stays a typed vector (`Vector`: Float64Array, BigInt64Array, ...
 * with a validity array) so that it is filtered, transferred between threads, sorted and written
 * as Arrow without a JS value per cell; a column an expression computed is an array of values.
 *
 * A vector cell reads as the value the SQL layer would hold for it: f64 a number, i64/u64 a
 * bigint, bool a boolean, str a string, and NULL where `valid[i] === 0`. Only vectors whose
 * logical type has exactly that value form are kept typed (a tag of type Int64 is stored as text
 * and needs converting, so it is boxed).
 */
import type { TimeSlice } from '../shared/time-slice.js';
import { allocValues, type PhysicalKind, type Vector } from '../shared/types.js';

/** One column of a result: typed (straight from storage) or boxed values. */
export type Column = unknown[] | Vector;

/** Columns of equal length, column-major. */
export interface ColumnTable {
  rowCount: number;
  columns: Column[];
}

type NumericValues = Float64Array | BigInt64Array | BigUint64Array | Uint8Array;

export function isVector(column: Column): column is Vector {
  return !Array.isArray(column);
}

/** The value of row `i`. */
export function cellAt(column: Column, i: number): unknown {
  if (Array.isArray(column)) return column[i];
  if (column.valid !== undefined && column.valid[i] === 0) return null;
  switch (column.kind) {
    case 'bool':
      return (column.values as Uint8Array)[i] === 1;
    case 'str':
      return (column.values as Array<string | null>)[i] ?? null;
    default:
      return (column.values as NumericValues)[i];
  }
}

/** Rows `start..end` as values. */
export function boxColumn(column: Column, start: number, end: number): unknown[] {
  if (Array.isArray(column)) return start === 0 && end === column.length ? column : column.slice(start, end);
  const out = new Array<unknown>(end - start);
  for (let i = start; i < end; i++) out[i - start] = cellAt(column, i);
  return out;
}

/**
 * A vector's rows at `indexes` (all of its first `count` rows when null), copied into arrays of
 * its own: the result may be transferred to another thread without detaching storage's buffers.
 */
export function copyVector(vector: Vector, indexes: ArrayLike<number> | null, count: number): Vector {
  const values = allocValues(vector.kind, count);
  const source = vector.values;
  const valid = vector.valid;
  let outValid: Uint8Array | undefined;
  if (indexes === null) {
    if (Array.isArray(source)) for (let i = 0; i < count; i++) (values as unknown[])[i] = source[i] ?? null;
    else copyElements(source as NumericValues, values as NumericValues, count, 0);
    if (valid !== undefined) outValid = valid.slice(0, count);
  } else {
    if (Array.isArray(source)) {
      for (let i = 0; i < count; i++) (values as unknown[])[i] = source[indexes[i] as number] ?? null;
    } else {
      copyRows(source as NumericValues, values as NumericValues, indexes, count);
    }
    if (valid !== undefined) {
      outValid = new Uint8Array(count);
      for (let i = 0; i < count; i++) outValid[i] = valid[indexes[i] as number] as number;
    }
  }
  return outValid === undefined ? { kind: vector.kind, values } : { kind: vector.kind, values, valid: outValid };
}

/** Copies the first `count` elements of `from` to `to` at `offset` (same element type). */
function copyElements(from: NumericValues, to: NumericValues, count: number, offset: number): void {
  const width = from.BYTES_PER_ELEMENT;
  new Uint8Array(to.buffer, to.byteOffset + offset * width, count * width).set(
    new Uint8Array(from.buffer, from.byteOffset, count * width),
  );
}

/**
 * Copies `from[indexes[i]]` to `to[i]`. 64-bit integers are moved as pairs of 32-bit words: an
 * element access on a BigInt64Array makes a BigInt, and a Float64Array view could alter the bits
 * of integers that look like NaNs.
 */
function copyRows(from: NumericValues, to: NumericValues, indexes: ArrayLike<number>, count: number): void {
  if (from instanceof BigInt64Array || from instanceof BigUint64Array) {
    const src = new Int32Array(from.buffer, from.byteOffset, from.length * 2);
    const dst = new Int32Array(to.buffer, to.byteOffset, to.length * 2);
    for (let i = 0; i < count; i++) {
      const j = (indexes[i] as number) * 2;
      dst[2 * i] = src[j] as number;
      dst[2 * i + 1] = src[j + 1] as number;
    }
    return;
  }
  const src = from as Float64Array | Uint8Array;
  const dst = to as Float64Array | Uint8Array;
  for (let i = 0; i < count; i++) dst[i] = src[indexes[i] as number] as number;
}

/** Rows `order[start..end)` of a column, in that order. */
export function gatherColumn(column: Column, order: ArrayLike<number>, start: number, end: number): Column {
  const picked =
    order instanceof Uint32Array ? order.subarray(start, end) : Array.prototype.slice.call(order, start, end);
  if (Array.isArray(column)) {
    const out = new Array<unknown>(end - start);
    for (let i = 0; i < out.length; i++) out[i] = column[picked[i] as number];
    return out;
  }
  return copyVector(column, picked as ArrayLike<number>, end - start);
}

/**
 * One column of several parts of given lengths: typed when every part is a vector of one kind,
 * boxed otherwise.
 */
export function concatColumns(parts: Column[], lengths: number[]): Column {
  const total = lengths.reduce((a, b) => a + b, 0);
  const first = parts[0];
  if (parts.length === 1 && first !== undefined) return first;
  const kind = first !== undefined && isVector(first) ? first.kind : null;
  if (kind !== null && parts.every((p) => isVector(p) && p.kind === kind)) {
    return concatVectors(parts as Vector[], lengths, kind, total);
  }
  const out = new Array<unknown>(total);
  let o = 0;
  parts.forEach((part, p) => {
    const n = lengths[p] as number;
    if (Array.isArray(part)) for (let i = 0; i < n; i++) out[o++] = part[i];
    else for (let i = 0; i < n; i++) out[o++] = cellAt(part, i);
  });
  return out;
}

function concatVectors(parts: Vector[], lengths: number[], kind: PhysicalKind, total: number): Vector {
  const values = allocValues(kind, total);
  const anyNull = parts.some((p) => p.valid !== undefined);
  const valid = anyNull ? new Uint8Array(total).fill(1) : undefined;
  let o = 0;
  parts.forEach((part, p) => {
    const n = lengths[p] as number;
    if (Array.isArray(values)) {
      const source = part.values as Array<string | null>;
      for (let i = 0; i < n; i++) values[o + i] = source[i] ?? null;
    } else {
      copyElements(part.values as NumericValues, values as NumericValues, n, o);
    }
    if (valid !== undefined && part.valid !== undefined) valid.set(part.valid.subarray(0, n), o);
    o += n;
  });
  return valid === undefined ? { kind, values } : { kind, values, valid };
}

/**
 * Bytes a column of `rowCount` rows holds: exact for typed numbers, `cellBytes` per value for
 * strings and boxed values (their size is not known without walking them).
 */
export function columnBytes(column: Column, rowCount: number, cellBytes: number): number {
  if (Array.isArray(column) || column.kind === 'str') return rowCount * cellBytes;
  return (column.values as NumericValues).byteLength + (column.valid?.byteLength ?? 0);
}

/**
 * The buffers of typed columns that only these columns use (each whole buffer is the array),
 * to transfer rather than copy across a thread boundary.
 */
export function ownedBuffers(columns: Column[]): ArrayBuffer[] {
  const views: Array<ArrayBufferView | undefined> = [];
  for (const c of columns) {
    if (Array.isArray(c)) continue;
    if (!Array.isArray(c.values)) views.push(c.values as NumericValues);
    views.push(c.valid);
  }
  return wholeBuffers(views);
}

/** The distinct buffers that `views` each fill whole (a view of part of one may not move). */
export function wholeBuffers(views: ReadonlyArray<ArrayBufferView | undefined>): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const a of views) {
    if (a === undefined || !(a.buffer instanceof ArrayBuffer)) continue;
    if (a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && a.byteLength > 0) out.add(a.buffer);
  }
  return [...out];
}

/** Rows `0..rowCount` as row arrays, checking `slice` (when given) as it goes. */
export async function tableRows(table: ColumnTable, slice: TimeSlice | null): Promise<unknown[][]> {
  const { rowCount, columns } = table;
  const rows = new Array<unknown[]>(rowCount);
  for (let r = 0; r < rowCount; r++) {
    rows[r] = rowAt(columns, r);
    if (slice?.tick()) await slice.next();
  }
  return rows;
}

/** `tableRows` in one go, for readers that cannot wait. */
export function tableRowsNow(table: ColumnTable): unknown[][] {
  const rows = new Array<unknown[]>(table.rowCount);
  for (let r = 0; r < table.rowCount; r++) rows[r] = rowAt(table.columns, r);
  return rows;
}

function rowAt(columns: Column[], r: number): unknown[] {
  const row = new Array<unknown>(columns.length);
  for (let c = 0; c < columns.length; c++) row[c] = cellAt(columns[c] as Column, r);
  return row;
}
