/**
 * A query whose request times out is answered 408 and stops in the shards too: the router raises
 * the query's shared cancel flag and every shard gives up at its next scan chunk.
 */
import t from 'tap';
import { metricSum, sql, startServer, writeLines } from '../helpers/server.js';

const cancelledInShards = (url: string): Promise<number> => metricSum(url, 'shoaldb_shard_queries_cancelled_total');

t.test('a timed-out query answers 408 and is cancelled in the shards', async (t) => {
  const server = await startServer({ httpToml: 'timeout = "60s"\nbody_limit = "64MiB"' });
  t.teardown(() => server.stop());
  for (let b = 0; b < 60; b++) {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const row = b * 10_000 + i;
      lines.push(`big,host=h${row % 2000},dc=d${row % 7} a=${row % 97},b=${row % 13}i,c="s${row % 5}" ${row}`);
    }
    t.equal((await writeLines(server.url, lines.join('\n'))).status, 204);
  }
  const heavy = 'SELECT host, dc, count(*), avg(a), max(b), min(c) FROM big GROUP BY host, dc ORDER BY host';
  const started = Date.now();
  const res = await sql(server.url, heavy, undefined, { 'x-greptime-timeout': '30ms' });
  t.equal(res.status, 408, 'the request times out');
  t.ok(Date.now() - started < 5_000);

  let cancelled = 0;
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && (cancelled = await cancelledInShards(server.url)) === 0) {
    await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(cancelled >= 1, `the shards stopped the query (${cancelled})`);

  const full = await sql(server.url, 'SELECT count(*) FROM big');
  t.same(full.body.output?.[0]?.records?.rows, [[600_000]], 'the server keeps serving queries');
});
