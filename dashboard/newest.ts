/**
 * The newest `limit` lines of a time range, with a query that has no ORDER BY (`/v1/logs` applies
 * its limit to whatever it finds first). Windows are taken from the end of the range, each twice
 * as wide as the one before; a window holding more lines than are still needed is halved, newer
 * half first, until a window's lines all fit. Every window's lines are older than the windows
 * before it, so the concatenation, each window sorted, is newest first.
 */
import type { Records } from './api';
import { timestampMs } from './time';

/** Lines with time in `[fromMs, toMs)`, at most `fetch` of them, in no particular order. */
export type WindowQuery = (fromMs: number, toMs: number, fetch: number) => Promise<Records>;

export async function newestFirst(
  query: WindowQuery,
  fromMs: number,
  toMs: number,
  limit: number,
  timeColumn: string,
): Promise<Records> {
  let columns: Records['columns'] = [];
  const sortedDesc = (records: Records): unknown[][] => {
    if (columns.length === 0) columns = records.columns;
    const at = records.columns.findIndex((c) => c.name === timeColumn);
    const type = records.columns[at]?.type ?? '';
    const time = (row: unknown[]) => (at < 0 ? 0 : (timestampMs(row[at], type) ?? 0));
    return [...records.rows].sort((a, b) => time(b) - time(a));
  };
  const fill = async (lo: number, hi: number, need: number): Promise<unknown[][]> => {
    const found = await query(lo, hi, need + 1);
    if (found.rows.length <= need || hi - lo <= 1) return sortedDesc(found).slice(0, need);
    const mid = Math.floor((lo + hi) / 2);
    const newer = await fill(mid, hi, need);
    if (newer.length >= need) return newer;
    return [...newer, ...(await fill(lo, mid, need - newer.length))];
  };
  const rows: unknown[][] = [];
  let hi = toMs;
  let width = Math.max(1000, Math.floor((toMs - fromMs) / 1024));
  while (hi > fromMs && rows.length < limit) {
    const lo = Math.max(fromMs, hi - width);
    rows.push(...(await fill(lo, hi, limit - rows.length)));
    hi = lo;
    width *= 2;
  }
  return { columns, rows };
}
