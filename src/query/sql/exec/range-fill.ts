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

/**
 * Applies slot generation and FILL to the finished groups (column-major in and out). The grid is
 * built column by column, never as one array per row: a grid at the bound is a million rows, and
 * row arrays that survive the router's young-generation collections made each of them copy tens
 * of megabytes (20-50 ms pauses on a slow machine, longer than any slice).
 */
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
  // Row numbers by BY key, keys in the order first seen.
  const partitions = new Map<string, number[]>();
  const key = new Array<Value>(range.byCount);
  for (let r = 0; r < rowCount; r++) {
    for (let c = 0; c < range.byCount; c++) key[c] = (columns[c] as Value[])[r] as Value;
    const k = groupKeyOf(key);
    let list = partitions.get(k);
    if (!list) partitions.set(k, (list = []));
    list.push(r);
    if (slice.tick()) await slice.next();
  }
  const slots = columns[slotColumn] as bigint[];
  const generate = range.fills.some((f) => f.kind !== 'none') && step > 0n;
  let gridRows = 0n;
  for (const list of partitions.values()) {
    list.sort((a, b) => ((slots[a] as bigint) < (slots[b] as bigint) ? -1 : 1));
    await slice.next();
    if (!generate) continue;
    gridRows += ((slots[list[list.length - 1] as number] as bigint) - (slots[list[0] as number] as bigint)) / step + 1n;
  }
  if (generate) checkFillGrid(gridRows, columns.length, range.bounds);
  const out: Value[][] = columns.map(() => []);
  let n = 0;
  for (const list of partitions.values()) {
    const start = n;
    if (generate && list.length > 0) {
      const firstRow = list[0] as number;
      const last = slots[list[list.length - 1] as number] as bigint;
      let i = 0;
      for (let slot = slots[firstRow] as bigint; slot <= last; slot += step) {
        const r = list[i];
        if (r !== undefined && slots[r] === slot) {
          for (let c = 0; c < columns.length; c++) (out[c] as Value[]).push((columns[c] as Value[])[r] as Value);
          i++;
        } else {
          for (let c = 0; c < range.byCount; c++) (out[c] as Value[]).push((columns[c] as Value[])[firstRow] as Value);
          (out[slotColumn] as Value[]).push(slot);
          for (let c = slotColumn + 1; c < columns.length; c++) (out[c] as Value[]).push(null);
        }
        n++;
        if (slice.tick()) await slice.next();
      }
    } else {
      for (const r of list) {
        for (let c = 0; c < columns.length; c++) (out[c] as Value[]).push((columns[c] as Value[])[r] as Value);
        n++;
        if (slice.tick()) await slice.next();
      }
    }
    for (let a = 0; a < range.fills.length; a++) {
      const fill = range.fills[a] as RangeMerge['fills'][number];
      const column = out[slotColumn + 1 + a] as Value[];
      await applyFill(fill, column, start, n, (aggregates[a] as AggregateCall).type, slice);
    }
  }
  return { columns: out, rowCount: n };
}

/** Fills one partition's part `[start, end)` of an aggregate's column in place, checking `slice` every few thousand cells. */
async function applyFill(
  fill: RangeMerge['fills'][number],
  column: Value[],
  start: number,
  end: number,
  type: DataType,
  slice: TimeSlice,
): Promise<void> {
  switch (fill.kind) {
    case 'none':
    case 'null':
      return;
    case 'constant': {
      const value = castValue(fill.value, fill.type, type);
      for (let i = start; i < end; i++) {
        if (column[i] === null) column[i] = value;
        if (slice.tick()) await slice.next();
      }
      return;
    }
    case 'prev': {
      let prev: Value = null;
      for (let i = start; i < end; i++) {
        if (column[i] === null) column[i] = prev;
        else prev = column[i] as Value;
        if (slice.tick()) await slice.next();
      }
      return;
    }
    case 'linear': {
      // Between each pair of known values, interpolate the gap; values become Float64.
      let before = -1;
      for (let i = start; i < end; i++) {
        if (column[i] !== null) {
          column[i] = castValue(column[i] as Value, type, 'Float64');
          if (before >= 0 && i - before > 1) {
            const va = column[before] as number;
            const vb = column[i] as number;
            for (let k = before + 1; k < i; k++) {
              column[k] = va + ((vb - va) * (k - before)) / (i - before);
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
