/**
 * Inflated segment blocks kept between scans, least recently used first out, bounded in bytes
 * (`segment.page_cache_size`, GreptimeDB's `page_cache_size`): dashboards ask for the same recent
 * hours again and again, and reading, checking and inflating a block was most of a repeated
 * query's time in a shard. One cache per shard thread; a block is immutable while its file
 * lives, and a closed file's blocks are dropped with it.
 *
 * A cached block also keeps its decoded time index once a scan has decoded it (block-codec.ts):
 * a scan of one series still decoded all of its block's 8,192 timestamps each time, a fifth of a
 * shard's work for a one-series query. Readers only read it, as they read memtable columns.
 */

/** An inflated block body and, once decoded, its time index. */
export interface PageEntry {
  readonly body: Buffer;
  ts: BigInt64Array | null;
  /** In the cache now (its bytes are counted); false once evicted, or when never kept. */
  kept: boolean;
}

let capacityBytes = 0;
let usedBytes = 0;
/** Key: file number × 2^20 + block index. Map order is use order (a hit moves to the end). */
const entries = new Map<number, PageEntry>();
const BLOCKS_PER_FILE = 2 ** 20;
let nextFile = 1;
let hits = 0;
let misses = 0;

/** Sets this thread's bound (0 turns the cache off), evicting down to it. */
export function setPageCacheBytes(bytes: number): void {
  capacityBytes = bytes;
  evict();
}

/** A number for a newly opened file; its blocks are cached under it. */
export function pageCacheFileNumber(): number {
  return nextFile++;
}

/** Block `index` of file `file`, from the cache or `load` (then kept if it fits). */
export function cachedBlock(file: number, index: number, load: () => Buffer): PageEntry {
  if (capacityBytes === 0 || index >= BLOCKS_PER_FILE) return uncachedPage(load());
  const key = file * BLOCKS_PER_FILE + index;
  const hit = entries.get(key);
  if (hit !== undefined) {
    entries.delete(key);
    entries.set(key, hit);
    hits++;
    return hit;
  }
  misses++;
  const entry = uncachedPage(load());
  if (entry.body.length <= capacityBytes / 8) {
    entries.set(key, entry);
    entry.kept = true;
    usedBytes += entry.body.length;
    evict();
  }
  return entry;
}

/** A block body read past the cache (or not yet in it): its bytes are not counted. */
export function uncachedPage(body: Buffer): PageEntry {
  return { body, ts: null, kept: false };
}

/** Keeps a block's decoded time index with it (counted while the block is cached). */
export function keepTimestamps(entry: PageEntry, ts: BigInt64Array): void {
  if (entry.ts !== null) return;
  entry.ts = ts;
  if (!entry.kept) return;
  usedBytes += ts.byteLength;
  evict();
}

function bytesOf(entry: PageEntry): number {
  return entry.body.length + (entry.ts?.byteLength ?? 0);
}

/** Forgets the blocks of a file that closed. */
export function dropPageCacheFile(file: number): void {
  const from = file * BLOCKS_PER_FILE;
  for (const [key, entry] of entries) {
    if (key < from || key >= from + BLOCKS_PER_FILE) continue;
    entries.delete(key);
    entry.kept = false;
    usedBytes -= bytesOf(entry);
  }
}

function evict(): void {
  for (const [key, entry] of entries) {
    if (usedBytes <= capacityBytes) return;
    entries.delete(key);
    entry.kept = false;
    usedBytes -= bytesOf(entry);
  }
}

/** For /metrics. */
export function pageCacheStats(): { bytes: number; hits: number; misses: number } {
  return { bytes: usedBytes, hits, misses };
}
