/**
 * Rows past their table's ttl are left out when a write reaches the memtable (and when the WAL is
 * replayed), as GreptimeDB's frontend filters them on insert: a backfill of old samples into a
 * table with a 1-hour ttl stores nothing, instead of rows that a query sees until the next
 * retention pass.
 */
import { seriesCountOf, type TableRows } from '../../shared/codec/write-batch.js';
import { gatherVector } from '../../shared/vector-gather.js';

/**
 * `rows` without those whose time is before `cutoff` (in the table's unit): the same object when
 * none is, null when all are. The series lists stay as they were (blobs and key ids are indexed
 * by them); `seriesUsed` marks the series that still have rows.
 */
export function liveRowsOf(rows: TableRows, cutoff: bigint): TableRows | null {
  const n = rows.rowCount;
  const ts = rows.timestamps;
  // Compared as (high, unsigned low) 32-bit words: reading the BigInt64Array boxes a BigInt a row.
  const words = new Int32Array(ts.buffer, ts.byteOffset, n * 2);
  const cutHigh = Number(cutoff >> 32n);
  const cutLow = Number(cutoff & 0xffffffffn);
  const keep = new Uint32Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const high = words[2 * i + 1] as number;
    if (high > cutHigh || (high === cutHigh && (words[2 * i] as number) >>> 0 >= cutLow)) keep[kept++] = i;
  }
  if (kept === n) return rows;
  if (kept === 0) return null;
  const timestamps = new BigInt64Array(kept);
  const rowSeries = new Uint32Array(kept);
  const seriesUsed = new Uint8Array(seriesCountOf(rows));
  for (let i = 0; i < kept; i++) {
    const r = keep[i] as number;
    timestamps[i] = ts[r] as bigint;
    const s = rows.rowSeries[r] as number;
    rowSeries[i] = s;
    seriesUsed[s] = 1;
  }
  return {
    ...rows,
    rowCount: kept,
    timestamps,
    rowSeries,
    seriesUsed,
    fields: rows.fields.map((f) => ({ id: f.id, vector: gatherVector(f.vector, keep, kept) })),
  };
}
