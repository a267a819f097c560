/**
 * Appends records to the current WAL file and makes them durable. The store appends one group
 * commit at a time and then waits on `durable()` outside its write lock, so the next group is
 * appended while the previous fdatasync runs, and one fdatasync covers every group appended
 * before it started. Writes and syncs run off the event loop thread, so queries and decoding
 * keep running meanwhile.
 */
import fs from 'node:fs';
import { fsyncDirSync, writeAll } from '../fs-util.js';
import { walFilePath } from './wal-record.js';

interface SyncWaiter {
  /** Appends this waiter needs durable. */
  appends: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class WalWriter {
  private closed = false;
  /** Appends made, and how many of them an fdatasync has covered. */
  private appends = 0;
  private synced = 0;
  private syncing = false;
  /** Closed while an fdatasync was in flight: the fd is closed when it returns. */
  private closeWhenSynced = false;
  private readonly waiters: SyncWaiter[] = [];
  /** The first failed fdatasync: nothing appended to this file since can be trusted durable. */
  private failure: Error | null = null;
  /** False once a failed append could not be cut back: the file must not take more records. */
  intact = true;
  /** Called with each fdatasync's duration, ms. */
  onSync: ((ms: number) => void) | null = null;

  private constructor(
    readonly walDir: string,
    readonly fileNumber: number,
    private readonly fd: number,
    /** Bytes in the file so far. */
    public bytes: number,
  ) {}

  /**
   * Creates WAL file `fileNumber` (it must not exist). With `durable`, the directory is fsynced
   * so the new file itself survives a crash.
   */
  static create(walDir: string, fileNumber: number, durable: boolean): WalWriter {
    const fd = fs.openSync(walFilePath(walDir, fileNumber), 'wx');
    if (durable) fsyncDirSync(walDir);
    return new WalWriter(walDir, fileNumber, fd, 0);
  }

  /**
   * Appends framed records with one write. On failure (a full disk) the file is cut back to where
   * it was so a half-written record cannot hide later ones, and the next append may follow; when
   * even that fails `intact` turns false and the caller must rotate to a fresh file.
   */
  async append(records: Uint8Array): Promise<void> {
    const before = this.bytes;
    try {
      await writeAll(this.fd, records, before);
      this.bytes += records.length;
      this.appends++;
    } catch (err) {
      try {
        fs.ftruncateSync(this.fd, before);
      } catch {
        // The rotation that follows leaves this file behind as it is; replay cuts any torn tail.
        this.intact = false;
      }
      throw err;
    }
  }

  /**
   * Resolves once every record appended so far is durable: joins the fdatasync that will start
   * next (one already running may have begun before the last append). Rejects, for this and
   * every later call, once an fdatasync of this file failed.
   */
  durable(): Promise<void> {
    const appends = this.appends;
    if (appends <= this.synced) return Promise.resolve();
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiters.push({ appends, resolve, reject });
      this.startSync();
    });
  }

  private startSync(): void {
    if (this.syncing || this.closed || this.waiters.length === 0) return;
    this.syncing = true;
    const covers = this.appends;
    const started = performance.now();
    fs.fdatasync(this.fd, (err) => {
      this.syncing = false;
      this.onSync?.(performance.now() - started);
      if (err) this.fail(err);
      else this.settle(covers);
      if (this.closeWhenSynced) fs.closeSync(this.fd);
      else this.startSync();
    });
  }

  /** Resolves the waiters whose appends are covered. */
  private settle(covers: number): void {
    this.synced = Math.max(this.synced, covers);
    let kept = 0;
    for (const w of this.waiters) {
      if (w.appends <= this.synced) w.resolve();
      else this.waiters[kept++] = w;
    }
    this.waiters.length = kept;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
  }

  /**
   * Closes the file, after an fdatasync when `durable` (rotation in `none` sync mode skips it: it
   * would block the thread on the page cache the mode chose not to wait for).
   */
  close(durable = true): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (durable && this.failure === null) {
        try {
          fs.fdatasyncSync(this.fd);
          this.settle(this.appends);
        } catch (err) {
          this.fail(err as Error);
          throw err;
        }
      }
    } finally {
      // Waiters left (a non-durable close) have nothing more coming.
      if (this.waiters.length > 0)
        this.fail(new Error(`WAL file ${this.fileNumber} closed before its records were synced`));
      if (this.syncing) this.closeWhenSynced = true;
      else fs.closeSync(this.fd);
    }
  }
}
