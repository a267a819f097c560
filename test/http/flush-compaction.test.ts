/**
 * Data reads back identical whether it sits in the memtable, in flushed segments, or in
 * compacted ones, and after a restart from segments.
 */
import t from 'tap';
import { metricSum, sql, startServer, tempDir, writeLines } from '../helpers/server.js';

const QUERIES = [
  'SELECT count(*) FROM f',
  'SELECT host, count(*), sum(v), min(v), max(v) FROM f GROUP BY host ORDER BY host',
  "SELECT host, v, n, s, ok, greptime_timestamp FROM f WHERE host = 'h3' ORDER BY greptime_timestamp LIMIT 50",
];

async function snapshot(url: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    const res = await sql(url, q);
    if (res.status !== 200) throw new Error(`${q}: ${res.text}`);
    out.push(res.body.output?.[0]?.records?.rows);
  }
  return out;
}

t.test('flush and compaction keep every row identical, also after restart', async (t) => {
  const dataDir = tempDir();
  const extraToml = '[memtable]\nflush_size = "256KiB"\n[segment]\ncompaction_trigger = 2\nblock_rows = 512\n';
  let server = await startServer({ dataDir, extraToml });

  // Rewrites of earlier timestamps (every 4th batch) check last-write-wins across segments.
  const expected = new Map<string, number>();
  for (let b = 0; b < 40; b++) {
    const lines: string[] = [];
    const rewrite = b % 4 === 3;
    for (let i = 0; i < 500; i++) {
      const ts = rewrite ? (b - 3) * 500 + i : b * 500 + i;
      const host = `h${i % 8}`;
      const v = b * 1000 + i;
      lines.push(`f,host=${host} v=${v},n=${i}i,s="r${b}",ok=${i % 2 === 0} ${ts}`);
      expected.set(`${host}/${ts}`, v);
    }
    const res = await writeLines(server.url, lines.join('\n'));
    t.equal(res.status, 204, res.text);
  }
  const before = await snapshot(server.url);
  t.same(before[0], [[expected.size]], 'rewritten rows replaced the old ones');

  // Give background flush and compaction a moment; they are triggered by size.
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && (await metricSum(server.url, 'shoaldb_compactions_total')) === 0) {
    await new Promise((r) => setTimeout(r, 200));
  }
  t.ok((await metricSum(server.url, 'shoaldb_flushes_total')) > 0, 'memtables were flushed');
  t.ok((await metricSum(server.url, 'shoaldb_compactions_total')) > 0, 'segments were compacted');
  t.ok((await metricSum(server.url, 'shoaldb_segments')) > 0, 'segments exist');
  // Per table: all segment bytes belong to `f`, the only table (the dashboard's on-disk size).
  const metricsText = await (await fetch(`${server.url}/metrics`)).text();
  const perTable = /^shoaldb_table_segment_bytes\{db="public",table="f"\} (\d+)$/m.exec(metricsText);
  t.ok(perTable, 'segment bytes reported for table f');
  t.equal(Number(perTable?.[1]), await metricSum(server.url, 'shoaldb_segment_bytes'), 'and they are all of them');
  const sized = await sql(server.url, "SELECT data_length FROM information_schema.tables WHERE table_name = 'f'");
  t.same(sized.body.output?.[0]?.records?.rows, [[Number(perTable?.[1])]], 'information_schema.tables.data_length');
  t.same(await snapshot(server.url), before, 'identical after flush and compaction');

  await server.kill();
  server = await startServer({ dataDir, extraToml });
  t.teardown(() => server.stop());
  t.same(await snapshot(server.url), before, 'identical after a restart');

  const sumRes = await sql(server.url, 'SELECT sum(v) FROM f');
  const expectedSum = [...expected.values()].reduce((a, b) => a + b, 0);
  t.same(sumRes.body.output?.[0]?.records?.rows, [[expectedSum]]);
});
