/**
 * The router's last step of a range query before projection: missing slots and FILL. Rows are
 * `[...by, slot, ...aggregate results]` (slot in the time index unit). When any aggregate fills,
 * each BY key gets every slot between its first and last one; then each aggregate's FILL replaces
 * its NULLs: PREV carries the last value forward, LINEAR interpolates between neighbours (as
 * Float64), a constant is cast to the aggregate's type.
 *
 * The grid's size depends on the ALIGN and the data's time span, not on the row count, so it is
 * counted and checked against the query's range bounds before any slot is generated.
 */
import type { DataType } from '../../shared/types.js';
import type { AggregateCall, RangeMerge } from './plan.js';
import { checkFillGrid, tooManyRangeRows } from './range-bounds.js';
import { groupKeyOf } from './shard-exec.js';
import { castValue, type Value } from './values.js';

/** Applies slot generation and FILL to the finished groups (column-major, changed in place). */
export function fillRange(
  range: RangeMerge,
  aggregates: AggregateCall[],
  columns: Value[][],
  rowCount: number,
): { columns: Value[][]; rowCount: number } {
  const slotColumn = range.byCount;
  const step = range.alignNanos / range.timeUnitNanos;
  // Each shard kept to the bound; together they may not.
  if (range.bounds.maxRows > 0 && rowCount > range.bounds.maxRows) {
    throw tooManyRangeRows(rowCount, range.bounds, 'from all shards');
  }
  const rows: Value[][] = [];
  for (let r = 0; r < rowCount; r++) rows.push(columns.map((c) => c[r] as Value));
  const partitions = new Map<string, Value[][]>();
  for (const row of rows) {
    const key = groupKeyOf(row.slice(0, range.byCount));
    let list = partitions.get(key);
    if (!list) partitions.set(key, (list = []));
    list.push(row);
  }
  const generate = range.fills.some((f) => f.kind !== 'none') && step > 0n;
  let gridRows = 0n;
  for (const list of partitions.values()) {
    list.sort((a, b) => ((a[slotColumn] as bigint) < (b[slotColumn] as bigint) ? -1 : 1));
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
      }
    }
    range.fills.forEach((fill, a) => {
      const c = slotColumn + 1 + a;
      const type = (aggregates[a] as AggregateCall).type;
      applyFill(fill, filled, c, type);
    });
    // Not `push(...filled)`: spreading a long list overflows the call stack.
    for (const row of filled) out.push(row);
  }
  return {
    columns: columns.map((_, c) => out.map((row) => row[c] as Value)),
    rowCount: out.length,
  };
}

function applyFill(fill: RangeMerge['fills'][number], rows: Value[][], c: number, type: DataType): void {
  switch (fill.kind) {
    case 'none':
    case 'null':
      return;
    case 'constant': {
      const value = castValue(fill.value, fill.type, type);
      for (const row of rows) if (row[c] === null) row[c] = value;
      return;
    }
    case 'prev': {
      let prev: Value = null;
      for (const row of rows) {
        if (row[c] === null) row[c] = prev;
        else prev = row[c] as Value;
      }
      return;
    }
    case 'linear': {
      const known = rows.map((row, i) => (row[c] === null ? -1 : i)).filter((i) => i >= 0);
      for (const row of rows) if (row[c] !== null) row[c] = castValue(row[c] as Value, type, 'Float64');
      for (let k = 0; k + 1 < known.length; k++) {
        const a = known[k] as number;
        const b = known[k + 1] as number;
        const va = (rows[a] as Value[])[c] as number;
        const vb = (rows[b] as Value[])[c] as number;
        for (let i = a + 1; i < b; i++) (rows[i] as Value[])[c] = va + ((vb - va) * (i - a)) / (b - a);
      }
      return;
    }
  }
}
