/**
 * Appends records to the current WAL file and makes them durable. The store appends one group
 * commit at a time and then waits on `durable()` outside its write lock, so the next group is
 * appended while the previous fdatasync runs, and one fdatasync covers every group appended
 * before it started (src/shared/sync-group.ts). The fdatasync runs off the thread, so queries and
 * decoding keep running meanwhile. A store whose caller syncs (the router, see
 * src/router/wal-sync.ts) reports `appendCount` after its append instead of waiting here.
 */
import fs from 'node:fs';
import { SyncGroup } from '../../shared/sync-group.js';
import { fsyncDirSync } from '../fs-util.js';
import { walFilePath } from './wal-record.js';

export class WalWriter {
  private closed = false;
  private readonly syncs: SyncGroup;
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
  ) {
    this.syncs = new SyncGroup(fd, (ms) => this.onSync?.(ms));
  }

  /**
   * Creates WAL file `fileNumber` (it must not exist). With `durable`, the directory is fsynced
   * so the new file itself survives a crash.
   */
  static create(walDir: string, fileNumber: number, durable: boolean): WalWriter {
    const fd = fs.openSync(walFilePath(walDir, fileNumber), 'wx');
    if (durable) fsyncDirSync(walDir);
    return new WalWriter(walDir, fileNumber, fd, 0);
  }

  /** This file's path. */
  get path(): string {
    return walFilePath(this.walDir, this.fileNumber);
  }

  /** Appends made to this file so far (what a caller that syncs must see covered). */
  get appendCount(): number {
    return this.syncs.appended;
  }

  /**
   * Appends framed records with one write. On failure (a full disk) the file is cut back to where
   * it was so a half-written record cannot hide later ones, and the next append may follow; when
   * even that fails `intact` turns false and the caller must rotate to a fresh file.
   *
   * The write is synchronous: it copies into the page cache (the fdatasync is what waits for the
   * disk), and a completion scheduled on this thread would wait behind whatever the thread runs
   * next, a decode of 1.5-2.5 ms as often as not. Measured on remote write at 4 requests in flight,
   * a shard's write task took 2.9 ms with libuv's write against 1.0 ms with this (bench/RESULTS.md).
   */
  append(records: Uint8Array): void {
    const before = this.bytes;
    try {
      // At an explicit offset: a write that failed half-way leaves no file position past the cut.
      let written = 0;
      while (written < records.length) {
        written += fs.writeSync(this.fd, records, written, records.length - written, before + written);
      }
      this.bytes += records.length;
      this.syncs.appended++;
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
    return this.syncs.durable();
  }

  /**
   * Closes the file, after an fdatasync when `durable` (rotation in `none` sync mode skips it: it
   * would block the thread on the page cache the mode chose not to wait for).
   */
  close(durable = true): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (durable && this.syncs.failed === null) {
        try {
          fs.fdatasyncSync(this.fd);
          this.syncs.settle(this.syncs.appended);
        } catch (err) {
          this.syncs.fail(err as Error);
          throw err;
        }
      }
    } finally {
      // Waiters left (a non-durable close) have nothing more coming.
      this.syncs.stop(() => fs.closeSync(this.fd), `WAL file ${this.fileNumber} closed before its records were synced`);
    }
  }
}
