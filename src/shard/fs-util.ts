/**
 * Small file-system helpers for crash safety: fsync of directories (so that creates, renames and
 * unlinks are durable) and callback-to-promise wrappers for fd writes that keep the event loop
 * free while the disk works.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';

/** Makes the entries of `dir` (creates, renames, unlinks) durable. */
export function fsyncDirSync(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Async form of `fsyncDirSync`. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes all of `bytes` at file offset `position`: explicit, so a write that failed half-way
 * (a full disk) does not leave the fd's own position past the bytes the caller cut back.
 */
export function writeAll(fd: number, bytes: Uint8Array, position: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (offset: number): void => {
      fs.write(fd, bytes, offset, bytes.length - offset, position + offset, (err, written) => {
        if (err) reject(err);
        else if (offset + written < bytes.length) step(offset + written);
        else resolve();
      });
    };
    step(0);
  });
}

/** Removes a file, ignoring that it is already gone. */
export function unlinkQuietSync(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
