/**
 * One series in a memtable: the list of its rows in the table's columns, in write order, plus
 * what the read path needs to know about their timestamps.
 */

/** Estimated cost of a series object, its map entry and row list header, excluding the key. */
export const SERIES_OVERHEAD_BYTES = 160;
/** Estimated cost of one entry of a series' row list. */
export const ROW_REF_BYTES = 8;

export class MemSeries {
  /** Table row numbers of this series, in write order. */
  readonly rows: number[] = [];
  /** Every timestamp >= the one before it. */
  sorted = true;
  /** Every timestamp > the one before it (implies sorted). */
  unique = true;
  /** The rows are consecutive table rows, so the table's columns can be read in place. */
  contiguous = true;
  private order: { rowCount: number; perm: Int32Array } | null = null;

  constructor(readonly key: string) {}

  /**
   * Positions in `rows` ordered by (timestamp, write order): a stable sort, so duplicates stay in
   * write order. Cached until rows are added (a frozen memtable computes it once).
   */
  sortedOrder(tableTs: BigInt64Array): Int32Array {
    const n = this.rows.length;
    if (this.order && this.order.rowCount === n) return this.order.perm;
    const times = new Array<bigint>(n);
    for (let i = 0; i < n; i++) times[i] = tableTs[this.rows[i] as number] as bigint;
    const perm = new Int32Array(n);
    for (let i = 0; i < n; i++) perm[i] = i;
    perm.sort((a, b) => {
      const x = times[a] as bigint;
      const y = times[b] as bigint;
      return x < y ? -1 : x > y ? 1 : a - b;
    });
    this.order = { rowCount: n, perm };
    return perm;
  }
}
