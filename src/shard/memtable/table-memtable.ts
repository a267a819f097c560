/**
 * The memtable of one table. Rows are appended to table-wide growable columns in write order;
 * each series keeps the list of its row numbers.
 *
 * Layout, for table row r (0 <= r < rows):
 * - `ts[r]`: timestamp;
 * - `cols[slot].values[r]` / `cols[slot].valid[r]` (1 present, 0 NULL, 2 absent): field slot
 *   `slot`, where a slot is one (column id, physical kind) pair, numbered in order of first
 *   appearance. Rows written before a slot existed, or without it, are absent: a scan gives them
 *   the column's default (see `ABSENT` in merge/part.ts), which an explicit NULL never gets.
 *   String slots keep their values as UTF-8 in a `TextColumn` (text-column.ts), read by row.
 * - `prevRow[r]`: the row before r of r's series (-1 for its first), so each series is a chain
 *   from its `lastRow` (mem-series.ts).
 *
 * Why table-wide columns rather than arrays per series: appending a batch becomes one typed-array
 * copy per column instead of a loop per row and field, and a series costs one small object instead
 * of two typed arrays per field. With 100k series per shard, per-series arrays made the memtable
 * 10× bigger than its data and writes 10× slower. Keying slots by kind as well keeps data if a
 * column id ever arrives with another kind; scans read only the kind they ask for.
 */

import assert from 'node:assert';
import { endianness } from 'node:os';
import { utf8Of } from '../../shared/codec/utf8-column.js';
import { type MergeMode, type ResolvedKey, seriesCountOf, type TableRows } from '../../shared/codec/write-batch.js';
import { compareSeriesKeys, keyOrderOf, seriesKeyOfTuple } from '../../shared/series-key.js';
import { blobKey, isKeyRef, type SeriesKeyBlob } from '../../shared/series-key-blob.js';
import type { TagFilter } from '../../shared/tag-filter.js';
import { allocValues, type PhysicalKind, type Vector } from '../../shared/types.js';
import { ABSENT, type FieldSpec, specKey } from '../merge/part.js';
import { SeriesIndex } from '../series-index.js';
import { compareRowTimes, MemSeries, SERIES_OVERHEAD_BYTES } from './mem-series.js';
import { TextColumn } from './text-column.js';

export interface MemColumn {
  /** A typed array for every kind but `str`, whose values are bytes in a `TextColumn`. */
  values: Exclude<Vector['values'], Array<string | null>> | TextColumn;
  valid: Uint8Array;
}

assert(endianness() === 'LE', 'the memtable reads timestamps as little-endian words');

export const INITIAL_TABLE_CAPACITY = 1024;

/** Bytes one row of a column takes in memory: the value (or a string's end offset) plus validity. */
function rowWidthOf(kind: PhysicalKind): number {
  return kind === 'bool' ? 2 : 9;
}

function grown<T extends Uint8Array | BigInt64Array | MemColumn['values']>(
  old: T,
  kind: PhysicalKind | 'valid',
  capacity: number,
  used: number,
): T {
  if (old instanceof TextColumn) {
    old.grow(capacity, used);
    return old;
  }
  const next = kind === 'valid' ? new Uint8Array(capacity) : allocValues(kind, capacity);
  (next as Float64Array).set((old as Float64Array).subarray(0, used));
  return next as T;
}

/** A memtable table's series in key order, with their index once a scan asked for it. */
export class SortedSeries {
  readonly keys: string[];
  private index: SeriesIndex | null = null;

  constructor(readonly series: MemSeries[]) {
    this.keys = series.map((s) => s.key);
  }

  seriesIndex(): SeriesIndex {
    this.index ??= new SeriesIndex(this.keys);
    return this.index;
  }
}

/** Where out-of-order rows are counted (the shard's `ShardCounters`). */
export interface RowOrderCounters {
  rowsOutOfOrder: number;
}

let memtableSerials = 0;

export class TableMemtable {
  rows = 0;
  capacity = INITIAL_TABLE_CAPACITY;
  ts = new BigInt64Array(INITIAL_TABLE_CAPACITY);
  /** `ts` as unsigned 32-bit words, little-endian: [2r] low, [2r + 1] high (read signed). */
  tsWords = new Uint32Array(this.ts.buffer);
  prevRow = new Int32Array(INITIAL_TABLE_CAPACITY);
  readonly cols: MemColumn[] = [];
  /** Field slots in order of first appearance. */
  readonly slots: FieldSpec[] = [];
  readonly series = new Map<string, MemSeries>();
  /** The same series in the order they came (`MemSeries.index`). */
  private readonly seriesByIndex: MemSeries[] = [];
  /** Told apart from every other table memtable of the process (key entries name it, key-refs.ts). */
  private readonly serial = ++memtableSerials;
  /** Estimated heap bytes of this table. */
  bytes = INITIAL_TABLE_CAPACITY * 12;
  /** Rows with the least and the greatest timestamp (-1 while empty): scans outside skip the table. */
  private leastRow = -1;
  private greatestRow = -1;
  private readonly slotByKey = new Map<number, number>();
  private sorted: SortedSeries | null = null;

