/**
 * One series in a memtable: its rows in the table's columns, in write order, plus what the read
 * path needs to know about their timestamps.
 *
 * The rows are a chain through the table's `prevRow` column (each row names the series' row
 * before it), not an array per series: appending a row then writes one table-wide slot instead of
 * growing a small array of its own, and a series of one row a request (what scrapers send) had
 * made the arrays' growth and their marking by the GC a sixth of a write. Readers walk the chain
 * back from the newest row (`rowsBack`), which they did row by row anyway.
 */

/** A series' statistics for summarised scans, made and extended by series-fold.ts. */
export interface SeriesFold {
  /** Entries of the series' row list folded in. */
  folded: number;
  /** Table rows with the least and the greatest timestamp folded in (-1 before any). */
  minRow: number;
  maxRow: number;
  /** Per table slot, STATS_WIDTH values; a NaN sum marks a slot the statistics cannot stand for. */
  stats: Float64Array;
}

/** Compares the timestamps of table rows `a` and `b` through the column's 32-bit words. */
export function compareRowTimes(words: Uint32Array, a: number, b: number): number {
  const high = ((words[2 * a + 1] as number) | 0) - ((words[2 * b + 1] as number) | 0);
  return high !== 0 ? high : (words[2 * a] as number) - (words[2 * b] as number);
}

/** Estimated cost of a series object and its map entry, excluding the key. */
export const SERIES_OVERHEAD_BYTES = 160;

/**
 * Writes a series' rows at write positions `[from, n)` into `out[from - offset, n - offset)`,
 * walking `prev` back from `last`, its row at position n - 1.
 */
export function rowsBack(prev: Int32Array, last: number, from: number, n: number, out: Int32Array, offset = 0): void {
  let row = last;
  for (let i = n - 1; i >= from; i--) {
    out[i - offset] = row;
    row = prev[row] as number;
  }
}

/**
 * Rows out of order are mostly a few places late (requests in flight at once reach a shard in
 * either order), so an insertion sort, linear in rows plus displacement, orders them; past this
 * many moves per row on average it gives up for the general sort.
 */
const INSERTION_MOVES_PER_ROW = 8;

/** Rows of an unsorted series kept in time order to tell whether a late row repeats a time. */
const LATEST_ROWS = 16;
const LATEST_MASK = LATEST_ROWS - 1;

/**
 * Sorts `perm` (the identity on entry) by `keys`, stably, by insertion; false (and `perm` some
 * permutation) once more than `maxMoves` element moves were needed.
 */
function insertionSorted(perm: Int32Array, keys: Float64Array, maxMoves: number): boolean {
  let moves = 0;
  for (let i = 1; i < perm.length; i++) {
    const p = perm[i] as number;
    const k = keys[p] as number;
    let j = i - 1;
    while (j >= 0 && (keys[perm[j] as number] as number) > k) {
      perm[j + 1] = perm[j] as number;
      j--;
      if (++moves > maxMoves) {
        perm[j + 1] = p;
        return false;
      }
    }
    perm[j + 1] = p;
  }
  return true;
}

export class MemSeries {
  /** Rows of the series; the first and the newest table row (-1 while none). */
  count = 0;
  firstRow = -1;
  lastRow = -1;
  /** Every timestamp >= the one before it. */
  sorted = true;
  /** The rows are consecutive table rows, so the table's columns can be read in place. */
  contiguous = true;
  /**
   * No two rows share a timestamp. Exact while sorted; once not, false also when a row came too
   * late for a cheap check to rule a repeat out (see `noteUnordered`).
   */
  distinct = true;
  /** Once unsorted: the rows with the greatest timestamps, a ring oldest first from `latestHead` (see `noteUnordered`). */
  private latest: Int32Array | null = null;
  private latestHead = 0;
  private latestCount = 0;
  /** Statistics of the rows, kept for summarised scans (series-fold.ts). */
  fold: SeriesFold | null = null;
  private order: { rowCount: number; rows: Int32Array } | null = null;

  /** Its place among its table memtable's series, in the order they came. */
  index = -1;

  constructor(readonly key: string) {}

  /** Every timestamp > the one before it (sorted, and no time twice). */
  get unique(): boolean {
    return this.sorted && this.distinct;
  }

  /**
   * Called before table row `row` is appended when it does not come strictly after the last row
   * (`order`: its time compared with the last row's), or when the series is already unsorted;
   * keeps `sorted` and `distinct`. While sorted, a repeat is found by binary search.
   * Once not, the rows with the LATEST_ROWS greatest timestamps are kept in order, and every other
   * row is older than all of them: a row newer than the oldest of them can only repeat one of
   * them; an older one might repeat any row, and is taken to (a row that late is rare).
   */
  noteUnordered(row: number, order: number, words: Uint32Array, prev: Int32Array): void {
    if (this.sorted) {
      this.becomeUnsorted(row, order, words, prev);
      return;
    }
    if (!this.distinct) return;
    // Mostly a row newer than every kept one: it replaces the oldest.
    const latest = this.latest as Int32Array;
    const n = this.latestCount;
    if (compareRowTimes(words, row, latest[(this.latestHead + n - 1) & LATEST_MASK] as number) > 0) {
      if (n < LATEST_ROWS) {
        latest[(this.latestHead + n) & LATEST_MASK] = row;
        this.latestCount = n + 1;
      } else {
        latest[this.latestHead] = row;
        this.latestHead = (this.latestHead + 1) & LATEST_MASK;
      }
      return;
    }
    this.keepLate(row, words);
  }

