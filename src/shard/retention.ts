/**
 * Retention: segments whose every row is past their table's `ttl` are retired whole, as GreptimeDB
 * drops expired SST files (mito2 `compaction.rs`, `get_expired_ssts`: files whose newest row is
 * older than now − ttl). Rows are not filtered at query time there either: an expired row stays
 * visible until the segment holding it goes, and a compaction over a table's oldest segment leaves
 * out the rows past the ttl (compaction.ts), which is what cuts segments straddling the boundary.
 *
 *   pick up to RETIRE_SEGMENTS_PER_STEP expired segments of one table → MANIFEST without them →
 *   in memory: same removal → retire them (unlink; fds close when the last reader unpins)
 *
 * A crash before the manifest write leaves them live (retired by the next pass); after it, they
 * are orphans deleted at open. Each step is one manifest write, so a pass with many expired
 * segments takes several short jobs and lets flushes and writes run between them.
 */

import type { TableRows } from '../shared/codec/write-batch.js';
import { expiryCutoff } from '../shared/ttl.js';
import { faultPoint } from './fault-points.js';
import { cloneManifest } from './manifest.js';
import { liveRowsOf } from './memtable/live-rows.js';
import { I64_MIN } from './merge/part.js';
import type { SegmentFile } from './segment/segment-reader.js';
import type { ShardState } from './state.js';

/** Segments one retention step retires at most (one manifest write). */
export const RETIRE_SEGMENTS_PER_STEP = 32;

/** The cutoff of a table at `nowMs`, or I64_MIN (nothing expired) when it keeps rows forever. */
export function tableCutoff(state: ShardState, tableId: number, nowMs: number): bigint {
  const retention = state.retention.get(tableId);
  return retention === undefined ? I64_MIN : expiryCutoff(retention, nowMs);
}

/**
 * What a write (or the WAL replay) keeps of each table's rows at `nowMs`: nothing of a dropped or
 * `instant` table, and none of the rows already past a ttl (GreptimeDB's frontend filters those
 * on insert, sqlness `ttl/ttl_ingestion_filter`). They are in the WAL all the same: it is
 * replayed through the same filter.
 */
export function rowAdmitter(state: ShardState, nowMs: number): (rows: TableRows) => TableRows | null {
  return (rows) => {
    if (state.keepsNoRows(rows.tableId)) return null;
    const cutoff = tableCutoff(state, rows.tableId, nowMs);
    return cutoff === I64_MIN ? rows : liveRowsOf(rows, cutoff);
  };
}

/** A table's live segments whose newest row is before its cutoff, oldest first. */
function expiredSegments(state: ShardState, tableId: number, nowMs: number): SegmentFile[] {
  const cutoff = tableCutoff(state, tableId, nowMs);
  if (cutoff === I64_MIN) return [];
  const entries = state.manifest.tables[String(tableId)]?.segments ?? [];
  const expiredIds = new Set(entries.filter((s) => BigInt(s.maxTs) < cutoff).map((s) => s.id));
  if (expiredIds.size === 0) return [];
  return (state.segments.get(tableId) ?? []).filter((f) => expiredIds.has(f.id));
}

/** The first table (that can be changed now) with expired segments, and those segments. */
function firstExpired(state: ShardState, nowMs: number): { tableId: number; segments: SegmentFile[] } | null {
  for (const tableId of state.retention.keys()) {
    if (state.brokenTables.has(tableId) || state.dropped.has(tableId)) continue;
    const segments = expiredSegments(state, tableId, nowMs);
    if (segments.length > 0) return { tableId, segments };
  }
  return null;
}

/**
 * One step of the retention pass: retires up to RETIRE_SEGMENTS_PER_STEP expired segments of the
 * first table that has any. Run as a store job (it edits the manifest). Resolves whether it
 * retired anything, so the caller queues the next step only while there is work.
 */
export async function retireExpiredStep(state: ShardState, nowMs: number): Promise<boolean> {
  await state.checkpoint();
  const first = firstExpired(state, nowMs);
  if (first === null) return false;
  const { tableId } = first;
  const expired = first.segments.slice(0, RETIRE_SEGMENTS_PER_STEP);
  const ids = new Set(expired.map((f) => f.id));
  const next = cloneManifest(state.manifest);
  const table = next.tables[String(tableId)];
  if (!table) throw new Error(`table ${tableId} has live segments but no manifest entry`);
  table.segments = table.segments.filter((s) => !ids.has(s.id));
  await state.saveManifest(next);

  state.segments.set(
    tableId,
    (state.segments.get(tableId) ?? []).filter((f) => !ids.has(f.id)),
  );
  await faultPoint('retention.before-retire');
  let rows = 0;
  for (const f of expired) {
    rows += f.rows;
    f.retire();
  }
  state.counters.segmentsExpired += expired.length;
  state.counters.rowsExpired += rows;
  state.log.info({ tableId, segments: expired.map((f) => f.relPath), rows }, 'expired segments retired');
  return true;
}
