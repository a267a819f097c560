/**
 * ShardStore: the storage engine of one shard (one worker thread, one directory). See README.md in
 * this folder for the module map and the write and read paths.
 *
 * Concurrency, all on one thread:
 * - `writeLock` serializes WAL appends with memtable freezes and WAL rotations, so a frozen
 *   memtable always holds exactly the rows of the WAL files numbered up to its `walFileLast`.
 * - `jobs` serializes everything that edits the manifest: flush, compaction, drop. Only one
 *   flush runs at a time; background jobs yield to the event loop between blocks.
 * - Scans run between awaits and see a consistent snapshot (see scan.ts).
 */

import assert from 'node:assert';
import type { Logger } from 'pino';
import { encodeKeyDefinitions, type WriteBatch } from '../shared/codec/write-batch.js';
import type { SegmentIndexSpec } from '../shared/column-index.js';
import type { ShardConfig } from '../shared/config.js';
import { DbError, StorageFull, StorageUnavailable } from '../shared/errors.js';
import type { AppliedWrite, ShardStats, TableRetention, WalSyncTicket } from '../shared/messages.js';
import { countRejection, rejectionCounts } from '../shared/rejections.js';
import type { ScanChunk, ScanRequest, ScanSource } from '../shared/scan.js';
import { endSpan, startSpan } from '../shared/tracing/active-tracer.js';
import { compactTable, tablesToCompact, tablesWithTieredRun } from './compaction.js';
import { dropDurably, dropInMemory } from './drop.js';
import { faultPoint } from './fault-points.js';
import { flushFrozen } from './flush.js';
import { Memtable } from './memtable/memtable.js';
import { recover } from './recovery.js';
import { retireExpiredStep, rowAdmitter } from './retention.js';
import { collectRetiredMemory } from './retired-memory.js';
import { scanTable } from './scan.js';
import { pageCacheStats, setPageCacheBytes } from './segment/page-cache.js';
import type { SegmentFile } from './segment/segment-reader.js';
import { SerialQueue } from './serial-queue.js';
import { needsWal } from './skip-wal.js';
import { ClosingError, ShardState } from './state.js';
import { fillTagFilter } from './tag-filter-fill.js';
import { encodeRecords } from './wal/wal-record.js';
import { WalWriter } from './wal/wal-writer.js';
import { decodePayload } from './write-batch-check.js';

/** After a failed background flush, the next attempt waits at least this long. */
const FLUSH_RETRY_DELAY_MS = 1000;
/** The longest a write waits for a flush before it is let through to the memtable bound (stallForFlush). */
const WRITE_STALL_MS_MAX = 2000;

const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);

/** A full disk (or quota) as opposed to any other failure of the file system. */
export function isDiskFull(err: unknown): boolean {
  return DISK_FULL_CODES.has((err as NodeJS.ErrnoException)?.code ?? '');
}

function storageError(what: string, err: unknown): DbError {
  if (err instanceof DbError) return err;
  if (isDiskFull(err)) return new StorageFull(`${what}: disk full: ${(err as Error).message}`);
  return new StorageUnavailable(`${what}: ${(err as Error).message}`);
}

export class ShardStore implements ScanSource {
  private readonly writeLock = new SerialQueue();
  private readonly jobs = new SerialQueue();
  /** The background flush queued or under way (maybeFlush), which stalled writes wait for. */
  private flushing: Promise<void> | null = null;
  /** Tables with a background compaction queued and not yet started. */
  private readonly compactionsQueued = new Set<number>();
  private flushRetryAtMs = 0;
  /** A retention step is queued and not yet started. */
  private retentionQueued = false;
  private retentionTimer: NodeJS.Timeout | null = null;
  /** Why the last background flush failed; null once one succeeds. */
  private flushFailure: unknown = null;
  private closed = false;
  /** close() has begun: writes stay refused while it lifts `closing` to flush unlogged rows. */
  private stopping = false;

  private constructor(private readonly state: ShardState) {}

