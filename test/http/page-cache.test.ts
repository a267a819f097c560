/**
 * The page cache (src/shard/segment/page-cache.ts): a repeated scan of flushed data takes its
 * blocks from memory and answers exactly as the first; its size bound holds, and a compaction
 * that retires segments drops their blocks. `page_cache_size = "0"` turns it off.
 */
import t from 'tap';
import { metricSum, rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

const ROWS = 4000;
const QUERY = 'SELECT host, count(*), sum(v), max(greptime_timestamp) FROM pc GROUP BY host ORDER BY host';

function lines(from: number, count: number): string {
  return Array.from(
    { length: count },
    (_, i) => `pc,host=h${(from + i) % 13} v=${from + i} ${1_700_000_000_000 + from + i}`,
  ).join('\n');
}

async function loadFlushed(url: string, batches: number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    const res = await writeLines(url, lines(b * ROWS, ROWS));
    if (res.status !== 204) throw new Error(`write ${res.status}`);
    const flushed = await sql(url, "ADMIN flush_table('pc')");
    if (flushed.status !== 200) throw new Error(`flush ${flushed.status}`);
  }
}

t.test('a repeated query reads its blocks from the cache and answers the same', async (t) => {
  const server = await startServer({ shards: 2, extraToml: '[segment]\nblock_rows = 256\ncompaction_trigger = 64\n' });
  t.teardown(() => server.stop());
  await loadFlushed(server.url, 3);
  const first = await sql(server.url, QUERY);
  t.equal(first.status, 200);
  const misses = await metricSum(server.url, 'shoaldb_page_cache_misses_total');
  const hits0 = await metricSum(server.url, 'shoaldb_page_cache_hits_total');
  t.ok(misses >= 3, `the first scan read the blocks (${misses} misses)`);
  t.ok((await metricSum(server.url, 'shoaldb_page_cache_bytes')) > 0, 'and kept them');
  const second = await sql(server.url, QUERY);
  t.same(rowsOf(second.body), rowsOf(first.body), 'the same answer');
  t.equal(
    rowsOf(second.body).reduce((n, r) => n + Number(r[1]), 0),
    3 * ROWS,
  );
  t.equal(await metricSum(server.url, 'shoaldb_page_cache_misses_total'), misses, 'no block read again');
  t.ok((await metricSum(server.url, 'shoaldb_page_cache_hits_total')) - hits0 >= misses, 'every block a hit');

  // Compaction retires the three segments: their blocks leave the cache with them.
  t.equal((await sql(server.url, "ADMIN compact_table('pc')")).status, 200);
  const third = await sql(server.url, QUERY);
  t.same(rowsOf(third.body), rowsOf(first.body), 'the compacted segment answers the same');
  t.ok(
    (await metricSum(server.url, 'shoaldb_page_cache_misses_total')) > misses,
    'the new segment is read from disk, not from blocks of the old ones',
  );
});

t.test('the cache stays within page_cache_size; "0" turns it off', async (t) => {
  const small = await startServer({ shards: 1, extraToml: '[segment]\nblock_rows = 256\npage_cache_size = "16KiB"\n' });
  t.teardown(() => small.stop());
  await loadFlushed(small.url, 2);
  t.equal((await sql(small.url, QUERY)).status, 200);
  t.ok((await metricSum(small.url, 'shoaldb_page_cache_bytes')) <= 16 * 1024, 'within its bound');

  const off = await startServer({ shards: 1, extraToml: '[segment]\nblock_rows = 256\npage_cache_size = "0"\n' });
  t.teardown(() => off.stop());
  await loadFlushed(off.url, 2);
  const a = await sql(off.url, QUERY);
  const b = await sql(off.url, QUERY);
  t.same(rowsOf(b.body), rowsOf(a.body));
  t.equal(await metricSum(off.url, 'shoaldb_page_cache_hits_total'), 0);
  t.equal(await metricSum(off.url, 'shoaldb_page_cache_bytes'), 0);
});
