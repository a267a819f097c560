/**
 * The router's side of a shard's group commit: the shard answers a write once its records are
 * appended and applied (ShardStore.writeApplied), naming the WAL appends to cover, and the router
 * makes them durable with fdatasyncs on a descriptor of its own before acknowledging anything.
 *
 * Why here and not in the shard: a shard's thread also decodes other requests' bodies, 1.5-2.5 ms
 * at a stretch, and a completion it schedules waits for that. Measured under OpenTSDB load
 * (bench/RESULTS.md, 2026-11-28), the shard timed its fdatasyncs at 2.6 ms while the system call
 * took 1.1, and the next one could only start in the late completion. The router's loop is mostly
 * idle under ingest, so a completion here runs when it arrives.
 *
 * A file may be gone when first opened here: a WAL file is deleted only after a flush made its
 * rows durable in segments and the manifest, so its appends are then durable already.
 */
import fs from 'node:fs';
import { DurationHistogram, type HistogramSnapshot } from '../shared/duration-histogram.js';
import { StorageUnavailable } from '../shared/errors.js';
import type { WalSyncTicket } from '../shared/messages.js';
import { SyncGroup } from '../shared/sync-group.js';

interface OpenFile {
  fd: number;
  syncs: SyncGroup;
}

export class WalSync {
  /** Open WAL files of the shard by number; older ones close once nothing waits on them. */
  private readonly files = new Map<number, OpenFile>();
  /** Files whose fdatasync failed and that the shard was told to leave. */
  private readonly failed = new Set<number>();
  private newest = -1;
  private readonly timing = new DurationHistogram();
  private syncCount = 0;

  constructor(
    private readonly shardId: number,
    /** Tells the shard to stop writing to a file whose fdatasync failed. */
    private readonly onFailed: (file: number) => void,
  ) {}

  /** Resolves once the ticket's appends are durable; rejects when an fdatasync of the file failed. */
  async durable(ticket: WalSyncTicket): Promise<void> {
    const file = this.fileOf(ticket);
    if (file === null) return;
    const { syncs } = file;
    if (ticket.appends > syncs.appended) syncs.appended = ticket.appends;
    try {
      await syncs.durable(ticket.appends);
    } catch (err) {
      if (!this.failed.has(ticket.file)) {
        this.failed.add(ticket.file);
        this.onFailed(ticket.file);
      }
      throw new StorageUnavailable(`WAL write failed in shard ${this.shardId}: ${(err as Error).message}`);
    } finally {
      this.closeIdleOlder();
    }
  }

  /** The fdatasyncs made here, for the shard's `/metrics` figures. */
  stats(): { syncs: number; timing: HistogramSnapshot } {
    return { syncs: this.syncCount, timing: this.timing.snapshot() };
  }

  /** Closes every file (server shutdown); waiters left fail. */
  close(): void {
    for (const n of [...this.files.keys()]) this.closeFile(n);
  }

  private closeFile(n: number): void {
    const f = this.files.get(n);
    if (f === undefined) return;
    this.files.delete(n);
    f.syncs.stop(() => {
      try {
        fs.closeSync(f.fd);
      } catch {
        // A descriptor opened only to sync: failing to close it loses nothing.
      }
    });
  }

  /** The open file of a ticket, opened on first sight; null when the file is gone (see above). */
  private fileOf(ticket: WalSyncTicket): OpenFile | null {
    let file = this.files.get(ticket.file);
    if (file !== undefined) return file;
    let fd: number;
    try {
      fd = fs.openSync(ticket.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new StorageUnavailable(`WAL write failed in shard ${this.shardId}: ${(err as Error).message}`);
    }
    const syncs = new SyncGroup(fd, (ms) => {
      this.syncCount++;
      this.timing.observe(ms / 1000);
    });
    if (this.failed.has(ticket.file)) syncs.fail(new Error(`an earlier fdatasync of WAL file ${ticket.file} failed`));
    file = { fd, syncs };
    this.files.set(ticket.file, file);
    this.newest = Math.max(this.newest, ticket.file);
    return file;
  }

  private closeIdleOlder(): void {
    for (const [n, f] of this.files) if (n < this.newest && f.syncs.waiting === 0) this.closeFile(n);
  }
}