  /**
   * Opens (creating if needed) and recovers the shard directory `config.dir`. `retention` is the
   * tables' ttl as the catalog has it, known before the WAL replay so that `instant` tables get
   * no rows back; `skipWal` the ids of the tables whose writes are not logged.
   */
  static async open(
    config: ShardConfig,
    log: Logger,
    retention: readonly TableRetention[] = [],
    skipWal: readonly number[] = [],
  ): Promise<ShardStore> {
    assert(config.segment.blockRows > 0 && config.memtable.flushBytes > 0 && config.wal.segmentBytes > 0);
    const state = new ShardState(config, log);
    setPageCacheBytes(config.segment.pageCacheBytes ?? 0);
    state.retention = new Map(retention.map((t) => [t.tableId, t]));
    state.skipWal = new Set(skipWal);
    await faultPoint('recovery.before-open');
    try {
      recover(state);
    } catch (err) {
      throw storageError(`cannot open shard ${config.shardId} at ${config.dir}`, err);
    }
    const store = new ShardStore(state);
    await store.writeLock.run(() => store.maybeFlush());
    store.startRetentionTimer();
    // Runs until its first pause now: a store with few segments answers `open` with it complete.
    fillTagFilter(state).catch((err: unknown) => {
      if (!(err instanceof ClosingError)) log.error({ err }, 'tag filter fill failed');
    });
    return store;
  }

  /**
   * Group commit: frames every payload as a WAL record, appends them with one write, applies them
   * to the memtable in order and (with `wal.syncMode = fsync`) resolves once an fdatasync covers
   * them. The wait for the fdatasync is outside the write lock: the next group is appended (and
   * shares the next fdatasync) while this one's runs. Rows are readable from the memtable before
   * they are durable, as in any store that acknowledges after a group commit; what is
   * acknowledged is durable. Payloads are decoded and checked first; a malformed one fails the
   * call before anything is written. Returns the indices of the payloads refused because they
   * name series keys by ids this shard no longer knows (key-refs.ts): nothing of those is
   * written, the others are.
   *
   * A payload whose tables all skip the WAL (skip-wal.ts) is applied without a record; a group of
   * only such payloads resolves without waiting for any fdatasync. One call answers for its whole
   * group, so such a payload sharing a group with logged ones is answered after their fdatasync.
   */
  async write(payloads: Uint8Array[]): Promise<number[]> {
    const applied = await this.applyWrite(payloads, false);
    if (applied.durable === null) return applied.refused;
    const span = startSpan('wal.fsync');
    try {
      await applied.durable;
      endSpan(span);
    } catch (err) {
      endSpan(span, err);
      void this.leaveFailedWal(applied.wal?.fileNumber ?? -1);
      throw storageError(`WAL write failed in shard ${this.state.config.shardId}`, err);
    }
    return applied.refused;
  }

  /**
   * `write`, answered once applied, without waiting for the fdatasync: `sync` names the WAL
   * appends the caller must see made durable before acknowledging anything of the call (null:
   * nothing to wait for: no payload logged, or `wal.syncMode = none`). The router syncs them on a
   * descriptor of its own (src/router/wal-sync.ts), so the fdatasync's completion does not wait
   * for this thread, busy decoding other requests' bodies; it reports a failed fdatasync with
   * `walSyncFailed`.
   */
  async writeApplied(payloads: Uint8Array[]): Promise<AppliedWrite> {
    const applied = await this.applyWrite(payloads, true);
    return { refused: applied.refused, sync: applied.sync };
  }

