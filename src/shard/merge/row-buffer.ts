/**
 * A fixed-capacity columnar buffer the merge writes rows into: one segment block when flushing or
 * compacting, one scan chunk when scanning. Layout: `ts[i]` is the timestamp of row i;
 * `values[c][i]` / `valid[c][i]` (1 = present, 0 = NULL) are field spec c of row i; the series of
 * row i is `markKeys[k]` for the last k with `markRows[k] <= i`.
 */
import assert from 'node:assert';
import { allocValues, type PhysicalKind, type Vector } from '../../shared/types.js';
import { ABSENT, type ColumnData, type FieldSpec, type Part } from './part.js';

/** What `RowBuffer.detach` hands out: the arrays of the rows written so far. */
export interface DetachedRows {
  length: number;
  ts: BigInt64Array;
  values: Array<Vector['values']>;
  valid: Uint8Array[];
  markRows: number[];
  markKeys: string[];
}

function copyValues(
  kind: PhysicalKind,
  dst: Vector['values'],
  at: number,
  src: Vector['values'],
  from: number,
  to: number,
): void {
  if (kind === 'str') {
    const d = dst as Array<string | null>;
    const s = src as Array<string | null>;
    for (let i = from; i < to; i++) d[at++] = s[i] ?? null;
  } else {
    // All four typed kinds share `set`/`subarray`; the cast only picks one for the type checker.
    (dst as Float64Array).set((src as Float64Array).subarray(from, to), at);
  }
}

/** True when row `row` of `col` holds a value. */
export function isPresent(col: ColumnData, row: number): boolean {
  if (col.valid !== undefined && col.valid[row] !== 1) return false;
  return !Array.isArray(col.values) || col.values[row] != null;
}

/** Runs up to this many rows are copied row by row. */
const SMALL_RANGE_ROWS = 16;
/** Rows a lazy buffer starts with. */
const LAZY_FIRST_ROWS = 256;
const EMPTY_TS = new BigInt64Array(0);
const EMPTY_VALID = new Uint8Array(0);

export class RowBuffer {
  length = 0;
  ts!: BigInt64Array;
  values!: Array<Vector['values']>;
  valid!: Uint8Array[];
  markRows: number[] = [];
  markKeys: string[] = [];

  /** Rows the arrays have room for (at most `capacity`). */
  private allocated = 0;
  /** Room a lazy buffer takes at its first row: what its last chunk grew to. */
  private nextSize = LAZY_FIRST_ROWS;

  /**
   * `lazy`: arrays are made at the first row and grow with the rows, instead of `capacity` rows
   * at once. A scan's buffer is lazy: a selective query reads a few hundred rows, and zeroing two
   * full chunks (one made, one made again after `detach`) cost it more than the rows themselves.
   */
  constructor(
    readonly specs: readonly FieldSpec[],
    readonly capacity: number,
    private readonly lazy = false,
  ) {
    assert(capacity > 0);
    if (lazy) this.release();
    else this.allocate(capacity);
  }

  private allocate(rows: number): void {
    this.ts = new BigInt64Array(rows);
    this.values = this.specs.map((s) => allocValues(s.kind, rows));
    this.valid = this.specs.map(() => new Uint8Array(rows));
    this.allocated = rows;
  }

  /** No arrays until the next row. */
  private release(): void {
    this.ts = EMPTY_TS;
    this.values = this.specs.map((s) => allocValues(s.kind, 0));
    this.valid = this.specs.map(() => EMPTY_VALID);
    this.allocated = 0;
  }

  /** Makes room for `n` more rows (within `capacity`, which `free` already checked). */
  private reserve(n: number): void {
    const need = this.length + n;
    if (need <= this.allocated) return;
    const rows = Math.min(this.capacity, Math.max(need, this.allocated * 2, this.nextSize));
    const { ts, values, valid, length } = this;
    this.allocate(rows);
    this.ts.set(ts.subarray(0, length));
    for (let c = 0; c < this.specs.length; c++) {
      copyValues(
        (this.specs[c] as FieldSpec).kind,
        this.values[c] as Vector['values'],
        0,
        values[c] as Vector['values'],
        0,
        length,
      );
      (this.valid[c] as Uint8Array).set((valid[c] as Uint8Array).subarray(0, length));
    }
  }

  get free(): number {
    return this.capacity - this.length;
  }

