/**
 * The router's last step of a range query before projection: missing slots and FILL. Rows are
 * `[...by, slot, ...aggregate results]` (slot in the time index unit). When any aggregate fills,
 * each BY key gets every slot between its first and last one; then each aggregate's FILL replaces
 * its NULLs: PREV carries the last value forward, LINEAR interpolates between neighbours (as
 * Float64), a constant is cast to the aggregate's type.
 *
 * The grid's size depends on the ALIGN and the data's time span, not on the row count, so it is
 * counted and checked against the query's range bounds before any slot is generated. A grid at
 * the bound is a million rows: every loop checks `slice`, so the router's event loop is never
 * held for long while it is built.
 */
import type { TimeSlice } from '../../../shared/time-slice.js';
import type { DataType } from '../../../shared/types.js';
import type { AggregateCall, RangeMerge } from '../plan/plan.js';
import { checkFillGrid, tooManyRangeRows } from '../plan/range-bounds.js';
import { castValue, type Value } from '../types/values.js';
import { groupKeyOf } from './shard-exec.js';

/** Applies slot generation and FILL to the finished groups (column-major, changed in place). */
export async function fillRange(
  range: RangeMerge,
  aggregates: AggregateCall[],
  columns: Value[][],
  rowCount: number,
  slice: TimeSlice,
): Promise<{ columns: Value[][]; rowCount: number }> {
  const slotColumn = range.byCount;
  const step = range.alignNanos / range.timeUnitNanos;
  // Each shard kept to the bound; together they may not.
  if (range.bounds.maxRows > 0 && rowCount > range.bounds.maxRows) {
    throw tooManyRangeRows(rowCount, range.bounds, 'from all shards');
  }
  const rows: Value[][] = [];
  for (let r = 0; r < rowCount; r++) {
    rows.push(columns.map((c) => c[r] as Value));
    if (slice.tick()) await slice.next();
  }
  const partitions = new Map<string, Value[][]>();
  for (const row of rows) {
    const key = groupKeyOf(row.slice(0, range.byCount));
    let list = partitions.get(key);
    if (!list) partitions.set(key, (list = []));
    list.push(row);
    if (slice.tick()) await slice.next();
  }
  const generate = range.fills.some((f) => f.kind !== 'none') && step > 0n;
  let gridRows = 0n;
  for (const list of partitions.values()) {
    list.sort((a, b) => ((a[slotColumn] as bigint) < (b[slotColumn] as bigint) ? -1 : 1));
    await slice.next();
    if (!generate) continue;
    const first = (list[0] as Value[])[slotColumn] as bigint;
    const last = (list[list.length - 1] as Value[])[slotColumn] as bigint;
    gridRows += (last - first) / step + 1n;
  }
  if (generate) checkFillGrid(gridRows, columns.length, range.bounds);
  const out: Value[][] = [];
  for (const list of partitions.values()) {
    let filled = list;
    if (generate && list.length > 0) {
      filled = [];
      const first = (list[0] as Value[])[slotColumn] as bigint;
      const last = (list[list.length - 1] as Value[])[slotColumn] as bigint;
      let i = 0;
      for (let slot = first; slot <= last; slot += step) {
        const existing = list[i];
        if (existing && existing[slotColumn] === slot) {
          filled.push(existing);
          i++;
        } else {
          const row = new Array<Value>(columns.length).fill(null);
          for (let c = 0; c < range.byCount; c++) row[c] = (list[0] as Value[])[c] as Value;
          row[slotColumn] = slot;
          filled.push(row);
        }
        if (slice.tick()) await slice.next();
      }
    }
    for (let a = 0; a < range.fills.length; a++) {
      const fill = range.fills[a] as RangeMerge['fills'][number];
      await applyFill(fill, filled, slotColumn + 1 + a, (aggregates[a] as AggregateCall).type, slice);
    }
    // Not `push(...filled)`: spreading a long list overflows the call stack.
    for (const row of filled) {
      out.push(row);
      if (slice.tick()) await slice.next();
    }
  }
  const outColumns: Value[][] = [];
  for (let c = 0; c < columns.length; c++) {
    const column = new Array<Value>(out.length);
    for (let r = 0; r < out.length; r++) {
      column[r] = (out[r] as Value[])[c] as Value;
      if (slice.tick()) await slice.next();
    }
    outColumns.push(column);
  }
  return { columns: outColumns, rowCount: out.length };
}

/** Fills column `c` of one partition's rows in place, checking `slice` every few thousand rows. */
async function applyFill(
  fill: RangeMerge['fills'][number],
  rows: Value[][],
  c: number,
  type: DataType,
  slice: TimeSlice,
): Promise<void> {
  switch (fill.kind) {
    case 'none':
    case 'null':
      return;
    case 'constant': {
      const value = castValue(fill.value, fill.type, type);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as Value[];
        if (row[c] === null) row[c] = value;
        if (slice.tick()) await slice.next();
      }
      return;
    }
    case 'prev': {
      let prev: Value = null;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as Value[];
        if (row[c] === null) row[c] = prev;
        else prev = row[c] as Value;
        if (slice.tick()) await slice.next();
      }
      return;
    }
    case 'linear': {
      // Between each pair of known values, interpolate the gap; values become Float64.
      let before = -1;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as Value[];
        if (row[c] !== null) {
          row[c] = castValue(row[c] as Value, type, 'Float64');
          if (before >= 0 && i - before > 1) {
            const va = (rows[before] as Value[])[c] as number;
            const vb = row[c] as number;
            for (let k = before + 1; k < i; k++) {
              (rows[k] as Value[])[c] = va + ((vb - va) * (k - before)) / (i - before);
              if (slice.tick()) await slice.next();
            }
          }
          before = i;
        }
        if (slice.tick()) await slice.next();
      }
      return;
    }
  }
}