  /** The write lock's part of a write: append, apply, and what durability is left to wait for. */
  private async applyWrite(
    payloads: Uint8Array[],
    callerSyncs: boolean,
  ): Promise<{
    refused: number[];
    wal: WalWriter | null;
    durable: Promise<void> | null;
    sync: WalSyncTicket | null;
  }> {
    assert(!this.closed, 'write after close');
    const batches = payloads.map(decodePayload);
    if (batches.length === 0) return { refused: [], wal: null, durable: null, sync: null };
    await this.stallForFlush();
    return this.writeLock.run(async () => {
      const state = this.state;
      if (state.closing || this.stopping) throw new StorageUnavailable(`shard ${state.config.shardId} is closing`);
      this.checkMemtableRoom();
      // null: every payload is logged (no table skips the WAL), the usual case, with nothing to sort out.
      const logged = state.skipWal.size === 0 ? null : batches.map((b) => needsWal(b, state.skipWal));
      const { refused, definitions } = state.keyRefs.resolve(batches, state.wal.fileNumber, logged ?? undefined);
      state.counters.keyRefsRefused += refused.length;
      const keep = <T>(items: T[]): T[] =>
        refused.length === 0 ? items : items.filter((_, i) => !refused.includes(i));
      const keptBatches = keep(batches);
      if (keptBatches.length === 0) return { refused, wal: null, durable: null, sync: null };
      const keptLogged = logged === null ? null : keep(logged);
      const keptPayloads = keep(payloads);
      const toLog = keptLogged === null ? keptPayloads : keptPayloads.filter((_, k) => keptLogged[k]);
      // Definitions come only from logged batches (key-refs.ts), so they have a record to precede.
      assert(definitions === null || toLog.length > 0);
      const wal = state.wal;
      let durable: Promise<void> | null = null;
      let sync: WalSyncTicket | null = null;
      if (toLog.length > 0) {
        await this.append(encodeRecords(definitions ? [encodeKeyDefinitions(definitions), ...toLog] : toLog));
        // Taken before afterWrite, which may rotate: closing the file syncs it for its waiters.
        if (state.config.wal.syncMode === 'fsync') {
          if (callerSyncs) sync = { file: wal.fileNumber, path: wal.path, appends: wal.appendCount };
          else durable = this.durableOf(wal);
        }
      }
      this.apply(keptBatches, keptLogged);
      this.afterWrite();
      return { refused, wal, durable, sync };
    });
  }

  /** Appends framed records to the current WAL file. Under writeLock. */
  private async append(records: Uint8Array): Promise<void> {
    const state = this.state;
    const wal = state.wal;
    // Children of the shard.write span when tracing; null (and no allocation) otherwise.
    const span = startSpan('wal.append');
    try {
      span?.setAttribute('wal.bytes', records.length);
      wal.append(records);
      await faultPoint('wal.after-append');
      endSpan(span);
      state.counters.walBytesWritten += records.length;
    } catch (err) {
      endSpan(span, err);
      state.keyRefs.forgetWalDefinitions();
      // Rotating on every refused write of a full disk would leave a WAL file per request.
      if (!wal.intact) this.rotateWalQuietly();
      if (isDiskFull(err)) countRejection('disk_full');
      throw storageError(`WAL write failed in shard ${state.config.shardId} (${state.walDir})`, err);
    }
  }

  /** `wal.durable()`, its fdatasyncs timed and counted. */
  private durableOf(wal: WalWriter): Promise<void> {
    if (wal.onSync === null) {
      const state = this.state;
      wal.onSync = (ms) => {
        state.timings.walFsync.observe(ms / 1000);
        state.counters.walFsyncs++;
      };
    }
    return wal.durable();
  }

  /**
   * After an fdatasync of WAL file `fileNumber` failed (here, or in the router for a
   * `writeApplied`), no later record of that file can be trusted durable: the next write starts a
   * new file, with its key definitions written again.
   */
  async leaveFailedWal(fileNumber: number): Promise<void> {
    await this.writeLock.run(() => {
      if (this.state.wal.fileNumber !== fileNumber) return;
      this.state.keyRefs.forgetWalDefinitions();
      this.rotateWalQuietly();
    });
  }

