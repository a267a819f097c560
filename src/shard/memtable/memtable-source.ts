/**
 * Reads one table of a memtable as a merge source. A series whose rows are consecutive and in
 * time order is read in place (a view of the table columns); any other series is gathered through
 * its row list, sorted by time if it was written out of order. 64-bit columns are gathered as
 * pairs of 32-bit words so no BigInt is created per value.
 *
 * Gathered parts live in scratch arrays reused by the next `collectParts` call: callers merge a
 * series completely before collecting the next one (scan and segment build both do).
 */
import type { SeriesMatcher } from '../../shared/scan.js';
import { allocValues, type PhysicalKind } from '../../shared/types.js';
import { type ColumnData, type FieldSpec, lowerBound, type Part, upperBound } from '../merge/part.js';
import type { SeriesSource, SourceSummary, SummaryRequest } from '../merge/series-walk.js';
import { STATS_WIDTH, statsPerColumn } from '../segment/series-stats.js';
import { compareRowTimes, type MemSeries, rowsBack } from './mem-series.js';
import { foldedSeries } from './series-fold.js';
import type { MemColumn, SortedSeries, TableMemtable } from './table-memtable.js';
import { TextColumn } from './text-column.js';

/** Copies 64-bit elements `rows[from..to)` of `src` into `dst[0..)`, word by word. */
function gather64(
  src: BigInt64Array | BigUint64Array,
  dst: BigInt64Array | BigUint64Array,
  rows: Int32Array,
  from: number,
  to: number,
): void {
  const s = new Int32Array(src.buffer, src.byteOffset, src.length * 2);
  const d = new Int32Array(dst.buffer, dst.byteOffset, dst.length * 2);
  for (let i = from, k = 0; i < to; i++, k += 2) {
    const r = (rows[i] as number) * 2;
    d[k] = s[r] as number;
    d[k + 1] = s[r + 1] as number;
  }
}

/** Gathers rows `rows[from..to)` of a numeric or boolean table column into `dst[0..)`. */
function gatherColumn(
  col: MemColumn,
  kind: PhysicalKind,
  rows: Int32Array,
  from: number,
  to: number,
  dst: ColumnData,
): void {
  if (kind === 'i64' || kind === 'u64') {
    gather64(col.values as BigInt64Array, dst.values as BigInt64Array, rows, from, to);
  } else {
    // f64 and bool share indexing; the cast only picks one for the type checker.
    const src = col.values as Float64Array;
    const out = dst.values as Float64Array;
    for (let i = from, k = 0; i < to; i++, k++) out[k] = src[rows[i] as number] as number;
  }
  gatherValidity(col, rows, from, to, dst);
}

/** The validity of rows `rows[from..to)` of a table column into `dst.valid[0..)` (alone for strings). */
function gatherValidity(col: MemColumn, rows: Int32Array, from: number, to: number, dst: ColumnData): void {
  const valid = dst.valid as Uint8Array;
  for (let i = from, k = 0; i < to; i++, k++) valid[k] = col.valid[rows[i] as number] as number;
}

/** A table column seen in place. */
function viewOf(col: MemColumn | undefined): ColumnData | null {
  return col ? { values: col.values as ColumnData['values'], valid: col.valid } : null;
}

/** Rows a part of a series read in place holds when a column is stored as bytes. */
const TEXT_RUN_ROWS = 256;

/**
 * Run parts of one source whose strings are held at once; making a run's strings drops those of
 * the run made longest ago (it makes them again if read again). A flush reads a log table's runs
 * one after another, and holding every run's strings until the series ended kept the whole
 * memtable as strings for the GC to copy out of the young generation.
 */
const TEXT_RUNS_HELD = 2;

/**
 * A part whose string columns are made on first read and dropped when more than TEXT_RUNS_HELD
 * parts of its source have been read since (`held`, shared by the source's parts).
 */
abstract class LazyTextPart implements Part {
  readonly start = 0;
  readonly end: number;
  readonly ts: BigInt64Array;
  private made: Array<ColumnData | null> | null = null;

  constructor(
    ts: BigInt64Array,
    protected readonly from: number,
    to: number,
    readonly unique: boolean,
    private readonly held: LazyTextPart[],
  ) {
    this.end = to - from;
    this.ts = ts.subarray(from, to);
  }

  /** The columns, strings made. */
  protected abstract make(): Array<ColumnData | null>;

  private drop(): void {
    this.made = null;
  }

  get cols(): Array<ColumnData | null> {
    if (this.made === null) {
      this.held.push(this);
      if (this.held.length > TEXT_RUNS_HELD) this.held.shift()?.drop();
      this.made = this.make();
    }
    return this.made;
  }
}

