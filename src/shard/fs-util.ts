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

/** Removes a file, ignoring that it is already gone. */
export function unlinkQuietSync(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
