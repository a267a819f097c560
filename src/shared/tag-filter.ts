/**
 * A shard's tag filter: a Bloom filter of the (table, tag column, value) triples of every series
 * the shard has held since it opened, in shared memory the shard writes and the router reads.
 * Series are placed by the hash of all their tags, so a query that names one host cannot tell
 * which shard holds it; with the filter the router leaves out a shard that surely holds no series
 * with that value (src/router/shard-pruning.ts), and a one-series query costs one round trip to
 * one thread instead of one to every thread.
 *
 * Never a false "absent": the shard sets a series' bits when the series enters a memtable, which
 * is before the write that brought it is acknowledged, and when it opens it adds every key of its
 * segments before it marks the filter complete; until then the router asks every shard. Bits are
 * never cleared, so series that are gone (dropped, expired) only cost false "maybe"s.
 *
 * 2^23 bits and four probes: under 10^-5 false "maybe"s at 100,000 distinct triples a shard,
 * about 2% at a million; past that it saturates and the router asks every shard, as without it.
 */

import { forEachTagSpan } from './series-key.js';

/** Bits of the filter: a power of two. */
const BITS = 1 << 23;
const MASK = BITS - 1;
const PROBES = 4;
/** Header words before the bits: [0] = 1 once the filter holds every series of the shard. */
const HEADER_WORDS = 2;
const COMPLETE = 1;

/** murmur3's finaliser: spreads FNV's low bits, which the mask keeps. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The two hashes the probes of the last `probesOf` derive from (double hashing, no allocation). */
let probeA = 0;
let probeB = 1;

function probesOf(h: number): void {
  probeA = mix(h);
  probeB = mix(h ^ 0x9e3779b9) | 1;
}

/** Bit of probe `i` of the triple `probesOf` last took. */
function probeBit(i: number): number {
  return (probeA + Math.imul(i, probeB)) & MASK;
}

/** FNV-1a of the table, the column and the UTF-16 code units of `text[start, end)`. */
function hashTriple(tableId: number, columnId: number, text: string, start: number, end: number): number {
  let h = 0x811c9dc5 ^ tableId;
  h = Math.imul(h, 0x01000193) ^ columnId;
  h = Math.imul(h, 0x01000193);
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

export class TagFilter {
  private readonly header: Int32Array;
  private readonly words: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(HEADER_WORDS * 4 + BITS / 8)) {
    this.header = new Int32Array(buffer, 0, HEADER_WORDS);
    this.words = new Int32Array(buffer, HEADER_WORDS * 4, BITS / 32);
  }

  /** Whether every series the shard holds is in the filter (until then nothing can be ruled out). */
  get complete(): boolean {
    return Atomics.load(this.header, 0) === COMPLETE;
  }

  markComplete(): void {
    Atomics.store(this.header, 0, COMPLETE);
  }

  /**
   * Adds every tag of a series key, each value hashed where it lies in the key (no substring): a
   * memtable adds each of its series once, so this runs once per series per flush.
   */
  addKey(tableId: number, key: string): void {
    forEachTagSpan(key, (columnId, start, end) => this.set(hashTriple(tableId, columnId, key, start, end)));
  }

  /** Whether some series of the table may carry `value` in the column (false: surely none). */
  mayHold(tableId: number, columnId: number, value: string): boolean {
    probesOf(hashTriple(tableId, columnId, value, 0, value.length));
    for (let i = 0; i < PROBES; i++) {
      const bit = probeBit(i);
      if ((Atomics.load(this.words, bit >>> 5) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  private set(h: number): void {
    probesOf(h);
    const words = this.words;
    for (let i = 0; i < PROBES; i++) {
      const bit = probeBit(i);
      const word = bit >>> 5;
      const mask = 1 << (bit & 31);
      // Only this shard writes: a plain read finds bits already set (most series after the first
      // flush) without the cost of an atomic; a new bit is published atomically.
      if (((words[word] as number) & mask) === 0) Atomics.or(words, word, mask);
    }
  }
}
