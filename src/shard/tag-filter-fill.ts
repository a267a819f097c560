/**
 * Completes a shard's tag filter after it opens (src/shared/tag-filter.ts). Series of the memtables,
 * the WAL replay's included, add themselves as they arrive; this adds the keys of every segment the
 * shard opened with, then marks the filter complete. That snapshot is enough: a segment written
 * later holds a flushed memtable's series, which added themselves, or a compaction's, which come
 * from segments of the snapshot or later ones. Keys are in memory (each segment's footer), so this
 * only hashes; it yields the thread every few milliseconds, and a large store's router asks every
 * shard until it is done.
 */
import type { ShardState } from './state.js';

/** Longest stretch of hashing between turns of the shard's event loop. */
const TURN_MS = 5;

export async function fillTagFilter(state: ShardState): Promise<void> {
  const filter = state.tagFilter;
  // A table whose segments could not be opened has series no one can list: its scans fail, and
  // a shard left out of a query could not make it fail, so the filter stays incomplete.
  if (filter === null || state.brokenTables.size > 0) return;
  let turnEnd = performance.now() + TURN_MS;
  for (const segment of state.allSegments()) {
    const keys = segment.keys;
    for (let i = 0; i < keys.length; i++) {
      filter.addKey(segment.tableId, keys[i] as string);
      if ((i & 1023) === 1023 && performance.now() > turnEnd) {
        await state.checkpoint();
        turnEnd = performance.now() + TURN_MS;
      }
    }
  }
  filter.markComplete();
}
