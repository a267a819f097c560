/**
 * median and approx_percentile_cont over rows spread across both shards, in the memtable and in
 * segments, grouped and not: shard states merge in the router into the exact median and into the
 * t-digest estimate DataFusion gives for the same rows in one batch (fewer than 8,192 of them: the
 * shards' buffered values are concatenated before the digest is built), computed here from the rows.
 * Rows without the field (NULL) are left out; the series-run fold (GROUP BY a tag) agrees.
 */
import t, { type Test } from 'tap';
import { digestSorted, estimateQuantile, newDigest } from '../../src/query/sql/functions/tdigest.js';
import { prng } from '../helpers/prng.js';
import { rowsOf, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const rand = prng(Number(process.env.SQL_PERCENTILE_SEED ?? 3));
const T0 = 1_700_000_000_000;
const HOSTS = 40;
const ROWS = 60;

function percentile(values: number[], p: number): number | null {
  const digest = newDigest(100);
  const sorted = Float64Array.from(values).sort();
  digestSorted(digest, sorted, sorted.length);
  return estimateQuantile(digest, p);
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

let server: TestServer;
const byHost = new Map<string, number[]>();
t.before(async () => {
  server = await startServer({ shards: 2 });
  const lines: string[] = [];
  for (let h = 0; h < HOSTS; h++) {
    const host = `h${h}`;
    byHost.set(host, []);
    for (let i = 0; i < ROWS; i++) {
      if (rand() < 0.1) {
        lines.push(`p,host=${host} w=1 ${T0 + i * 1000}`);
        continue;
      }
      const v = Math.round((rand() * 2000 - 500) * 100) / 100;
      (byHost.get(host) as number[]).push(v);
      lines.push(`p,host=${host} v=${v},w=1 ${T0 + i * 1000}`);
    }
  }
  const res = await writeLines(server.url, lines.join('\n'));
  if (res.status !== 204) throw new Error(`write ${res.status}`);
});
t.teardown(() => server.stop());

async function check(t: Test, stage: string): Promise<void> {
  const all = [...byHost.values()].flat();
  const whole = await sql(
    server.url,
    'SELECT median(v), approx_percentile_cont(v, 0.9), approx_percentile_cont(v, 0) FROM p',
  );
  t.same(rowsOf(whole.body), [[median(all), percentile(all, 0.9), percentile(all, 0)]], `${stage}: whole table`);
  const grouped = await sql(
    server.url,
    'SELECT host, median(v), approx_percentile_cont(v, 0.25) FROM p GROUP BY host ORDER BY host',
  );
  const want = [...byHost.keys()]
    .sort()
    .map((host) => [host, median(byHost.get(host) as number[]), percentile(byHost.get(host) as number[], 0.25)]);
  t.same(rowsOf(grouped.body), want, `${stage}: per host (the series-run fold)`);
}

t.test('in the memtable', (t) => check(t, 'memtable'));
t.test('in segments', async (t) => {
  t.equal((await sql(server.url, "ADMIN flush_table('p')")).status, 200);
  await check(t, 'segments');
});
