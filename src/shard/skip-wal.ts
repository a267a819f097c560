/**
 * `skip_wal` (GreptimeDB's table option): a table's writes go to the memtable only, and are lost
 * if the process dies before a flush. A payload is left out of the WAL only when every table in
 * it skips the WAL; a payload mixing them with other tables is logged whole, so one record never
 * holds half a payload and the logged tables stay durable (the skipped table's rows in it are
 * durable too, which costs nothing anyone relies on).
 */
import type { WriteBatch } from '../shared/codec/write-batch.js';

/** Whether a payload must be written to the WAL: it has a table that does not skip it. */
export function needsWal(batch: WriteBatch, skipWal: ReadonlySet<number>): boolean {
  if (skipWal.size === 0) return true;
  // A payload without tables has nothing to replay, but logging it is what it always did.
  if (batch.tables.length === 0) return true;
  return batch.tables.some((t) => !skipWal.has(t.tableId));
}
