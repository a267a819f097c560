/**
 * The remote-write series cache never answers one label set with another's entry: every bucket is
 * forced to collide (hash 0), and the entries found must be exactly those added, byte for byte.
 * Generations rotate without losing a series still in use.
 */
import t from 'tap';
import { hashBytes, SeriesCache, type SeriesEntry } from '../../../src/shared/ingest/byte-series-cache.js';
import { prng } from '../../helpers/prng.js';

function entryOf(bytes: Buffer, hash: number, id: number): SeriesEntry {
  return {
    bytes,
    hash,
    db: 'public',
    table: `t${id}`,
    tableKey: `public\u0000t${id}`,
    tagNames: [],
    tagValues: [],
    shapeKey: '',
    shard: 0,
  };
}

t.test('colliding hashes never map two label sets to one entry', async (t) => {
  const rand = prng(Number(process.env.SERIES_CACHE_SEED ?? 7));
  const cache = new SeriesCache(1 << 20);
  const known = new Map<string, SeriesEntry>();
  const wrong: string[] = [];
  // Short random byte strings (many share prefixes, lengths and contents up to one byte).
  for (let i = 0; i < 3000; i++) {
    const length = Math.floor(rand() * 6);
    const bytes = Buffer.from(Array.from({ length }, () => Math.floor(rand() * 3)));
    const key = bytes.toString('hex');
    // Embed the bytes at a random offset of a larger buffer, as in a request.
    const pad = Math.floor(rand() * 5);
    const request = Buffer.concat([Buffer.alloc(pad, 9), bytes, Buffer.alloc(3, 9)]);
    const found = cache.get(0, request, pad, pad + length);
    if (known.has(key)) {
      if (found !== known.get(key)) wrong.push(`wrong or no entry for ${key}`);
    } else {
      if (found !== undefined) wrong.push(`an entry for ${key} before it was added`);
      const entry = entryOf(Buffer.from(bytes), 0, known.size);
      cache.add(entry);
      known.set(key, entry);
    }
  }
  t.same(wrong, []);
  t.ok(known.size > 100, `${known.size} distinct label byte strings`);
  t.equal(cache.size, known.size);
});

t.test('the hash is a function of the bytes in range only', async (t) => {
  const a = Buffer.from('xxabcdefghijyy');
  const b = Buffer.from('zzzabcdefghijw');
  const view = (x: Buffer) => new DataView(x.buffer, x.byteOffset, x.byteLength);
  t.equal(hashBytes(view(a), 2, 12), hashBytes(view(b), 3, 13));
  t.not(hashBytes(view(a), 2, 12), hashBytes(view(a), 2, 11), 'length matters');
  t.not(hashBytes(view(a), 2, 12), hashBytes(view(a), 3, 13), 'contents matter');
});

t.test('generations: recently used entries survive rotations, others are dropped', async (t) => {
  const cache = new SeriesCache(4);
  const make = (i: number) => entryOf(Buffer.from([i]), i, i);
  const entries = Array.from({ length: 12 }, (_, i) => make(i));
  const view = (i: number) => Buffer.from([i]);
  for (const e of entries.slice(0, 4)) cache.add(e);
  // Entry 0 keeps being used while 4..11 arrive.
  for (const e of entries.slice(4)) {
    t.equal(cache.get(0, view(0), 0, 1), entries[0], 'entry 0 is still found');
    cache.add(e);
  }
  t.ok(cache.size <= 8, 'at most two generations are held');
  t.equal(cache.get(1, view(1), 0, 1), undefined, 'an entry not used for two generations is gone');
  t.equal(cache.get(11, view(11), 0, 1), entries[11]);
});
