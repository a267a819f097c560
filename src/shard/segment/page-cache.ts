/**
 * Inflated segment blocks kept between scans, least recently used first out, bounded in bytes
 * (`segment.page_cache_size`, GreptimeDB's `page_cache_size`): dashboards ask for the same recent
 * hours again and again, and reading, checking and inflating a block was most of a repeated
 * query's time in a shard. One cache per shard thread; a block is immutable while its file
 * lives, and a closed file's blocks are dropped with it.
 */

let capacityBytes = 0;
let usedBytes = 0;
/** Key: file number × 2^20 + block index. Map order is use order (a hit moves to the end). */
const entries = new Map<number, Buffer>();
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
export function cachedBlock(file: number, index: number, load: () => Buffer): Buffer {
  if (capacityBytes === 0 || index >= BLOCKS_PER_FILE) return load();
  const key = file * BLOCKS_PER_FILE + index;
  const hit = entries.get(key);
  if (hit !== undefined) {
    entries.delete(key);
    entries.set(key, hit);
    hits++;
    return hit;
  }
  misses++;
  const body = load();
  if (body.length <= capacityBytes / 8) {
    entries.set(key, body);
    usedBytes += body.length;
    evict();
  }
  return body;
}

/** Forgets the blocks of a file that closed. */
export function dropPageCacheFile(file: number): void {
  const from = file * BLOCKS_PER_FILE;
  for (const [key, body] of entries) {
    if (key < from || key >= from + BLOCKS_PER_FILE) continue;
    entries.delete(key);
    usedBytes -= body.length;
  }
}

function evict(): void {
  for (const [key, body] of entries) {
    if (usedBytes <= capacityBytes) return;
    entries.delete(key);
    usedBytes -= body.length;
  }
}

/** For /metrics. */
export function pageCacheStats(): { bytes: number; hits: number; misses: number } {
  return { bytes: usedBytes, hits, misses };
}
