/**
 * The series statistics section of a segment (format version 3): for each series and each Float64
 * field column, how many rows hold a value and their sum, minimum and maximum. An aggregate with
 * no row filter (`GROUP BY` tags of count/sum/avg/min/max) takes a series that lies wholly inside
 * its time range, and whose rows no other source overlaps, from here instead of decoding its
 * blocks (src/shard/scan.ts, "summaries").
 *
 * Layout (docs/formats/segment.md): S × F × 4 little-endian f64, series in series-table order,
 * columns in footer order, each `[present, sum, min, max]`. A sum of NaN marks entries the
 * statistics cannot stand for (a NaN value, or a row without the column that reads as its
 * default); readers then read the rows. min and max are NaN when nothing is present.
 *
 * Written only where it pays: a segment whose series average few rows (high cardinality) gains
 * little from it and would pay 32 bytes per series and column.
 */
import type { FieldSpec } from '../merge/part.js';
import { ABSENT } from '../merge/part.js';
import type { RowBuffer } from '../merge/row-buffer.js';
import { type ByteReader, type ByteWriter, FormatError } from './byte-io.js';

/** Values per (series, column) entry. */
export const STATS_WIDTH = 4;
/** Rows a series must average for the section to be written. */
export const STATS_ROWS_PER_SERIES_MIN = 16;
/** Series seen before the average is trusted to decide (early on, every series is short). */
const STATS_DECIDE_AFTER_SERIES = 4096;

/** Where the section lies, and which footer columns it covers. */
export interface StatsMeta {
  offset: number;
  length: number;
  crc: number;
  /** Footer column positions of the covered (Float64) columns, in order. */
  columns: number[];
}

export function encodeStatsMeta(w: ByteWriter, meta: StatsMeta | null): void {
  if (meta === null) {
    w.varuint(0);
    return;
  }
  w.varuint(1);
  w.varuint(meta.offset);
  w.varuint(meta.length);
  w.u32(meta.crc);
  w.varuint(meta.columns.length);
  for (const c of meta.columns) w.varuint(c);
}

export function decodeStatsMeta(r: ByteReader, columnCount: number): StatsMeta | null {
  const present = r.varuint();
  if (present === 0) return null;
  if (present !== 1) throw new FormatError('bad series statistics flag');
  const offset = r.varuint();
  const length = r.varuint();
  const crc = r.u32();
  const n = r.varuint();
  const columns: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = r.varuint();
    if (c >= columnCount || (i > 0 && c <= (columns[i - 1] as number))) {
      throw new FormatError('bad series statistics column');
    }
    columns.push(c);
  }
  return { offset, length, crc, columns };
}

/**
 * Folds the Float64 values of rows `[from, to)` (or of `rows[from, to)` when given) into the
 * `[present, sum, min, max]` entry at `e` of `stats`. A NaN value makes the sum NaN, which marks
 * the entry unusable; so does a row without the column (ABSENT) when `absentPoisons`.
 */
export function foldStats(
  stats: Float64Array,
  e: number,
  values: Float64Array,
  valid: Uint8Array,
  rows: ArrayLike<number> | null,
  from: number,
  to: number,
  absentPoisons: boolean,
): void {
  let present = stats[e] as number;
  let sum = stats[e + 1] as number;
  let min = stats[e + 2] as number;
  let max = stats[e + 3] as number;
  for (let i = from; i < to; i++) {
    const r = rows === null ? i : (rows[i] as number);
    const v = valid[r];
    if (v === 1) {
      const x = values[r] as number;
      present++;
      sum += x;
      if (!(x >= min)) min = x;
      if (!(x <= max)) max = x;
    } else if (v === ABSENT && absentPoisons) sum = Number.NaN;
  }
  stats[e] = present;
  stats[e + 1] = sum;
  stats[e + 2] = min;
  stats[e + 3] = max;
}

