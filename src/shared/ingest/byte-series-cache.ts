/**
 * A series cache keyed by the bytes that name a series on the wire → everything the write path
 * needs to know about that series (database, table, tags sorted by name, owning shard). Remote
 * write keys by a `TimeSeries`' label bytes, OpenTSDB put by a point's metric and tags as sent.
 * Senders resend the same bytes every interval, so a series is decoded, validated and hashed to
 * its shard once, when it is new; afterwards a request only hashes and compares its bytes. No
 * string is made for a series that was seen before. One cache per decoding thread and database.
 *
 * Correctness never rests on the hash: a hit is confirmed by comparing every byte, so two label
 * sets can share a hash bucket but never an entry. The bytes are the wire form, so the same
 * labels in another order or with other encodings are simply another entry (with the same
 * tags, hence the same series in storage).
 *
 * Memory follows the active series, not all ever seen: entries live in two generations; when
 * the young one is full it becomes the old one and the previous old one is dropped. A lookup
 * that hits the old generation moves the entry to the young one, so series still being written
 * survive every rotation.
 */

import type { ResolvedSeries } from './series-inserts.js';

/** A series: where its wire bytes resolve to, and the bytes that name it. */
export interface SeriesEntry extends ResolvedSeries {
  /** The label bytes this entry was made from (a copy: request buffers are not kept). */
  readonly bytes: Buffer;
  readonly hash: number;
  /**
   * The series that followed this one in the last request that had it. Senders repeat their
   * series in the same order every time, so this guess, confirmed by comparing bytes, spares
   * most lookups their hash. Set by the decoder.
   */
  next?: SeriesEntry | undefined;
  /** The cache generation the entry was last added to (set by the cache). */
  generation?: number | undefined;
}

/**
 * A 32-bit hash of a byte range of `view`, four bytes a step (label sets are a few hundred bytes, and this
 * runs once per series per request); collisions only cost a byte comparison.
 */
export function hashBytes(view: DataView, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start);
  let i = start;
  for (; i + 4 <= end; i += 4) {
    h = Math.imul(h ^ view.getInt32(i, true), 0x01000193);
    h ^= h >>> 15;
  }
  for (; i < end; i++) h = Math.imul(h ^ view.getUint8(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

/** The cache entry of `series`, named by the bytes at `bytes[start, end)` (copied). */
export function seriesEntry(series: ResolvedSeries, bytes: Uint8Array, start: number, end: number): SeriesEntry {
  // Spelled out, not spread: a spread copy of this many fields became a slow (dictionary-mode)
  // object in V8, and every property read on the hot path with it (the decoder ran 5× slower).
  return {
    db: series.db,
    table: series.table,
    tableKey: series.tableKey,
    tagNames: series.tagNames,
    tagValues: series.tagValues,
    shapeKey: series.shapeKey,
    shard: series.shard,
    storageKey: undefined,
    stamp: undefined,
    stampIndex: undefined,
    boundTable: undefined,
    boundKey: undefined,
    bytes: Buffer.from(bytes.subarray(start, end)),
    hash: hashBytes(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), start, end),
    next: undefined,
    generation: undefined,
  };
}

/** memcmp through Buffer#compare: no allocation, and native past a few dozen bytes. */
function sameBytes(entry: Buffer, bytes: Uint8Array, start: number, end: number): boolean {
  return entry.length === end - start && entry.compare(bytes, start, end) === 0;
}

type Bucket = SeriesEntry | SeriesEntry[];

function find(map: Map<number, Bucket>, hash: number, bytes: Uint8Array, start: number, end: number) {
  const bucket = map.get(hash);
  if (bucket === undefined) return undefined;
  if (!Array.isArray(bucket)) return sameBytes(bucket.bytes, bytes, start, end) ? bucket : undefined;
  for (const e of bucket) if (sameBytes(e.bytes, bytes, start, end)) return e;
  return undefined;
}

function put(map: Map<number, Bucket>, entry: SeriesEntry): void {
  const bucket = map.get(entry.hash);
  if (bucket === undefined) map.set(entry.hash, entry);
  else if (Array.isArray(bucket)) bucket.push(entry);
  else map.set(entry.hash, [bucket, entry]);
}

export class SeriesCache {
  private young = new Map<number, Bucket>();
  private old = new Map<number, Bucket>();
  private youngCount = 0;
  private oldCount = 0;
  private generation = 0;
  hits = 0;
  misses = 0;

  /** `generationEntries`: entries per generation; at most twice that are held. */
  constructor(readonly generationEntries: number) {}

  get size(): number {
    return this.youngCount + this.oldCount;
  }

  /** Whether the labels at `bytes[start, end)` are the entry's. */
  matches(entry: SeriesEntry, bytes: Uint8Array, start: number, end: number): boolean {
    return sameBytes(entry.bytes, bytes, start, end);
  }

  /** Counts a hit on an entry found without `get` and keeps it in the young generation. */
  touch(entry: SeriesEntry): void {
    this.hits++;
    if (entry.generation !== this.generation) this.add(entry);
  }

  /** The entry of the labels at `bytes[start, end)` with hash `hash`, if known. */
  get(hash: number, bytes: Uint8Array, start: number, end: number): SeriesEntry | undefined {
    const hit = find(this.young, hash, bytes, start, end);
    if (hit !== undefined) {
      this.hits++;
      return hit;
    }
    const old = find(this.old, hash, bytes, start, end);
    if (old === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.add(old);
    return old;
  }

  /** Remembers an entry (the caller has checked it is not already there). */
  add(entry: SeriesEntry): void {
    if (this.generationEntries <= 0) return;
    if (this.youngCount >= this.generationEntries) {
      this.old = this.young;
      this.oldCount = this.youngCount;
      this.young = new Map();
      this.youngCount = 0;
      this.generation++;
    }
    entry.generation = this.generation;
    put(this.young, entry);
    this.youngCount++;
  }
}