  /**
   * Write stall: while the memtables hold more than half of `memtable.reject_size` (and not more
   * than all of it) and a flush is under way, a write waits for the flush (at most
   * WRITE_STALL_MS_MAX) before taking the lock, so writers that outrun the flushes slow to their
   * pace instead of reaching the bound and being refused (checkMemtableRoom refuses past it).
   * Outside the write lock: the flush and the freeze after it need that lock.
   */
  private async stallForFlush(): Promise<void> {
    const state = this.state;
    const limit = state.config.memtable.rejectBytes;
    if (limit <= 0) return;
    const deadline = Date.now() + WRITE_STALL_MS_MAX;
    for (;;) {
      const bytes = state.memtableBytes();
      // Past the bound itself a write is refused at once (checkMemtableRoom), as before.
      if (this.flushing === null || bytes <= limit / 2 || bytes > limit) return;
      const left = deadline - Date.now();
      if (left <= 0) return;
      state.counters.writeStalls++;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.flushing.catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, left);
        }),
      ]);
      clearTimeout(timer);
    }
  }

  /**
   * `memtable.reject_size`: while the memtables (the active one and those awaiting flush) hold
   * more, writes are refused before they reach the WAL, so memory stays bounded when flushes fall
   * behind; the flush under way (started here if none is) makes room. Under writeLock.
   */
  private checkMemtableRoom(): void {
    const state = this.state;
    const limit = state.config.memtable.rejectBytes;
    if (limit <= 0) return;
    const bytes = state.memtableBytes();
    if (bytes <= limit) return;
    this.maybeFlush();
    const diskFull = isDiskFull(this.flushFailure);
    countRejection(diskFull ? 'disk_full' : 'memtable');
    if (diskFull) {
      throw storageError(
        `shard ${state.config.shardId} memtables are full and cannot be flushed to ${state.dir}`,
        this.flushFailure,
      );
    }
    throw new StorageUnavailable(
      `shard ${state.config.shardId} memtables hold ${bytes} bytes, over memtable.reject_size (${limit}); writes resume once a flush completes`,
      { retryAfterSeconds: 1 },
    );
  }

  /** Applies batches to the active memtable; `logged[i]` false: batch i has no WAL record (null: all have). */
  private apply(batches: WriteBatch[], logged: readonly boolean[] | null): void {
    const state = this.state;
    // Rows of tables that keep none (dropped, ttl `instant`) and rows already past a ttl go to
    // the WAL (which is all a write awaits) but never reach the memtable.
    const admit = rowAdmitter(state, Date.now());
    batches.forEach((batch, i) => {
      for (const t of batch.tables) if (!state.keepsNoRows(t.tableId)) state.mergeModes.set(t.tableId, t.mergeMode);
      const rows = state.active.apply(batch, admit);
      state.counters.rowsWritten += rows;
      if (rows > 0 && logged !== null && !logged[i]) state.active.unlogged = true;
    });
  }

  /** Scans one table; see scan.ts. The snapshot is taken when iteration starts. */
  scan(request: ScanRequest): Iterable<ScanChunk> {
    assert(!this.closed, 'scan after close');
    return scanTable(this.state, request);
  }

  /** Freezes the active memtable and resolves once it (and any older frozen one) is in segments. */
  async flush(): Promise<void> {
    assert(!this.closed, 'flush after close');
    await this.writeLock.run(() => this.freeze());
    try {
      await this.jobs.run(() => flushFrozen(this.state), 'urgent');
    } catch (err) {
      throw storageError(`flush failed in shard ${this.state.config.shardId}`, err);
    }
    if (collectRetiredMemory()) this.state.counters.memoryCollections++;
    this.scheduleCompactions(this.state.config.segment.compactionTrigger);
  }

  /** Compacts every table with more than one segment; resolves when done. */
  async compact(): Promise<void> {
    assert(!this.closed, 'compact after close');
    try {
      await this.jobs.run(async () => {
        for (const tableId of tablesToCompact(this.state, 2)) await compactTable(this.state, tableId);
      });
    } catch (err) {
      throw storageError(`compaction failed in shard ${this.state.config.shardId}`, err);
    }
  }

  /** Drops tables: gone from scans at once, gone from disk (and after restart) when this resolves. */
  async dropTables(tableIds: number[]): Promise<void> {
    assert(!this.closed, 'dropTables after close');
    dropInMemory(this.state, tableIds);
    try {
      await this.jobs.run(() => dropDurably(this.state, tableIds));
    } catch (err) {
      throw storageError(`drop failed in shard ${this.state.config.shardId}`, err);
    }
  }

  /** Replaces the indexed columns of every table; later flushes and compactions build them. */
  setIndexes(tables: ReadonlyArray<{ tableId: number; columns: SegmentIndexSpec[] }>): void {
    this.state.indexSpecs = new Map(tables.map((t) => [t.tableId, t.columns]));
  }

  /**
   * Replaces every table's retention (tables not listed keep their rows) and runs a retention
   * pass at once (unless passes are off), so a shorter ttl takes effect without waiting for the timer.
   */
  setRetention(tables: readonly TableRetention[]): void {
    this.state.retention = new Map(tables.map((t) => [t.tableId, t]));
    // An interval of 0 turns the pass off, also the one a ttl change would start.
    if (this.state.config.retentionCheckIntervalMs > 0) this.scheduleRetention();
  }

  /**
   * Replaces the tables whose writes skip the WAL. Takes effect from the next write; rows already
   * in the memtable stay as they were written (logged or not) until flushed.
   */
  setSkipWal(tableIds: readonly number[]): void {
    this.state.skipWal = new Set(tableIds);
  }

  /** Runs a retention pass every `storage.retention_check_interval` (0: never). */
  private startRetentionTimer(): void {
    const intervalMs = this.state.config.retentionCheckIntervalMs;
    if (!(intervalMs > 0)) return;
    this.retentionTimer = setInterval(() => this.scheduleRetention(), intervalMs);
    // The timer must not keep the thread alive on its own.
    this.retentionTimer.unref();
  }

  /**
   * Queues one retention step (retention.ts) behind the jobs already queued; a step that retired
   * something queues the next, so a long pass is many short jobs with others between them.
   */
  private scheduleRetention(): void {
    const state = this.state;
    if (state.closing || this.retentionQueued || state.retention.size === 0) return;
    this.retentionQueued = true;
    this.jobs
      .run(() => {
        this.retentionQueued = false;
        return retireExpiredStep(state, Date.now());
      })
      .then(
        (retired) => {
          if (retired) this.scheduleRetention();
        },
        (err: unknown) => {
          this.retentionQueued = false;
          if (!(err instanceof ClosingError))
            state.log.error({ err }, 'retention step failed; retried by the next pass');
        },
      );
  }

  /** The storage's figures; the worker adds its decoders' (`seriesCached`) and its heap's. */
  stats(): Omit<ShardStats, 'seriesCached' | 'heap'> {
    const s = this.state;
    let memtableRows = s.active.rows;
    for (const m of s.frozen) memtableRows += m.rows;
    const segments = s.allSegments();
    return {
      shardId: s.config.shardId,
      ready: !this.closed,
      // Counted by the worker, which runs the queries; the store reports only storage figures.
      queriesCancelled: 0,
      ...s.counters,
      timings: {
        walFsync: s.timings.walFsync.snapshot(),
        flush: s.timings.flush.snapshot(),
        compaction: s.timings.compaction.snapshot(),
      },
      rejections: rejectionCounts(),
      walFiles: s.walFiles,
      memtableBytes: s.memtableBytes(),
      memtableRows,
      keyRefs: s.keyRefs.size,
      segmentCount: segments.length,
      segmentBytes: segments.reduce((sum, f) => sum + f.bytes, 0),
      pageCache: pageCacheStats(),
      tableSegmentBytes: bytesByTable(segments),
      recovery: { ...s.recovery, cuts: [...s.recovery.cuts], quarantined: [...s.recovery.quarantined] },
    };
  }

  /**
   * Waits for the write in flight, stops background jobs, fsyncs and closes every file. Rows that
   * skipped the WAL are flushed first, so a graceful stop keeps them (only a crash loses them);
   * a shard without such rows closes as fast as before, leaving its memtable to the WAL replay.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    const state = this.state;
    state.closing = true;
    this.stopping = true;
    if (this.retentionTimer !== null) clearInterval(this.retentionTimer);
    await this.writeLock.run(() => {});
    await this.flushUnlogged();
    await this.jobs.run(() => {});
    this.closed = true;
    state.wal.close();
    for (const f of state.allSegments()) f.close();
  }

  /**
   * Part of close(), after the last write: flushes every memtable if one holds rows without a WAL
   * record. The jobs queued before it stop at their next checkpoint (`closing`); this one runs
   * with `closing` lifted, writes staying refused by `stopping`. A failure is logged: those rows
   * are then lost, as in a crash, but the close goes on.
   */
  private async flushUnlogged(): Promise<void> {
    const state = this.state;
    if (!state.active.unlogged && !state.frozen.some((m) => m.unlogged)) return;
    try {
      await this.writeLock.run(() => this.freeze());
      await this.jobs.run(async () => {
        state.closing = false;
        try {
          await flushFrozen(state);
        } finally {
          state.closing = true;
        }
      });
    } catch (err) {
      state.log.error({ err }, 'flush at close failed: rows of skip_wal tables not yet flushed are lost');
    }
  }

  /**
   * Moves the active memtable to the frozen list and starts a new WAL file. Under writeLock. The
   * new WAL file is created first: if that fails nothing has changed, and if it works the frozen
   * memtable's rows are exactly those of the WAL files up to `walFileLast`.
   */
  private freeze(): void {
    const state = this.state;
    if (state.active.empty) return;
    const next = this.createNextWal();
    const m = state.active;
    m.walFileLast = state.wal.fileNumber;
    state.frozen.push(m);
    state.active = new Memtable(state.tagFilter, state.counters);
    this.switchWal(next);
  }

  /** Starts the next WAL file. Under writeLock. */
  private rotateWal(): void {
    this.switchWal(this.createNextWal());
  }

  private createNextWal(): WalWriter {
    const state = this.state;
    return WalWriter.create(state.walDir, state.wal.fileNumber + 1, state.config.wal.syncMode === 'fsync');
  }

  private switchWal(next: WalWriter): void {
    const state = this.state;
    const old = state.wal;
    state.wal = next;
    state.walFiles++;
    try {
      old.close(state.config.wal.syncMode === 'fsync');
    } catch (err) {
      state.log.error({ err, file: old.fileNumber }, 'closing the previous WAL file failed');
    }
  }

  private rotateWalQuietly(): void {
    try {
      this.rotateWal();
    } catch (err) {
      this.state.log.error({ err }, 'cannot rotate the WAL');
    }
  }

  /** After a write is applied: rotation and flush triggers must not fail the (durable) write. */
  private afterWrite(): void {
    const state = this.state;
    try {
      if (state.wal.bytes >= state.config.wal.segmentBytes) this.rotateWal();
      this.maybeFlush();
    } catch (err) {
      state.log.error({ err }, 'WAL rotation or memtable freeze failed; retried on the next write');
    }
  }

  /**
   * Starts a background flush when the active memtable is full (freezing it) or when an earlier
   * flush failed and its retry delay has passed. Under writeLock.
   */
  private maybeFlush(): void {
    const state = this.state;
    if (state.closing || this.flushing !== null) return;
    if (state.frozen.length === 0) {
      if (state.active.bytes < state.config.memtable.flushBytes) return;
      this.freeze();
    } else if (Date.now() < this.flushRetryAtMs) {
      return;
    }
    const job = this.jobs.run(() => flushFrozen(state), 'urgent');
    this.flushing = job;
    job.then(
      () => {
        this.flushing = null;
        this.flushFailure = null;
        if (collectRetiredMemory()) this.state.counters.memoryCollections++;
        this.scheduleCompactions(state.config.segment.compactionTrigger);
        if (state.active.bytes >= state.config.memtable.flushBytes) void this.writeLock.run(() => this.maybeFlush());
      },
      (err: unknown) => {
        this.flushing = null;
        if (err instanceof ClosingError) return;
        this.flushFailure = err;
        this.flushRetryAtMs = Date.now() + FLUSH_RETRY_DELAY_MS;
        state.log.error({ err }, 'background flush failed; the memtable stays readable and is retried');
      },
    );
  }

  /**
   * Queues a background compaction of each table with a tiered run of at least `minSegments`
   * segments (compaction.ts), at most one queued per table; a table is looked at again after each
   * of its compactions, since a merged run can complete the next tier's.
   */
  private scheduleCompactions(minSegments: number): void {
    const state = this.state;
    const trigger = Math.max(2, minSegments);
    for (const tableId of tablesWithTieredRun(state, trigger)) {
      if (this.compactionsQueued.has(tableId)) continue;
      this.compactionsQueued.add(tableId);
      this.jobs
        .run(() => {
          this.compactionsQueued.delete(tableId);
          return compactTable(state, tableId, { minSegments: trigger });
        }, 'deferrable')
        .then(
          (merged) => {
            if (merged) this.scheduleCompactions(minSegments);
          },
          (err: unknown) => {
            if (!(err instanceof ClosingError)) state.log.error({ err, tableId }, 'background compaction failed');
          },
        );
    }
  }
}

/** Live segment bytes per table id (what a table takes on disk in this shard, WAL aside). */
function bytesByTable(segments: readonly SegmentFile[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of segments) out[f.tableId] = (out[f.tableId] ?? 0) + f.bytes;
  return out;
}
