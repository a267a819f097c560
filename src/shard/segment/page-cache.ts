/**
 * Read segment blocks kept between scans, least recently used first out, bounded in bytes
 * (`segment.page_cache_size`, GreptimeDB's `page_cache_size`): dashboards ask for the same recent
 * hours again and again, and reading, checking and inflating a block was most of a repeated
 * query's time in a shard. A block's chunks join it as scans read them (BlockSource). One cache per shard thread; a block is immutable while its file
 * lives, and a closed file's blocks are dropped with it.
 *
 * A cached block also keeps its decoded time index once a scan has decoded it (block-codec.ts):
 * a scan of one series still decoded all of its block's 8,192 timestamps each time, a fifth of a
 * shard's work for a one-series query. Readers only read it, as they read memtable columns.
 */

/**
 * Where a block's chunks come from (block-codec.ts): the chunks read so far, and how to read
 * another. A block stored whole (format versions 1-3) has every chunk from the start, as views of
 * its inflated body; a block stored chunk by chunk reads, checks and inflates only the chunks a
 * scan asks for, so a query of one column of ten reads about a tenth of the block.
 */
export interface BlockSource {
  /** Chunk c (0 = timestamps, c + 1 = field column c), inflated; undefined until read. */
  readonly chunks: Array<Buffer | undefined>;
  /** Bytes the source held when it was made (the whole body of a block stored whole). */
  readonly bytes: number;
  /** Reads, checks and inflates chunk c; throws FormatError when it is damaged. */
  read(c: number): Buffer;
}

/** A block's source and, once decoded, its time index. */
export interface PageEntry {
  readonly source: BlockSource;
  ts: BigInt64Array | null;
  /** In the cache now (its bytes are counted); false once evicted, or when never kept. */
  kept: boolean;
  /** Bytes this entry holds: the source's, chunks read since, and the time index. */
  bytes: number;
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
export function cachedBlock(file: number, index: number, load: () => BlockSource): PageEntry {
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
  if (entry.bytes <= capacityBytes / 8) {
    entries.set(key, entry);
    entry.kept = true;
    usedBytes += entry.bytes;
    evict();
  }
  return entry;
}

/** A block read past the cache (or not yet in it): its bytes are not counted. */
export function uncachedPage(source: BlockSource): PageEntry {
  return { source, ts: null, kept: false, bytes: source.bytes };
}

/** Chunk c of a block, read on first use and counted while the block is cached. */
export function pageChunk(entry: PageEntry, c: number): Buffer {
  let chunk = entry.source.chunks[c];
  if (chunk === undefined) {
    chunk = entry.source.read(c);
    entry.source.chunks[c] = chunk;
    grow(entry, chunk.length);
  }
  return chunk;
}

/** Keeps a block's decoded time index with it (counted while the block is cached). */
export function keepTimestamps(entry: PageEntry, ts: BigInt64Array): void {
  if (entry.ts !== null) return;
  entry.ts = ts;
  grow(entry, ts.byteLength);
}

function grow(entry: PageEntry, bytes: number): void {
  entry.bytes += bytes;
  if (!entry.kept) return;
  usedBytes += bytes;
  evict();
}

/** Forgets the blocks of a file that closed. */
export function dropPageCacheFile(file: number): void {
  const from = file * BLOCKS_PER_FILE;
  for (const [key, entry] of entries) {
    if (key < from || key >= from + BLOCKS_PER_FILE) continue;
    entries.delete(key);
    entry.kept = false;
    usedBytes -= entry.bytes;
  }
}

function evict(): void {
  for (const [key, entry] of entries) {
    if (usedBytes <= capacityBytes) return;
    entries.delete(key);
    entry.kept = false;
    usedBytes -= entry.bytes;
  }
}

/** For /metrics. */
export function pageCacheStats(): { bytes: number; hits: number; misses: number } {
  return { bytes: usedBytes, hits, misses };
}
