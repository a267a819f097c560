/**
 * What the line-protocol scanner remembers from one request to the next: short names (intern
 * cache), whole series by their raw bytes (series cache) and shared tag-key lists. One instance
 * lives as long as its owner (each decoding thread keeps one); nothing here is module state.
 */
import { copyBytes } from './bytes.js';
import type { FieldKind, LineSeries } from './types.js';

/**
 * A parsed measurement + tag set, cached by its raw bytes. Its arrays are shared by every point
 * of the series (hence read-only), as are the field keys and kinds last seen with it.
 */
export interface SeriesEntry extends LineSeries {
  /** The slab generation its bytes were copied in (-1: not in the slab, never guessed). */
  generation: number;
  /**
   * The series on the line after this one, last time: collectors send their series in the same
   * order every time, so this guess, confirmed by comparing bytes, spares most lines the hash.
   */
  next: SeriesEntry | null;
  /** Where the raw bytes of the series text sit in the slab; compared on every hit. */
  offset: number;
  length: number;
  measurement: string;
  tagKeys: readonly string[];
  tagValues: readonly string[];
  lastFieldKeys: readonly string[];
  lastFieldKinds: readonly FieldKind[];
  /** Raw bytes of lastFieldKeys, back to back, and the end offset of each. */
  lastFieldKeyBytes: Uint8Array;
  lastFieldKeyEnds: Int32Array;
}

/**
 * Intern cache: direct-mapped, keyed by an FNV-1a hash of the raw bytes, holding ASCII strings of
 * up to INTERN_LENGTH_MAX bytes. A hit is verified byte by byte, so a collision only costs a miss.
 * TSBS-like traffic repeats the same few thousand names in every request.
 */
const INTERN_SLOTS = 8192;
export const INTERN_LENGTH_MAX = 64;

// Series cache bounds. Sized for a collector's working set: with fewer entries than active series
// (a scrape of 10,000 single-field series, say) every line missed and the cache was dropped every
// few requests.
const SERIES_ENTRIES_MAX = 131_072;
/** Longer series texts are parsed every time, never cached. */
export const SERIES_LENGTH_MAX = 1024;
const SERIES_SLAB_BYTES_MAX = 64 * 1024 * 1024;
const KEY_LISTS_MAX = 16_384;

export class LineCaches {
  private readonly internStrings = new Array<string | undefined>(INTERN_SLOTS).fill(undefined);
  private readonly internHashes = new Int32Array(INTERN_SLOTS);
  /** The bytes of each slot's string at slot × INTERN_LENGTH_MAX: hits compare bytes with bytes. */
  private readonly internBytes = new Uint8Array(INTERN_SLOTS * INTERN_LENGTH_MAX);

  /**
   * Series keyed by hash (a colliding series replaces the entry). A map rather than a
   * direct-mapped table: slot collisions among a few thousand hot series would make them evict
   * each other on every line. The raw bytes of all entries live back to back in one slab (a small
   * typed array per entry costs more than parsing the series); when the slab or the map is full
   * the whole cache is dropped and refilled.
   */
  private readonly seriesEntries = new Map<number, SeriesEntry>();
  /** Grows by doubling up to SERIES_SLAB_BYTES_MAX, so a small working set stays small. */
  private slab = Buffer.alloc(256 * 1024);
  private slabUsed = 0;
  /** Bumped when the slab is reused from the start: older entries' bytes are gone. */
  generation = 0;

  /**
   * Tag-key lists shared by every series with the same keys in the same order, so that the insert
   * builder recognises a repeated key layout by identity (bounded; it starts over when full).
   */
  private readonly keyLists = new Map<string, readonly string[]>();

  /** Series held (for `/metrics`). */
  get seriesCount(): number {
    return this.seriesEntries.size;
  }

  /**
   * The string of the ASCII bytes buf[start, end) (at most INTERN_LENGTH_MAX of them), whose
   * FNV-1a hash is `hash`: the cached one when the slot holds the same bytes.
   */
  intern(buf: Buffer, start: number, end: number, hash: number): string {
    const length = end - start;
    const slot = hash & (INTERN_SLOTS - 1);
    const cached = this.internStrings[slot];
    const base = slot * INTERN_LENGTH_MAX;
    const bytes = this.internBytes;
    if (cached !== undefined && this.internHashes[slot] === hash && cached.length === length) {
      let k = 0;
      while (k < length && bytes[base + k] === buf[start + k]) k++;
      if (k === length) return cached;
    }
    const s = buf.toString('latin1', start, end);
    this.internStrings[slot] = s;
    this.internHashes[slot] = hash;
    copyBytes(buf, start, end, bytes, base);
    return s;
  }

  /** True when `entry`, cached in the current generation, was made from the bytes buf[start, end). */
  holds(entry: SeriesEntry, buf: Buffer, start: number, end: number): boolean {
    // memcmp: series texts run to a few hundred bytes, a JS byte loop was the parser's top cost.
    return (
      entry.generation === this.generation &&
      entry.length === end - start &&
      this.slab.compare(buf, start, end, entry.offset, entry.offset + entry.length) === 0
    );
  }

  /** The series cached for the bytes buf[start, end), whose hash is `hash`. */
  find(hash: number, buf: Buffer, start: number, end: number): SeriesEntry | undefined {
    const cached = this.seriesEntries.get(hash);
    return cached !== undefined && this.holds(cached, buf, start, end) ? cached : undefined;
  }

  /** Caches `entry`, parsed from buf[start, end) (at most SERIES_LENGTH_MAX bytes), under `hash`. */
  remember(hash: number, entry: SeriesEntry, buf: Buffer, start: number, end: number): void {
    const length = end - start;
    if (this.slabUsed + length > this.slab.length && this.slab.length < SERIES_SLAB_BYTES_MAX) {
      const grown = Buffer.alloc(this.slab.length * 2);
      grown.set(this.slab.subarray(0, this.slabUsed));
      this.slab = grown;
    }
    if (this.seriesEntries.size >= SERIES_ENTRIES_MAX || this.slabUsed + length > this.slab.length) {
      this.seriesEntries.clear();
      this.slabUsed = 0;
      this.generation++;
    }
    copyBytes(buf, start, end, this.slab, this.slabUsed);
    entry.offset = this.slabUsed;
    entry.length = length;
    entry.generation = this.generation;
    this.slabUsed += length;
    this.seriesEntries.set(hash, entry);
  }

  /** The list equal to `keys` handed out before, or `keys` itself, now the shared one. */
  sharedKeyList(keys: string[]): readonly string[] {
    let id = '';
    for (const k of keys) id += `${k.length}:${k}`;
    const known = this.keyLists.get(id);
    if (known !== undefined) return known;
    if (this.keyLists.size >= KEY_LISTS_MAX) this.keyLists.clear();
    this.keyLists.set(id, keys);
    return keys;
  }
}
