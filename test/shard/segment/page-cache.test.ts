/**
 * The page cache's accounting (page-cache.ts): a block's decoded time index is kept with its body
 * and counted while the block is cached, returned as is to the next reader, and given back when
 * the block is evicted or its file dropped.
 */
import t from 'tap';
import {
  cachedBlock,
  dropPageCacheFile,
  keepTimestamps,
  pageCacheFileNumber,
  pageCacheStats,
  setPageCacheBytes,
} from '../../../src/shard/segment/page-cache.js';

const body = (n: number) => Buffer.alloc(n, 1);

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
