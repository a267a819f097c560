/**
 * The page cache's accounting (page-cache.ts): a block's decoded time index is kept with its body
 * and counted while the block is cached, returned as is to the next reader, and given back when
 * the block is evicted or its file dropped.
 */
import t from 'tap';
import {
  type BlockSource,
  cachedBlock,
  dropPageCacheFile,
  keepTimestamps,
  pageCacheFileNumber,
  pageCacheStats,
  pageChunk,
  setPageCacheBytes,
} from '../../../src/shard/segment/page-cache.js';

/** A block source holding `n` bytes at once, as a block stored whole does. */
const body = (n: number): BlockSource => ({
  chunks: [Buffer.alloc(n, 1)],
  bytes: n,
  read: () => {
    throw new Error('no more chunks');
  },
});

t.test('timestamps are kept with their block and counted', async (t) => {
  setPageCacheBytes(64 * 1024);
  const file = pageCacheFileNumber();
  const entry = cachedBlock(file, 0, () => body(1000));
  t.equal(entry.ts, null, 'a new block has none yet');
  t.equal(pageCacheStats().bytes, 1000);
  const ts = new BigInt64Array(100);
  keepTimestamps(entry, ts);
  t.equal(pageCacheStats().bytes, 1800, 'the 800 bytes of the time index count');
  const again = cachedBlock(file, 0, () => {
    throw new Error('read again');
  });
  t.equal(again.ts, ts, 'the next reader gets the same decoded index');
  keepTimestamps(again, new BigInt64Array(100));
  t.equal(again.ts, ts, 'and it is not replaced');
  t.equal(pageCacheStats().bytes, 1800);
  dropPageCacheFile(file);
  t.equal(pageCacheStats().bytes, 0, "a dropped file's blocks give back both");
});

t.test('eviction gives back the time index too; an evicted block no longer counts', async (t) => {
  setPageCacheBytes(8000);
  const file = pageCacheFileNumber();
  const first = cachedBlock(file, 0, () => body(1000));
  keepTimestamps(first, new BigInt64Array(500)); // 4,000 bytes
  t.equal(pageCacheStats().bytes, 5000);
  cachedBlock(file, 1, () => body(1000));
  cachedBlock(file, 2, () => body(1000));
  cachedBlock(file, 3, () => body(1000)); // 8,000 in all
  t.equal(pageCacheStats().bytes, 8000);
  cachedBlock(file, 4, () => body(1000)); // over: the oldest (5,000 bytes) goes
  t.equal(pageCacheStats().bytes, 4000);
  t.equal(first.kept, false);
  keepTimestamps(
    cachedBlock(file, 9, () => body(1000)),
    new BigInt64Array(10),
  );
  const evicted = first;
  evicted.ts = null;
  keepTimestamps(evicted, new BigInt64Array(100));
  t.equal(pageCacheStats().bytes, 5080, 'an evicted entry adds nothing');
  setPageCacheBytes(0);
  t.equal(pageCacheStats().bytes, 0);
  const off = cachedBlock(file, 5, () => body(10));
  keepTimestamps(off, new BigInt64Array(1));
  t.equal(pageCacheStats().bytes, 0, 'with the cache off nothing is kept');
});

t.test('chunks read after a block joined the cache count with it', async (t) => {
  setPageCacheBytes(64 * 1024);
  const file = pageCacheFileNumber();
  let reads = 0;
  const source: BlockSource = {
    chunks: [undefined, undefined],
    bytes: 40,
    read: (c) => {
      reads++;
      return Buffer.alloc(100 * (c + 1));
    },
  };
  const entry = cachedBlock(file, 0, () => source);
  t.equal(pageCacheStats().bytes, 40);
  t.equal(pageChunk(entry, 1).length, 200);
  t.equal(pageCacheStats().bytes, 240, 'the chunk read counts');
  pageChunk(
    cachedBlock(file, 0, () => body(1)),
    1,
  );
  t.equal(reads, 1, 'the next reader gets the chunk already read');
  dropPageCacheFile(file);
  t.equal(pageCacheStats().bytes, 0, 'and gives it back with the block');
});
