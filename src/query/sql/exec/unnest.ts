/**
 * Expands `unnest(list)` result columns in the router (plan-unnest.ts): each row becomes one row
 * per item of its longest list, shorter lists padded with NULL and the other columns repeated,
 * as DataFusion's UnnestExec does; a row whose lists are all NULL or empty yields no row.
 */
import type { TimeSlice } from '../../../shared/time-slice.js';
import { type Column, cellAt } from '../../columns.js';
import type { Value } from '../types/values.js';

/** The rows with columns `unnest` (lists) expanded, items in list order. */
export async function expandUnnest(
  columns: Column[],
  rowCount: number,
  unnest: number[],
  slice: TimeSlice,
): Promise<{ columns: Value[][]; rowCount: number }> {
  const out: Value[][] = columns.map(() => []);
  const lists = new Set(unnest);
  for (let r = 0; r < rowCount; r++) {
    let length = 0;
    for (const c of unnest) {
      const list = cellAt(columns[c] as Column, r) as Value[] | null;
      if (list !== null && list.length > length) length = list.length;
    }
    for (let c = 0; c < columns.length; c++) {
      const cell = cellAt(columns[c] as Column, r) as Value;
      const target = out[c] as Value[];
      if (lists.has(c)) {
        const list = (cell as Value[] | null) ?? [];
        for (let i = 0; i < length; i++) target.push(list[i] ?? null);
      } else {
        for (let i = 0; i < length; i++) target.push(cell);
      }
    }
    if (slice.tick(length + 1)) await slice.next();
  }
  return { columns: out, rowCount: (out[0] ?? []).length };
}
