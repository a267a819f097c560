/**
 * A memtable series' statistics for summarised scans (scan-summaries.ts): per field slot of its
 * table, `[present, sum, min, max]` of its rows, in the layout of a segment's statistics
 * (segment/series-stats.ts), plus the rows holding its least and greatest timestamps.
 *
 * Nothing is paid on the write path: the fold is made by the first scan that asks and kept with
 * the series. A series only ever gains rows at the end of its row list, so the next scan folds in
 * just the rows written since; an aggregate polled while writes arrive then costs what was
 * written in between rather than the whole memtable.
 */
import { foldStats, STATS_WIDTH } from '../segment/series-stats.js';
import { compareRowTimes, type MemSeries, rowsBack, type SeriesFold } from './mem-series.js';
import type { MemColumn, TableMemtable } from './table-memtable.js';

/** Sets slot entries `[from, to)` of `stats` empty. */
function openSlots(stats: Float64Array, from: number, to: number): void {
  for (let slot = from; slot < to; slot++) {
    const e = slot * STATS_WIDTH;
    stats[e] = 0;
    stats[e + 1] = 0;
    stats[e + 2] = Number.NaN;
    stats[e + 3] = Number.NaN;
  }
}

function emptyFold(slots: number): SeriesFold {
  const fold = { folded: 0, minRow: -1, maxRow: -1, stats: new Float64Array(slots * STATS_WIDTH) };
  openSlots(fold.stats, 0, slots);
  return fold;
}

/**
 * The fold of the first `n` entries of `series`' row list, extended from what earlier scans
 * folded. A scan whose snapshot is older than the kept fold (queries in flight together, the
 * older one paced behind) gets a fold of its own rows, not kept.
 */
export function foldedSeries(
  series: MemSeries,
  n: number,
  last: number,
  prev: Int32Array,
  table: TableMemtable,
  words: Uint32Array,
): SeriesFold {
  const slots = table.slots.length;
  let fold = series.fold;
  if (fold === null) {
    fold = emptyFold(slots);
    series.fold = fold;
  } else if (n < fold.folded) {
    fold = emptyFold(slots);
  } else if (fold.stats.length < slots * STATS_WIDTH) {
    // Slots the table gained since: the rows folded so far lack them, so nothing is present.
    const known = fold.stats.length / STATS_WIDTH;
    const stats = new Float64Array(slots * STATS_WIDTH);
    stats.set(fold.stats);
    openSlots(stats, known, slots);
    fold.stats = stats;
  }
  if (n === fold.folded) return fold;
  // The rows not folded yet, [folded, n) of the series, at [0, n - folded) here.
  const from = fold.folded;
  const rows = new Int32Array(n - from);
  rowsBack(prev, last, from, n, rows, from);
  let minRow = fold.minRow;
  let maxRow = fold.maxRow;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as number;
    if (minRow < 0 || compareRowTimes(words, r, minRow) < 0) minRow = r;
    if (maxRow < 0 || compareRowTimes(words, r, maxRow) > 0) maxRow = r;
  }
  for (let slot = 0; slot < slots; slot++) {
    const e = slot * STATS_WIDTH;
    if ((table.slots[slot] as { kind: string }).kind !== 'f64') fold.stats[e + 1] = Number.NaN;
    else if (!Number.isNaN(fold.stats[e + 1] as number)) {
      // A row without the column (ABSENT) counts as NULL: scans ask for summaries only of columns
      // without a default (`summaryColumnsOf`), which is how such a row reads.
      const col = table.cols[slot] as MemColumn;
      foldStats(fold.stats, e, col.values as Float64Array, col.valid, rows, 0, rows.length, false);
    }
  }
  fold.folded = n;
  fold.minRow = minRow;
  fold.maxRow = maxRow;
  return fold;
}