/** Table rows `[from, to)` of a series stored in order. */
class TextRunPart extends LazyTextPart {
  constructor(
    tableTs: BigInt64Array,
    private readonly columns: ReadonlyArray<MemColumn | undefined>,
    from: number,
    to: number,
    unique: boolean,
    held: LazyTextPart[],
  ) {
    super(tableTs, from, to, unique, held);
  }

  protected make(): Array<ColumnData | null> {
    const from = this.from;
    const to = from + this.end;
    return this.columns.map((col): ColumnData | null => {
      if (!col) return null;
      const valid = col.valid.subarray(from, to);
      if (col.values instanceof TextColumn) return { values: col.values.strings(from, to, col.valid), valid };
      return { values: col.values.subarray(from, to) as ColumnData['values'], valid };
    });
  }
}

/**
 * Rows `[from, to)` of a gathered series (its columns gathered into scratch from sorted row
 * `offset`, string columns' validity only).
 */
class GatheredTextPart extends LazyTextPart {
  constructor(
    ts: BigInt64Array,
    private readonly gathered: ReadonlyArray<ColumnData | null>,
    private readonly columns: ReadonlyArray<MemColumn | undefined>,
    private readonly rows: Int32Array,
    private readonly offset: number,
    from: number,
    to: number,
    unique: boolean,
    held: LazyTextPart[],
  ) {
    super(ts, from, to, unique, held);
  }

  protected make(): Array<ColumnData | null> {
    const { from, end } = this;
    return this.gathered.map((g, c): ColumnData | null => {
      if (g === null) return null;
      const valid = (g.valid as Uint8Array).subarray(from, from + end);
      const col = this.columns[c] as MemColumn;
      if (!(col.values instanceof TextColumn)) {
        return { values: (g.values as Float64Array).subarray(from, from + end) as ColumnData['values'], valid };
      }
      const values = new Array<string | null>(end);
      const at = this.offset + from;
      col.values.gatherStrings(this.rows, at, at + end, col.valid, values);
      return { values, valid };
    });
  }
}

export class MemtableSource implements SeriesSource {
  readonly keys: readonly string[];
  private readonly series: readonly MemSeries[];
  /** Table column of each field spec, undefined when the memtable never saw it. */
  private readonly columns: Array<MemColumn | undefined>;
  /** Table slot of each field spec, -1 when the memtable never saw it. */
  private readonly slots: number[];
  private readonly kinds: PhysicalKind[];
  private readonly ts: BigInt64Array;
  private readonly rowLimit: number;
  /** The newest row of the series `rowsInSnapshot` last counted. */
  private snapshotLast = -1;
  private readonly table: TableMemtable;
  /** Rows handed to scans as parts (a counter for the operator and tests). */
  rowsRead = 0;
  private scratchCapacity = 0;
  private scratchRows = new Int32Array(0);
  private scratchTs = new BigInt64Array(0);
  private scratchCols: ColumnData[] = [];

  private readonly sorted: SortedSeries;
  /** Whether a column read keeps its values as bytes (then read in runs of strings). */
  private readonly hasText: boolean;
  private readonly textRunsHeld: LazyTextPart[] = [];

  constructor(table: TableMemtable, specs: readonly FieldSpec[]) {
    const sorted = table.sortedSeries();
    this.sorted = sorted;
    this.series = sorted.series;
    this.keys = sorted.keys;
    this.slots = specs.map((s) => table.slotOf(s.id, s.kind));
    this.columns = this.slots.map((slot) => (slot < 0 ? undefined : table.cols[slot]));
    this.kinds = specs.map((s) => s.kind);
    this.hasText = this.columns.some((col) => col?.values instanceof TextColumn);
    this.ts = table.ts;
    this.rowLimit = table.rows;
    this.table = table;
  }

  private ensureScratch(n: number): void {
    if (n <= this.scratchCapacity) return;
    let capacity = Math.max(64, this.scratchCapacity * 2);
    while (capacity < n) capacity *= 2;
    this.scratchCapacity = capacity;
    this.scratchRows = new Int32Array(capacity);
    this.scratchTs = new BigInt64Array(capacity);
    // String columns gather only their validity here; their strings are made a run at a time.
    this.scratchCols = this.kinds.map((kind) => ({
      values: kind === 'str' ? [] : allocValues(kind, capacity),
      valid: new Uint8Array(capacity),
    }));
  }

