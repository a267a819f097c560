/**
 * Compaction: merges all live segments of a table into one, with the table's merge mode, so
 * scans open fewer files and duplicates are resolved once.
 *
 *   pin inputs → build the merged segment (tmp → fsync → rename) → MANIFEST (inputs replaced by
 *   the output, at the inputs' position) → in memory: same swap → retire inputs (unlink; fds close
 *   when the last reader unpins)
 *
 * A crash before the manifest write leaves the inputs live and the output an orphan (deleted at
 * open); after it, the output is live and the inputs are orphans. Never both, never neither.
 */

import { BACKGROUND_SPAN, inSpan } from '../shared/tracing/active-tracer.js';
import { unlinkQuietSync } from './fs-util.js';
import { cloneManifest } from './manifest.js';
import { type FieldSpec, sortSpecs, specKey } from './merge/part.js';
import { buildSegment } from './segment/build-segment.js';
import { SegmentFile } from './segment/segment-reader.js';
import { SegmentSource } from './segment/segment-source.js';
import type { ShardState } from './state.js';

/** Union of the inputs' columns, in segment column order. */
function columnsOf(inputs: readonly SegmentFile[]): FieldSpec[] {
  const byKey = new Map<number, FieldSpec>();
  for (const f of inputs) for (const c of f.columns) byKey.set(specKey(c.id, c.kind), c);
  return sortSpecs([...byKey.values()]);
}

/** Tables that have at least `minSegments` live segments and can be compacted. */
export function tablesToCompact(state: ShardState, minSegments: number): number[] {
  const out: number[] = [];
  for (const [tableId, files] of state.segments) {
    if (files.length >= minSegments && !state.brokenTables.has(tableId) && !state.dropped.has(tableId)) {
      out.push(tableId);
    }
  }
  return out;
}

/** Compacts every live segment of one table into one; a root span of its own while tracing. */
export function compactTable(state: ShardState, tableId: number): Promise<void> {
  return inSpan(
    'shard.compaction',
    () => compactSegments(state, tableId),
    BACKGROUND_SPAN,
    () => ({
      'shoaldb.shard.id': state.config.shardId,
      'shoaldb.table.id': tableId,
    }),
  );
}

async function compactSegments(state: ShardState, tableId: number): Promise<void> {
  await state.checkpoint();
  const inputs = (state.segments.get(tableId) ?? []).slice();
  if (inputs.length < 2 || state.brokenTables.has(tableId) || state.dropped.has(tableId)) return;
  const started = Date.now();
  const startedAt = performance.now();
  for (const f of inputs) f.pin();
  try {
    const specs = columnsOf(inputs);
    const id = state.nextSegmentId++;
    const { abs, rel } = state.segmentPath(tableId, id);
    const summary = await buildSegment({
      finalPath: abs,
      tableId,
      specs,
      sources: inputs.map((f) => new SegmentSource(f, specs)),
      mode: state.mergeModeOf(tableId),
      blockRows: state.config.segment.blockRows,
      tombstones: 'drop',
      indexes: state.indexSpecs.get(tableId),
      checkpoint: () => state.checkpoint(),
    });
    if (state.dropped.has(tableId)) {
      unlinkQuietSync(abs);
      return;
    }

    let output: SegmentFile | null = null;
    try {
      const next = cloneManifest(state.manifest);
      const table = next.tables[String(tableId)];
      if (!table) throw new Error(`table ${tableId} has live segments but no manifest entry`);
      const inputIds = new Set(inputs.map((f) => f.id));
      const firstInput = table.segments.findIndex((s) => inputIds.has(s.id));
      const kept = table.segments.filter((s) => !inputIds.has(s.id));
      if (summary) {
        output = SegmentFile.open(abs, rel, id, tableId);
        const entry = {
          id,
          file: rel,
          rows: summary.rows,
          bytes: summary.bytes,
          minTs: String(summary.minTs),
          maxTs: String(summary.maxTs),
        };
        kept.splice(Math.max(0, firstInput), 0, entry);
      }
      table.segments = kept;
      next.nextSegmentId = state.nextSegmentId;
      await state.saveManifest(next);
    } catch (err) {
      output?.close();
      unlinkQuietSync(abs);
      throw err;
    }

    const current = state.segments.get(tableId) ?? [];
    const at = current.indexOf(inputs[0] as SegmentFile);
    const remaining = current.filter((f) => !inputs.includes(f));
    if (output) remaining.splice(Math.max(0, at), 0, output);
    state.segments.set(tableId, remaining);
    for (const f of inputs) f.retire();
    state.counters.compactions++;
    state.timings.compaction.observe((performance.now() - startedAt) / 1000);
    state.log.info(
      {
        tableId,
        inputs: inputs.map((f) => f.relPath),
        output: rel,
        rows: summary?.rows ?? 0,
        ms: Date.now() - started,
      },
      'segments compacted',
    );
  } finally {
    for (const f of inputs) f.unpin();
  }
}
