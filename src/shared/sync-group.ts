/**
 * Group commit over one open file: callers wait for "the first N appends are durable", and one
 * fdatasync serves every caller whose appends were made before it started. The WAL writer uses it
 * for the appends it makes (src/shard/wal/wal-writer.ts); the router uses it on a descriptor of
 * its own for appends a shard has reported (src/router/wal-sync.ts), so that the fdatasync's
 * completion never waits for the shard's busy thread.
 *
 * fdatasync on Linux writes the file's dirty pages whichever descriptor asks, so a descriptor
 * opened read-only for syncing is as good as the writer's.
 */
import fs from 'node:fs';

interface SyncWaiter {
  /** Appends this waiter needs durable. */
  appends: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class SyncGroup {
  /** Appends made (or reported) so far: an fdatasync started now covers this many. */
  appended = 0;
  private synced = 0;
  private syncing = false;
  private readonly waiters: SyncWaiter[] = [];
  /** The first failed fdatasync: nothing appended to this file since can be trusted durable. */
  private failure: Error | null = null;
  /** Set by `stop`: run once no fdatasync is in flight, and start no more. */
  private whenStopped: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly fd: number,
    /** Called with each fdatasync's duration, ms (from its start to its completion's turn). */
    private readonly onSync: ((ms: number) => void) | null = null,
  ) {}

  get failed(): Error | null {
    return this.failure;
  }

  /** Waiters not yet settled. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Resolves once the first `appends` appends are durable: joins the fdatasync that starts next
   * (one already running may have begun before they were made). Rejects, for this and every later
   * call, once an fdatasync of this file failed.
   */
  durable(appends = this.appended): Promise<void> {
    if (appends <= this.synced) return Promise.resolve();
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.stopped) return Promise.reject(new Error('file closed before its appends were synced'));
    return new Promise((resolve, reject) => {
      this.waiters.push({ appends, resolve, reject });
      this.start();
    });
  }

  private start(): void {
    if (this.syncing || this.stopped || this.waiters.length === 0) return;
    this.syncing = true;
    const covers = this.appended;
    const started = performance.now();
    fs.fdatasync(this.fd, (err) => {
      this.syncing = false;
      this.onSync?.(performance.now() - started);
      if (err) this.fail(err);
      else this.settle(covers);
      if (this.whenStopped !== null) this.runStopped();
      else this.start();
    });
  }

  /** Marks the first `covers` appends durable (an fdatasync of the caller's own) and resolves their waiters. */
  settle(covers: number): void {
    this.synced = Math.max(this.synced, covers);
    let kept = 0;
    for (const w of this.waiters) {
      if (w.appends <= this.synced) w.resolve();
      else this.waiters[kept++] = w;
    }
    this.waiters.length = kept;
  }

  /** Fails every waiter, and every later call, with `err`. */
  fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
  }

  /**
   * Starts no more fdatasyncs and fails the waiters left; `then` (closing the descriptor) runs at
   * once, or when the fdatasync in flight returns.
   */
  stop(then: () => void, message = 'file closed before its appends were synced'): void {
    this.stopped = true;
    if (this.waiters.length > 0) this.fail(new Error(message));
    this.whenStopped = then;
    if (!this.syncing) this.runStopped();
  }

  private runStopped(): void {
    const then = this.whenStopped;
    this.whenStopped = null;
    then?.();
  }
}
