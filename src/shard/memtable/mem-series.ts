/**
 * One series in a memtable: the list of its rows in the table's columns, in write order, plus
 * what the read path needs to know about their timestamps.
 */

/** Estimated cost of a series object, its map entry and row list header, excluding the key. */
export const SERIES_OVERHEAD_BYTES = 160;
/** Estimated cost of one entry of a series' row list. */
export const ROW_REF_BYTES = 8;

/**
 * Rows out of order are mostly a few places late (requests in flight at once reach a shard in
 * either order), so an insertion sort, linear in rows plus displacement, orders them; past this
 * many moves per row on average it gives up for the general sort.
 */
const INSERTION_MOVES_PER_ROW = 8;

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
   * write order. Cached until rows are added (a frozen memtable computes it once; a query over
   * the active memtable while writes arrive computes it again each time). Timestamps are compared
   * as doubles relative to the series' smallest high word, exact while the series spans less
   * than 2^21 × 2^32 units (24 days of nanoseconds); wider series compare as BigInts.
   */
  sortedOrder(tableTs: BigInt64Array): Int32Array {
    const n = this.rows.length;
    if (this.order && this.order.rowCount === n) return this.order.perm;
    const rows = this.rows;
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
    this.order = { rowCount: n, perm };
    return perm;
  }
}