/**
 * A source's statistics laid out per scan column (`[present, sum, min, max]` at 4 × column) from
 * `all`: `entryOf(spec)` gives the offset of a field spec's entry, -1 when the source lacks the
 * column (present nowhere), or null when it has no usable entry; null then, or when an entry is
 * marked unusable. Columns with spec -1 are left zero.
 */
export function statsPerColumn(
  specs: readonly number[],
  all: Float64Array,
  entryOf: (spec: number) => number | null,
): Float64Array | null {
  const out = new Float64Array(specs.length * STATS_WIDTH);
  for (let k = 0; k < specs.length; k++) {
    const spec = specs[k] as number;
    if (spec < 0) continue;
    const at = k * STATS_WIDTH;
    const e = entryOf(spec);
    if (e === null) return null;
    if (e < 0) {
      out[at + 2] = Number.NaN;
      out[at + 3] = Number.NaN;
      continue;
    }
    if (Number.isNaN(all[e + 1] as number)) return null;
    out.set(all.subarray(e, e + STATS_WIDTH), at);
  }
  return out;
}

/** Accumulates the section while the writer adds blocks; drops it once it would not pay. */
export class SeriesStatsBuilder {
  /** Spec positions of the Float64 columns. */
  readonly columns: number[];
  private values: Float64Array | null;
  /** Entries of the series being filled start here. */
  private at = -1;
  private series = 0;
  private rows = 0;

  constructor(specs: readonly FieldSpec[]) {
    this.columns = [];
    specs.forEach((s, i) => {
      if (s.kind === 'f64') this.columns.push(i);
    });
    this.values = this.columns.length === 0 ? null : new Float64Array(1024 * this.columns.length * STATS_WIDTH);
  }

  /** Starts the next series (in series-table order). */
  openSeries(): void {
    if (this.values === null) return;
    this.series++;
    if (this.series > STATS_DECIDE_AFTER_SERIES && this.rows < STATS_ROWS_PER_SERIES_MIN * this.series) {
      this.values = null;
      return;
    }
    const width = this.columns.length * STATS_WIDTH;
    this.at = (this.series - 1) * width;
    if (this.at + width > this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    for (let c = 0; c < this.columns.length; c++) {
      const e = this.at + c * STATS_WIDTH;
      this.values[e] = 0;
      this.values[e + 1] = 0;
      this.values[e + 2] = Number.NaN;
      this.values[e + 3] = Number.NaN;
    }
  }

  /** Folds rows `[from, to)` of `buf` into the open series. */
  addRows(buf: RowBuffer, from: number, to: number): void {
    this.rows += to - from;
    const stats = this.values;
    if (stats === null) return;
    for (let c = 0; c < this.columns.length; c++) {
      const spec = this.columns[c] as number;
      const values = buf.values[spec] as Float64Array;
      const e = this.at + c * STATS_WIDTH;
      foldStats(stats, e, values, buf.valid[spec] as Uint8Array, null, from, to, true);
    }
  }

  /** The section's bytes, or null when it is not written. */
  finish(): Uint8Array | null {
    if (this.values === null || this.series === 0 || this.rows < STATS_ROWS_PER_SERIES_MIN * this.series) return null;
    const used = this.values.subarray(0, this.series * this.columns.length * STATS_WIDTH);
    return new Uint8Array(used.buffer, used.byteOffset, used.byteLength);
  }
}

/** The section as an array (copied when the bytes are not 8-aligned); checks its size. */
export function decodeSeriesStats(bytes: Uint8Array, seriesCount: number, columnCount: number): Float64Array {
  const expected = seriesCount * columnCount * STATS_WIDTH * 8;
  if (bytes.byteLength !== expected) {
    throw new FormatError(`series statistics of ${bytes.byteLength} bytes, expected ${expected}`);
  }
  if (bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, expected / 8);
  const copy = new Uint8Array(expected);
  copy.set(bytes);
  return new Float64Array(copy.buffer);
}
