/**
 * Compaction: merges consecutive live segments of a table into one, with the table's merge mode,
 * so scans open fewer files and duplicates are resolved once.
 *
 * In the background it is size-tiered: the newest run of segments of similar size (an older
 * segment joins the run while it holds at most TIER_RATIO times the largest of the run) is merged
 * once it has `segment.compaction_trigger` members. Flushes of similar size merge into one about
 * trigger times larger, those into the next tier, and so on: a row is rewritten about
 * log_trigger(table rows / flush rows) times, where merging every segment each time rewrote the
 * whole table on every compaction and took more of a shard's thread the longer it ingested.
 * `compact()` (the admin API) still merges every segment. Runs are consecutive because a
 * segment's place in the list is its age, which decides which duplicate a merge keeps.
 *
 *   pin inputs → build the merged segment (tmp → fsync → rename) → MANIFEST (inputs replaced by
 *   the output, at the inputs' position) → in memory: same swap → retire inputs (unlink; fds close
 *   when the last reader unpins)
 *
 * A compaction that includes the table's oldest segment leaves out rows past the table's ttl
 * (retention.ts): that is how a segment straddling the ttl boundary loses its expired part.
 *
 * A crash before the manifest write leaves the inputs live and the output an orphan (deleted at
 * open); after it, the output is live and the inputs are orphans. Never both, never neither.
 */

import { BACKGROUND_SPAN, inSpan } from '../shared/tracing/active-tracer.js';
import { faultPoint } from './fault-points.js';
import { unlinkQuietSync } from './fs-util.js';
import { cloneManifest } from './manifest.js';
import { type FieldSpec, I64_MIN, sortSpecs, specKey } from './merge/part.js';
import { tableCutoff } from './retention.js';
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

/** An older segment joins a run of newer ones while it has at most this many times their largest's rows. */
export const TIER_RATIO = 2;

/**
 * The run a background compaction merges, as `[from, to)` of `rows` (segment row counts, oldest
 * first): the newest segments of similar size, when there are at least `minSegments`; else null.
 */
export function tieredRun(rows: readonly number[], minSegments: number): { from: number; to: number } | null {
  const to = rows.length;
  if (to < minSegments) return null;
  let from = to - 1;
  let largest = Math.max(1, rows[from] as number);
  while (from > 0 && (rows[from - 1] as number) <= TIER_RATIO * largest) {
    from--;
    largest = Math.max(largest, rows[from] as number);
  }
  return to - from >= minSegments ? { from, to } : null;
}

/** Tables whose segments hold a tiered run of at least `minSegments`. */
export function tablesWithTieredRun(state: ShardState, minSegments: number): number[] {
  const out: number[] = [];
  for (const [tableId, files] of state.segments) {
    if (state.brokenTables.has(tableId) || state.dropped.has(tableId)) continue;
    if (
      tieredRun(
        files.map((f) => f.rows),
        minSegments,
      ) !== null
    )
      out.push(tableId);
  }
  return out;
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

/**
 * Compacts one table: every live segment into one (`all`), or its tiered run of at least
 * `minSegments` (nothing when it has none by the time the job runs). A root span of its own
 * while tracing. Resolves whether it merged anything.
 */
export function compactTable(
  state: ShardState,
  tableId: number,
  which: { all: true } | { minSegments: number } = { all: true },
): Promise<boolean> {
  return inSpan(
    'shard.compaction',
    () => compactSegments(state, tableId, which),
    BACKGROUND_SPAN,
    () => ({
      'shoaldb.shard.id': state.config.shardId,
      'shoaldb.table.id': tableId,
    }),
  );
}

async function compactSegments(
  state: ShardState,
  tableId: number,
  which: { all: true } | { minSegments: number },
): Promise<boolean> {
  await state.checkpoint();
  const live = state.segments.get(tableId) ?? [];
  if (live.length < 2 || state.brokenTables.has(tableId) || state.dropped.has(tableId)) return false;
  const run =
    'all' in which
      ? { from: 0, to: live.length }
      : tieredRun(
          live.map((f) => f.rows),
          which.minSegments,
        );
  if (run === null) return false;
  const inputs = live.slice(run.from, run.to);
  // Tombstones may still hide rows of older segments unless the oldest is among the inputs.
  const tombstones = run.from === 0 ? 'drop' : 'keep';
  // Rows past the ttl are left out under the same condition: a left-out tombstone or newer
  // version could otherwise bring back a row of an older segment outside the run.
  const expiredBefore = run.from === 0 ? tableCutoff(state, tableId, Date.now()) : I64_MIN;
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
      // Past the page cache: these blocks are read once, from files about to retire, and
      // caching them pushed out the blocks queries come back for.
      sources: inputs.map((f) => new SegmentSource(f, specs, false)),
      mode: state.mergeModeOf(tableId),
      blockRows: state.config.segment.blockRows,
      tombstones,
      fromTs: expiredBefore,
      indexes: state.indexSpecs.get(tableId),
      checkpoint: () => state.checkpoint(),
    });
    if (state.dropped.has(tableId)) {
      unlinkQuietSync(abs);
      return false;
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
      await faultPoint('compaction.after-output');
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
    await faultPoint('compaction.before-retire');
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
    return true;
  } finally {
    for (const f of inputs) f.unpin();
  }
}
