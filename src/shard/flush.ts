/**
 * Flush: turns the oldest frozen memtable into one segment per table, then installs them.
 *
 *   build segments (tmp → fsync → rename) → open them → MANIFEST (+segments, walFlushedFile)
 *   → in memory: segments live, frozen memtable gone (one synchronous step, so a scan sees one or
 *   the other) → delete the WAL files the manifest now covers.
 *
 * A crash before the manifest write leaves orphan segment files (deleted at the next open) and the
 * WAL intact; after it, the WAL files are skipped and deleted at the next open. A failure leaves
 * the frozen memtable in place, readable, to be retried.
 */

import { BACKGROUND_SPAN, inSpan } from '../shared/tracing/active-tracer.js';
import { faultPoint } from './fault-points.js';
import { fsyncDirSync, unlinkQuietSync } from './fs-util.js';
import { cloneManifest } from './manifest.js';
import type { Memtable } from './memtable/memtable.js';
import { MemtableSource } from './memtable/memtable-source.js';
import { sortSpecs } from './merge/part.js';
import { buildSegment, MS_PER_TURN } from './segment/build-segment.js';
import { SegmentFile } from './segment/segment-reader.js';
import type { ShardState } from './state.js';
import { listWalFiles, walFilePath } from './wal/wal-record.js';

interface BuiltSegment {
  tableId: number;
  id: number;
  abs: string;
  rel: string;
  rows: number;
  bytes: number;
  minTs: bigint;
  maxTs: bigint;
}

async function buildTables(state: ShardState, m: Memtable, built: BuiltSegment[]): Promise<void> {
  for (const [tableId, table] of m.tables) {
    if (state.dropped.has(tableId) || table.rows === 0) continue;
    const id = state.nextSegmentId++;
    const { abs, rel } = state.segmentPath(tableId, id);
    const specs = sortSpecs(table.slots.slice());
    const summary = await buildSegment({
      finalPath: abs,
      tableId,
      specs,
      sources: [new MemtableSource(table, specs)],
      mode: table.mergeMode,
      blockRows: state.config.segment.blockRows,
      tombstones: 'keep',
      indexes: state.indexSpecs.get(tableId),
      checkpoint: () => state.checkpoint(),
      turnMs: () => flushTurnMs(state),
    });
    if (summary) built.push({ tableId, id, abs, rel, ...summary });
  }
}

/**
 * How long a flush works between turns of the shard's event loop: short while the memtables are
 * far from `memtable.reject_size` (writes and queries wait little), longer as they fill, and past
 * half of it bounded only by rows (build-segment.ts turns every 64 k rows whatever the time): the
 * flush is what makes room, and sliced finely it fell behind the writes filling the memtables
 * under a heavy log load (requests refused with 503).
 */
export function flushTurnMs(state: ShardState): number {
  const limit = state.config.memtable.rejectBytes;
  if (limit <= 0) return MS_PER_TURN;
  const fill = state.memtableBytes() / limit;
  return fill < 0.25 ? MS_PER_TURN : fill < 0.5 ? 5 * MS_PER_TURN : Number.POSITIVE_INFINITY;
}

/** Deletes WAL files numbered up to `last`. */
function deleteFlushedWal(state: ShardState, last: number): void {
  let removed = 0;
  for (const n of listWalFiles(state.walDir)) {
    if (n > last || n === state.wal.fileNumber) continue;
    unlinkQuietSync(walFilePath(state.walDir, n));
    removed++;
  }
  if (removed > 0) fsyncDirSync(state.walDir);
  state.walFiles = listWalFiles(state.walDir).length;
}

/** Flushes one frozen memtable (the oldest). */
async function flushOldest(state: ShardState): Promise<void> {
  const m = state.frozen[0] as Memtable;
  const started = Date.now();
  const startedAt = performance.now();
  const built: BuiltSegment[] = [];
  const opened: SegmentFile[] = [];
  try {
    await buildTables(state, m, built);
    const next = cloneManifest(state.manifest);
    for (const b of built) {
      // A table dropped while its segment was being built: the drop job cleans up the file.
      if (state.dropped.has(b.tableId)) continue;
      opened.push(SegmentFile.open(b.abs, b.rel, b.id, b.tableId));
      const key = String(b.tableId);
      const table = next.tables[key] ?? { mergeMode: state.mergeModeOf(b.tableId), segments: [] };
      table.mergeMode = state.mergeModeOf(b.tableId);
      table.segments.push({
        id: b.id,
        file: b.rel,
        rows: b.rows,
        bytes: b.bytes,
        minTs: String(b.minTs),
        maxTs: String(b.maxTs),
      });
      next.tables[key] = table;
    }
    next.walFlushedFile = m.walFileLast;
    next.nextSegmentId = state.nextSegmentId;
    await faultPoint('flush.before-manifest');
    await state.saveManifest(next);
  } catch (err) {
    for (const f of opened) f.close();
    for (const b of built) unlinkQuietSync(b.abs);
    throw err;
  }

  for (const file of opened) {
    const list = state.segments.get(file.tableId) ?? [];
    list.push(file);
    state.segments.set(file.tableId, list);
  }
  state.frozen.shift();
  state.counters.flushes++;
  state.timings.flush.observe((performance.now() - startedAt) / 1000);
  state.log.info(
    { segments: built.map((b) => b.rel), rows: m.rows, walFlushedFile: m.walFileLast, ms: Date.now() - started },
    'memtable flushed',
  );
  await faultPoint('flush.before-wal-delete');
  deleteFlushedWal(state, m.walFileLast);
}

/** Flushes every frozen memtable, oldest first. */
export async function flushFrozen(state: ShardState): Promise<void> {
  while (state.frozen.length > 0) {
    await state.checkpoint();
    // A background job: its own trace, not part of whichever write happened to fill the memtable.
    await inSpan(
      'shard.flush',
      () => flushOldest(state),
      BACKGROUND_SPAN,
      () => ({
        'shoaldb.shard.id': state.config.shardId,
        'shoaldb.rows': state.frozen[0]?.rows ?? 0,
      }),
    );
  }
}
