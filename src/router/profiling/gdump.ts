/**
 * `gdump`: while active, heap dumps are written to `<data_home>/dump/` on their own, so memory
 * growth can be looked at after the fact (GreptimeDB dumps on each new jemalloc high-water mark;
 * V8 has no such hook, so here it is one dump on activation and one per GDUMP_INTERVAL_MS).
 * Files are `heap-<UTC time>.pb.gz` (gzipped pprof, what `mem?output=proto` answers); only the
 * newest GDUMP_FILES_MAX are kept.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Logger } from 'pino';
import type { HeapCapture } from './heap-capture.js';

const gzip = promisify(zlib.gzip);

/** Time between two automatic dumps. */
export const GDUMP_INTERVAL_MS = 60_000;
/** Dumps kept in the directory; older ones are deleted, so a forgotten gdump cannot fill the disk. */
export const GDUMP_FILES_MAX = 32;

export class GdumpWriter {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: string,
    private readonly heap: HeapCapture,
    private readonly log: Logger,
  ) {}

  get active(): boolean {
    return this.timer !== null;
  }

  /** Starts dumping; resolves once the first dump is written. */
  async activate(): Promise<void> {
    if (this.timer === null) {
      this.timer = setInterval(() => void this.dumpOnce(), GDUMP_INTERVAL_MS);
      this.timer.unref();
    }
    await this.dumpOnce();
  }

  deactivate(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Writes one dump now (dumps never overlap); failures are logged, not thrown. */
  dumpOnce(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (!this.heap.active) return;
      try {
        const bytes = await gzip((await this.heap.dump()).encode());
        await fs.mkdir(this.dir, { recursive: true });
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        await fs.writeFile(path.join(this.dir, `heap-${stamp}.pb.gz`), bytes);
        const dumps = (await fs.readdir(this.dir)).filter((f) => /^heap-.*\.pb\.gz$/.test(f)).sort();
        for (const old of dumps.slice(0, Math.max(0, dumps.length - GDUMP_FILES_MAX))) {
          await fs.rm(path.join(this.dir, old), { force: true });
        }
      } catch (err) {
        this.log.warn({ err: String(err), dir: this.dir }, 'gdump: writing a heap dump failed');
      }
    });
    return this.writing;
  }
}