  constructor(
    readonly tableId: number,
    public mergeMode: MergeMode,
    /** The shard's tag filter (shared/tag-filter.ts), which learns each series as it arrives. */
    private readonly tagFilter: TagFilter | null = null,
    /** The shard's counters: a row appended older than its series' last one counts there. */
    private readonly counters: RowOrderCounters | null = null,
  ) {}

  /**
   * Whether a row may lie in `[lo, hi]`: the span of every row written so far, so a scan whose
   * snapshot holds fewer rows is only ever told to read a table it could have skipped.
   */
  mayHoldTimes(lo: bigint, hi: bigint): boolean {
    if (this.leastRow < 0) return false;
    return (this.ts[this.leastRow] as bigint) <= hi && (this.ts[this.greatestRow] as bigint) >= lo;
  }

  /** The slot of a field, or -1 when no row carried it. */
  slotOf(id: number, kind: PhysicalKind): number {
    return this.slotByKey.get(specKey(id, kind)) ?? -1;
  }

  private slotFor(id: number, kind: PhysicalKind): number {
    const key = specKey(id, kind);
    let slot = this.slotByKey.get(key);
    if (slot === undefined) {
      slot = this.slots.length;
      this.slots.push({ id, kind });
      this.slotByKey.set(key, slot);
      const valid = new Uint8Array(this.capacity);
      valid.fill(ABSENT, 0, this.rows);
      const values = kind === 'str' ? new TextColumn(this.capacity) : allocValues(kind, this.capacity);
      this.cols.push({ values: values as MemColumn['values'], valid });
      this.bytes += this.capacity * rowWidthOf(kind);
    }
    return slot;
  }

  /** Series sorted by key (cached until a series is added). */
  sortedSeries(): SortedSeries {
    if (!this.sorted) {
      const series = Array.from(this.series.values()).sort((a, b) => compareSeriesKeys(a.key, b.key));
      this.sorted = new SortedSeries(series);
    }
    return this.sorted;
  }

  private ensureCapacity(need: number): void {
    if (need <= this.capacity) return;
    let capacity = this.capacity * 2;
    while (capacity < need) capacity *= 2;
    this.ts = grown(this.ts, 'i64', capacity, this.rows);
    this.tsWords = new Uint32Array(this.ts.buffer);
    const prevRow = new Int32Array(capacity);
    prevRow.set(this.prevRow.subarray(0, this.rows));
    this.prevRow = prevRow;
    let width = 12;
    this.cols.forEach((col, slot) => {
      const kind = (this.slots[slot] as FieldSpec).kind;
      col.values = grown(col.values, kind, capacity, this.rows);
      col.valid = grown(col.valid, 'valid', capacity, this.rows);
      width += rowWidthOf(kind);
    });
    this.bytes += (capacity - this.capacity) * width;
    this.capacity = capacity;
  }

  private seriesOf(key: string): MemSeries {
    return this.series.get(key) ?? this.added(key);
  }

  /**
   * Series k of a key blob: where the shard's entry for the key says this memtable keeps it
   * (`resolved`, see key-refs.ts: every key with an id has one on the write path), else by the
   * key string, as the shard resolved it (required for keys sent by reference) or from its
   * bytes. The entry is then pointed here, so the next write of the series looks nothing up.
   */
  private seriesOfBlob(
    blob: SeriesKeyBlob,
    k: number,
    resolved: Array<ResolvedKey | undefined> | undefined,
  ): MemSeries {
    const entry = resolved?.[k];
    if (entry !== undefined && entry.seriesIn === this.serial)
      return this.seriesByIndex[entry.seriesIndex] as MemSeries;
    let key = entry?.key;
    if (key === undefined) {
      assert(!isKeyRef(blob, k), 'a key sent by reference reached the memtable unresolved');
      key = blobKey(blob, k);
    }
    const s = this.series.get(key) ?? this.added(key);
    if (entry !== undefined) {
      entry.seriesIn = this.serial;
      entry.seriesIndex = s.index;
    }
    return s;
  }