  private becomeUnsorted(row: number, order: number, words: Uint32Array, prev: Int32Array): void {
    const count = this.count;
    if (order === 0) {
      this.distinct = false;
      return;
    }
    this.sorted = false;
    if (!this.distinct) return;
    if (this.holdsTimeOf(row, words, prev)) {
      this.distinct = false;
      return;
    }
    const kept = Math.min(LATEST_ROWS, count);
    const latest = new Int32Array(LATEST_ROWS);
    rowsBack(prev, this.lastRow, count - kept, count, latest, count - kept);
    this.latest = latest;
    this.latestHead = 0;
    this.latestCount = kept;
    // Older than every kept row (with all of them kept, nothing else is older): it joins the rest.
    if (kept === LATEST_ROWS && compareRowTimes(words, row, latest[0] as number) < 0) return;
    this.keepLate(row, words);
  }

  /**
   * Whether a row of this (sorted) series has the time of table row `row`, walking back from the
   * newest until an older time: a late row is mostly only a few places late.
   */
  private holdsTimeOf(row: number, words: Uint32Array, prev: Int32Array): boolean {
    for (let r = this.lastRow, i = this.count; i > 0; i--, r = prev[r] as number) {
      const c = compareRowTimes(words, r, row);
      if (c === 0) return true;
      if (c < 0) return false;
    }
    return false;
  }

  /**
   * Puts `row`, not newer than the newest kept row, in its place among the kept rows (the oldest
   * of them then joins the rest when they are full), or marks the series not distinct when it
   * repeats one, or is older than all of them when they are full.
   */
  private keepLate(row: number, words: Uint32Array): void {
    const latest = this.latest as Int32Array;
    const head = this.latestHead;
    const n = this.latestCount;
    const at = (i: number): number => (head + i) & LATEST_MASK;
    if (n === LATEST_ROWS && compareRowTimes(words, row, latest[head] as number) <= 0) {
      this.distinct = false;
      return;
    }
    // The newest kept row older than `row`; -1 when none (then the ring is not full).
    let i = n - 1;
    for (; i >= 0; i--) {
      const c = compareRowTimes(words, row, latest[at(i)] as number);
      if (c === 0) {
        this.distinct = false;
        return;
      }
      if (c > 0) break;
    }
    if (n < LATEST_ROWS) {
      for (let j = n; j > i + 1; j--) latest[at(j)] = latest[at(j - 1)] as number;
      latest[at(i + 1)] = row;
      this.latestCount = n + 1;
    } else {
      for (let j = 0; j < i; j++) latest[at(j)] = latest[at(j + 1)] as number;
      latest[at(i)] = row;
    }
  }

  /**
   * The series' rows ordered by (timestamp, write order): a stable sort, so duplicates stay in
   * write order. Cached until rows are added (a frozen memtable computes it once; a query over
   * the active memtable while writes arrive computes it again each time). Timestamps are compared
   * as doubles relative to the series' smallest high word, exact while the series spans less
   * than 2^21 × 2^32 units (24 days of nanoseconds); wider series compare as BigInts.
   */
  sortedRows(tableTs: BigInt64Array, prev: Int32Array): Int32Array {
    const n = this.count;
    if (this.order && this.order.rowCount === n) return this.order.rows;
    const rows = new Int32Array(n);
    rowsBack(prev, this.lastRow, 0, n, rows);
    // Little-endian words: [2r] is the low half (read unsigned), [2r + 1] the high half.
    const words = new Int32Array(tableTs.buffer, tableTs.byteOffset, tableTs.length * 2);
    let hiMin = Number.POSITIVE_INFINITY;
    let hiMax = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const hi = words[2 * (rows[i] as number) + 1] as number;
      if (hi < hiMin) hiMin = hi;
      if (hi > hiMax) hiMax = hi;
    }
    const perm = new Int32Array(n);
    for (let i = 0; i < n; i++) perm[i] = i;
    if (hiMax - hiMin < 2 ** 21) {
      const keys = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const r = rows[i] as number;
        keys[i] = ((words[2 * r + 1] as number) - hiMin) * 4294967296 + ((words[2 * r] as number) >>> 0);
      }
      if (!insertionSorted(perm, keys, INSERTION_MOVES_PER_ROW * n)) {
        perm.sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b);
      }
    } else {
      const times = new Array<bigint>(n);
      for (let i = 0; i < n; i++) times[i] = tableTs[rows[i] as number] as bigint;
      perm.sort((a, b) => {
        const x = times[a] as bigint;
        const y = times[b] as bigint;
        return x < y ? -1 : x > y ? 1 : a - b;
      });
    }
    for (let i = 0; i < n; i++) perm[i] = rows[perm[i] as number] as number;
    this.order = { rowCount: n, rows: perm };
    return perm;
  }
}