  /**
   * How many of a series' rows belong to this source's snapshot; `snapshotLast` is then the
   * newest of them. Rows appended after this source was made are not part of it.
   */
  private rowsInSnapshot(s: MemSeries): number {
    let n = s.count;
    let row = s.lastRow;
    while (n > 0 && row >= this.rowLimit) {
      row = this.table.prevRow[row] as number;
      n--;
    }
    this.snapshotLast = row;
    return n;
  }

  summaryOf(index: number, lo: bigint, hi: bigint, request: SummaryRequest): SourceSummary | null {
    const s = this.series[index] as MemSeries;
    const n = this.rowsInSnapshot(s);
    if (n === 0 || (!s.distinct && !request.appendMode)) return null;
    const fold = foldedSeries(s, n, this.snapshotLast, this.table.prevRow, this.table, this.table.tsWords);
    const span: [bigint, bigint] = [this.ts[fold.minRow] as bigint, this.ts[fold.maxRow] as bigint];
    if (span[0] < lo || span[1] > hi) return null;
    const stats = statsPerColumn(request.specs, fold.stats, (spec) => {
      const slot = this.slots[spec] as number;
      return slot < 0 ? -1 : slot * STATS_WIDTH;
    });
    return stats === null ? null : { stats, rows: n, span };
  }

  candidates(matchers: readonly SeriesMatcher[]): Int32Array | null {
    return this.sorted.seriesIndex().candidates(matchers);
  }

  /**
   * Table rows `[start, end)` of a series stored in order, as parts of at most TEXT_RUN_ROWS rows
   * whose strings are made when the merge first reads them: a scan that stops early (LIMIT) makes
   * only those it reached. A run ends only between different timestamps, so runs never overlap
   * in time and the merge concatenates them as it would the one part.
   */
  private pushTextRuns(start: number, end: number, unique: boolean, out: Part[]): void {
    const words = this.table.tsWords;
    let from = start;
    while (from < end) {
      let to = Math.min(end, from + TEXT_RUN_ROWS);
      while (to < end && compareRowTimes(words, to, to - 1) === 0) to++;
      out.push(new TextRunPart(this.ts, this.columns, from, to, unique, this.textRunsHeld));
      from = to;
    }
  }

  collectParts(index: number, lo: bigint, hi: bigint, out: Part[]): void {
    const s = this.series[index] as MemSeries;
    const n = this.rowsInSnapshot(s);
    if (n === 0) return;

    if (s.sorted && s.contiguous) {
      const first = s.firstRow;
      const start = lowerBound(this.ts, first, first + n, lo);
      const end = upperBound(this.ts, start, first + n, hi);
      if (start >= end) return;
      this.rowsRead += end - start;
      if (this.hasText) this.pushTextRuns(start, end, s.unique, out);
      else out.push({ ts: this.ts, start, end, cols: this.columns.map(viewOf), unique: s.unique });
      return;
    }

    this.ensureScratch(n);
    const rows = this.scratchRows;
    if (s.sorted) {
      rowsBack(this.table.prevRow, this.snapshotLast, 0, n, rows);
    } else {
      const ordered = s.sortedRows(this.table.ts, this.table.prevRow);
      for (let i = 0, k = 0; i < ordered.length; i++) {
        const row = ordered[i] as number;
        if (row < this.rowLimit) rows[k++] = row;
      }
    }
    const ts = this.scratchTs;
    gather64(this.ts, ts, rows, 0, n);
    const start = lowerBound(ts, 0, n, lo);
    const end = upperBound(ts, start, n, hi);
    if (start >= end) return;
    const cols = this.columns.map((col, c): ColumnData | null => {
      if (!col) return null;
      const dst = this.scratchCols[c] as ColumnData;
      if (col.values instanceof TextColumn) gatherValidity(col, rows, start, end, dst);
      else gatherColumn(col, this.kinds[c] as PhysicalKind, rows, start, end, dst);
      return dst;
    });
    // Columns were gathered from `start`, so their row k is the series' row start + k; shift the
    // timestamps to match.
    ts.copyWithin(0, start, end);
    this.rowsRead += end - start;
    if (!this.hasText) {
      out.push({ ts, start: 0, end: end - start, cols, unique: s.unique });
      return;
    }
    // Strings are made a run at a time, as for a series stored in order (pushTextRuns): made for
    // the whole series at once, a log table's flush held every row's strings until its end.
    const count = end - start;
    let from = 0;
    while (from < count) {
      let to = Math.min(count, from + TEXT_RUN_ROWS);
      while (to < count && ts[to] === ts[to - 1]) to++;
      out.push(new GatheredTextPart(ts, cols, this.columns, rows, start, from, to, s.unique, this.textRunsHeld));
      from = to;
    }
  }
}