  private added(key: string): MemSeries {
    const s = new MemSeries(key);
    s.index = this.seriesByIndex.length;
    this.seriesByIndex.push(s);
    this.series.set(key, s);
    this.tagFilter?.addKey(this.tableId, key);
    this.sorted = null;
    this.bytes += SERIES_OVERHEAD_BYTES + key.length * 2;
    return s;
  }

  /** Appends validated rows; returns how many. */
  append(rows: TableRows): number {
    this.mergeMode = rows.mergeMode;
    const n = rows.rowCount;
    const base = this.rows;
    this.ensureCapacity(base + n);
    const timestamps = rows.timestamps;
    assert(timestamps.length === n);
    this.ts.set(timestamps, base);

    // Resolve each series of the batch once; rows then only look up their series by index. The
    // decoder sends keys when it has them cached (as a blob, or strings), else tag tuples to key here.
    const keys = rows.seriesKeys;
    const blob = rows.seriesKeyBlob;
    const batchSeries = new Array<MemSeries>(seriesCountOf(rows));
    // Series left without rows (their rows expired) are not added: a series with none breaks flushes.
    const used = rows.seriesUsed;
    if (blob) {
      for (let k = 0; k < batchSeries.length; k++) {
        if (used === undefined || used[k] === 1) batchSeries[k] = this.seriesOfBlob(blob, k, rows.resolvedKeys);
      }
    } else if (keys) {
      for (let k = 0; k < keys.length; k++) {
        if (used === undefined || used[k] === 1) batchSeries[k] = this.seriesOf(keys[k] as string);
      }
    } else {
      const order = keyOrderOf(rows.tagIds);
      for (let k = 0; k < rows.seriesTags.length; k++) {
        if (used !== undefined && used[k] !== 1) continue;
        batchSeries[k] = this.seriesOf(seriesKeyOfTuple(order, rows.seriesTags[k] as Array<string | null>));
      }
    }
    const rowSeries = rows.rowSeries;
    // Timestamps compared as (high, unsigned low) words of the table column: reading a
    // BigInt64Array makes a heap BigInt per element, which made this loop most of a write's cost.
    const words = this.tsWords;
    const prevRow = this.prevRow;
    let least = this.leastRow < 0 ? base : this.leastRow;
    let greatest = this.greatestRow < 0 ? base : this.greatestRow;
    for (let i = 0; i < n; i++) {
      const s = batchSeries[rowSeries[i] as number] as MemSeries;
      const row = base + i;
      if (compareRowTimes(words, row, least) < 0) least = row;
      else if (compareRowTimes(words, row, greatest) > 0) greatest = row;
      const last = s.lastRow;
      if (last >= 0) {
        const order = compareRowTimes(words, row, last);
        if (order <= 0 || !s.sorted) {
          if (order < 0 && this.counters !== null) this.counters.rowsOutOfOrder++;
          s.noteUnordered(row, order, words, prevRow);
        }
        if (row !== last + 1) s.contiguous = false;
      } else {
        s.firstRow = row;
      }
      prevRow[row] = last;
      s.lastRow = row;
      s.count++;
    }
    this.leastRow = least;
    this.greatestRow = greatest;

    const written = new Uint8Array(this.cols.length + rows.fields.length);
    for (const field of rows.fields) {
      const vector: Vector = field.vector;
      const slot = this.slotFor(field.id, vector.kind);
      written[slot] = 1;
      const col = this.cols[slot] as MemColumn;
      const valid = vector.valid;
      if (col.values instanceof TextColumn) {
        const text = col.values;
        const before = text.bytes;
        const utf8 = utf8Of(vector);
        if (utf8) text.appendUtf8(utf8, valid, col.valid, base, n);
        else text.appendStrings(vector.values as Array<string | null>, valid, col.valid, base, n);
        this.bytes += text.bytes - before;
        continue;
      }
      // Typed kinds share set/subarray; the cast only picks one for the type checker.
      (col.values as Float64Array).set((vector.values as Float64Array).subarray(0, n), base);
      if (valid === undefined) col.valid.fill(1, base, base + n);
      else for (let i = 0; i < n; i++) col.valid[base + i] = valid[i] === 0 ? 0 : 1;
    }
    for (let slot = 0; slot < this.cols.length; slot++) {
      if (written[slot] !== 0) continue;
      const col = this.cols[slot] as MemColumn;
      col.valid.fill(ABSENT, base, base + n);
      if (col.values instanceof TextColumn) col.values.skip(base, n);
    }
    this.rows += n;
    return n;
  }
}