  /** Starts the rows of series `key` at the current row. */
  markSeries(key: string): void {
    const last = this.markRows.length - 1;
    if (last >= 0 && this.markRows[last] === this.length) this.markKeys[last] = key;
    else {
      this.markRows.push(this.length);
      this.markKeys.push(key);
    }
  }

  /** Copies rows `[from, to)` of a part; the caller made sure they fit. */
  appendRange(part: Part, from: number, to: number): void {
    const n = to - from;
    assert(n >= 0 && n <= this.free);
    this.reserve(n);
    if (n <= SMALL_RANGE_ROWS) {
      // Short runs (many small series) are cheaper row by row than with subarray views.
      for (let row = from; row < to; row++) this.appendRow(part, row);
      return;
    }
    const at = this.length;
    this.ts.set(part.ts.subarray(from, to), at);
    for (let c = 0; c < this.specs.length; c++) {
      const kind = (this.specs[c] as FieldSpec).kind;
      const values = this.values[c] as Vector['values'];
      const valid = this.valid[c] as Uint8Array;
      const col = part.cols[c];
      if (!col) {
        valid.fill(ABSENT, at, at + n);
        if (kind === 'str') (values as Array<string | null>).fill(null, at, at + n);
        continue;
      }
      copyValues(kind, values, at, col.values, from, to);
      if (col.valid) valid.set(col.valid.subarray(from, to), at);
      else valid.fill(1, at, at + n);
      if (kind === 'str') {
        const strings = values as Array<string | null>;
        for (let i = at; i < at + n; i++) {
          if (strings[i] === null) {
            if (valid[i] === 1) valid[i] = 0;
          } else if (valid[i] !== 1) strings[i] = null;
        }
      }
    }
    this.length += n;
  }

  /** Copies one row of a part. */
  appendRow(part: Part, row: number): void {
    assert(this.free > 0);
    this.reserve(1);
    const at = this.length;
    this.ts[at] = part.ts[row] as bigint;
    for (let c = 0; c < this.specs.length; c++) this.setCell(c, at, part.cols[c] ?? null, row);
    this.length++;
  }

  /**
   * Appends one row merged from rows sharing a timestamp (`last_non_null`): each field takes the
   * value of the newest row that has one. `partIndex[j]`/`rows[j]` (j < count) name the rows,
   * oldest first.
   */
  appendMergedRow(parts: readonly Part[], partIndex: readonly number[], rows: readonly number[], count: number): void {
    assert(this.free > 0 && count > 0);
    this.reserve(1);
    const at = this.length;
    this.ts[at] = (parts[partIndex[0] as number] as Part).ts[rows[0] as number] as bigint;
    for (let c = 0; c < this.specs.length; c++) {
      // With no value anywhere, the newest row says whether the cell is NULL or absent.
      let chosen: ColumnData | null = (parts[partIndex[count - 1] as number] as Part).cols[c] ?? null;
      let chosenRow = rows[count - 1] as number;
      for (let j = count - 1; j >= 0; j--) {
        const col = (parts[partIndex[j] as number] as Part).cols[c];
        if (col && isPresent(col, rows[j] as number)) {
          chosen = col;
          chosenRow = rows[j] as number;
          break;
        }
      }
      this.setCell(c, at, chosen, chosenRow);
    }
    this.length++;
  }

  private setCell(c: number, at: number, col: ColumnData | null, row: number): void {
    const values = this.values[c] as Vector['values'];
    const valid = this.valid[c] as Uint8Array;
    if (col === null || !isPresent(col, row)) {
      valid[at] = col === null || col.valid?.[row] === ABSENT ? ABSENT : 0;
      if (Array.isArray(values)) values[at] = null;
      return;
    }
    valid[at] = 1;
    (values as Float64Array)[at] = (col.values as Float64Array)[row] as number;
  }

  /** Empties the buffer and keeps its arrays; the current series carries on at row 0. */
  clear(): void {
    const key = this.markKeys[this.markKeys.length - 1];
    this.length = 0;
    this.markRows = [];
    this.markKeys = [];
    if (key !== undefined) this.markSeries(key);
  }

  /** Hands out the arrays holding the rows so far and starts over with fresh ones. */
  detach(): DetachedRows {
    const out: DetachedRows = {
      length: this.length,
      ts: this.ts,
      values: this.values,
      valid: this.valid,
      markRows: this.markRows,
      markKeys: this.markKeys,
    };
    if (this.lazy) {
      this.nextSize = Math.max(this.nextSize, this.allocated);
      this.release();
    } else {
      this.allocate(this.capacity);
    }
    this.clear();
    return out;
  }
}
