/**
 * Appends records to the current WAL file. The store calls `append` and then `sync` once per
 * group commit; both run off the event loop thread so queries keep running meanwhile.
 */
import fs from 'node:fs';
import { fdatasync, fsyncDirSync, writeAll } from '../fs-util.js';
import { walFilePath } from './wal-record.js';

export class WalWriter {
  private closed = false;

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
   * Appends framed records with one write. On failure the file is cut back to where it was so a
   * half-written record cannot hide later ones; the caller should rotate to a fresh file anyway.
   */
  async append(records: Uint8Array): Promise<void> {
    const before = this.bytes;
    try {
      await writeAll(this.fd, records);
      this.bytes += records.length;
    } catch (err) {
      try {
        fs.ftruncateSync(this.fd, before);
      } catch {
        // The rotation that follows leaves this file behind as it is; replay cuts any torn tail.
      }
      throw err;
    }
  }

  /** Makes every appended record durable. */
  sync(): Promise<void> {
    return fdatasync(this.fd);
  }

  /**
   * Closes the file, after an fdatasync when `durable` (rotation in `none` sync mode skips it: it
   * would block the thread on the page cache the mode chose not to wait for).
   */
  close(durable = true): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (durable) fs.fdatasyncSync(this.fd);
    } finally {
      fs.closeSync(this.fd);
    }
  }
}
