/**
 * Everything a shard holds in memory, shared by the store facade and the modules that do the work
 * (recovery, flush, compaction, scan, drop). The store owns the concurrency rules; this class only
 * holds state and the helpers that keep it and the manifest consistent.
 *
 * Invariants:
 * - `segments.get(t)` lists the open files of table t's live segments in manifest order (oldest
 *   data first), except files of `brokenTables` that could not be opened.
 * - Merge precedence, oldest to newest: segments, then `frozen` (oldest first), then `active`.
 * - Every WAL record not yet in a segment lives in a WAL file numbered above
 *   `manifest.walFlushedFile`, and its rows are in `frozen` or `active`.
 */

import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { MergeMode } from '../shared/codec/write-batch.js';
import type { SegmentIndexSpec } from '../shared/column-index.js';
import type { ShardConfig } from '../shared/config.js';
import { DurationHistogram } from '../shared/duration-histogram.js';
import { emptyRecovery, type ShardStats, type TableRetention, zeroShardCounters } from '../shared/messages.js';
import { TagFilter } from '../shared/tag-filter.js';
import { KeyRefs } from './key-refs.js';
import { emptyManifest, type Manifest, writeManifest } from './manifest.js';
import { Memtable } from './memtable/memtable.js';
import type { SegmentFile } from './segment/segment-reader.js';
import type { WalWriter } from './wal/wal-writer.js';

/** Thrown at a checkpoint of a background job once the store is closing; not an error to log. */
export class ClosingError extends Error {
  override name = 'ClosingError';
  constructor() {
    super('shard store is closing');
  }
}

export class ShardState {
  readonly dir: string;
  readonly walDir: string;
  readonly segDir: string;
  manifest: Manifest = emptyManifest();
  readonly segments = new Map<number, SegmentFile[]>();
  /** Tables with a live segment that could not be opened, with the reason; scans of them fail. */
  readonly brokenTables = new Map<number, string>();
  readonly mergeModes = new Map<number, MergeMode>();
  readonly dropped = new Set<number>();
  active: Memtable;
  /** The filter of the series this shard holds, shared with the router (shared/tag-filter.ts); null in tests without one. */
  readonly tagFilter: TagFilter | null;
  readonly keyRefs: KeyRefs;
  readonly frozen: Memtable[] = [];
  wal!: WalWriter;
  walFiles = 0;
  nextSegmentId = 1;
  closing = false;
  readonly counters = zeroShardCounters();
  /** Indexed columns per table, as the router last sent them (op `indexes`); not persisted. */
  indexSpecs = new Map<number, SegmentIndexSpec[]>();
  /** Tables with a ttl, as the router last sent them (op `retention`); not persisted. */
  retention = new Map<number, TableRetention>();
  /** Tables with `skip_wal = 'true'`, as the router last sent them (op `skip-wal`); not persisted. */
  skipWal = new Set<number>();
  readonly timings = {
    walFsync: new DurationHistogram(),
    flush: new DurationHistogram(),
    compaction: new DurationHistogram(),
  };
  recovery: ShardStats['recovery'] = emptyRecovery();

  constructor(
    readonly config: ShardConfig,
    readonly log: Logger,
  ) {
    this.dir = config.dir;
    this.tagFilter = config.tagFilter ? new TagFilter(config.tagFilter) : null;
    this.active = new Memtable(this.tagFilter, this.counters);
    this.keyRefs = new KeyRefs(config.keyRefsPerThread);
    this.walDir = path.join(config.dir, 'wal');
    this.segDir = path.join(config.dir, 'seg');
  }

  /** Estimated bytes of every memtable: the active one and those awaiting flush. */
  memtableBytes(): number {
    let bytes = this.active.bytes;
    for (const m of this.frozen) bytes += m.bytes;
    return bytes;
  }

  /** Absolute and shard-relative path of a segment file. */
  segmentPath(tableId: number, segmentId: number): { abs: string; rel: string } {
    const rel = `seg/${tableId}/${segmentId}.seg`;
    return { abs: path.join(this.dir, rel), rel };
  }

  /** The merge mode a table's duplicates are merged with: the latest one written, else the manifest's. */
  mergeModeOf(tableId: number): MergeMode {
    return this.mergeModes.get(tableId) ?? this.manifest.tables[String(tableId)]?.mergeMode ?? 'last_row';
  }

  /** Persists `next` as the manifest, then adopts it. */
  async saveManifest(next: Manifest): Promise<void> {
    await writeManifest(this.dir, next);
    this.manifest = next;
  }

  /** Lets the event loop turn; throws ClosingError once the store is closing. */
  async checkpoint(): Promise<void> {
    if (this.closing) throw new ClosingError();
    await nextTurn();
    if (this.closing) throw new ClosingError();
  }

  /**
   * Whether rows written to a table are left out of the memtable: it is dropped, or its ttl is
   * `instant` (GreptimeDB discards those rows on insert). Used by writes and by WAL replay.
   */
  keepsNoRows(tableId: number): boolean {
    return this.dropped.has(tableId) || this.retention.get(tableId)?.ttlMs === 0;
  }

  /** Every open segment file. */
  allSegments(): SegmentFile[] {
    return [...this.segments.values()].flat();
  }
}
