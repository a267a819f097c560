/**
 * Sketch aggregates over HTTP against the real server: rows written with line protocol spread
 * over four shard workers, whose partial HyperLogLog and UDDSketch states cross the worker
 * boundary and merge in the router. Estimates are checked against exact answers computed here
 * from the rows written, within each sketch's error bound.
 */
import t, { type Test } from 'tap';
import { prng } from '../helpers/prng.js';
import { checkedSql, rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

const server = await startServer({ shards: 4 });
t.teardown(() => server.stop());
const query = checkedSql(t, () => server.url);

const HOSTS = Array.from({ length: 12 }, (_, i) => `host-${i}`);
const ROWS = 24000;
const written: Array<{ host: string; user: string; latency: number }> = [];
const next = prng(7);
for (let start = 0; start < ROWS; start += 4000) {
  const lines: string[] = [];
  for (let i = start; i < start + 4000; i++) {
    const host = HOSTS[i % HOSTS.length] as string;
    const user = `u${Math.floor(next() * 15000)}`;
    const latency = Math.round(Math.exp(next() * 8) * 100) / 100;
    written.push({ host, user, latency });
    lines.push(`req,host=${host} user="${user}",latency=${latency} ${1_700_000_000_000 + i}`);
  }
  const r = await writeLines(server.url, lines.join('\n'));
  if (r.status !== 204) throw new Error(`line protocol write: ${r.status} ${r.text}`);
}

function near(t: Test, got: number, want: number, bound: number, what: string): void {
  t.ok(Math.abs(got - want) / want <= bound, `${what}: ${got} vs exact ${want} (bound ${bound})`);
}

/** The value of rank ⌊n·q⌋+1 (capped at n) in sorted order: the rank uddsketch_calc estimates. */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(Math.floor(sorted.length * q) + 1, sorted.length) - 1] as number;
}

t.test('the rows are spread over several shards', async (t) => {
  const [[count]] = rowsOf(await query('SELECT count(*) FROM req')) as [[number]];
  t.equal(count, ROWS);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const shardsWithRows = metrics
    .split('\n')
    .filter((line) => line.startsWith('shoaldb_shard_rows_written_total{') && Number(line.split(' ').pop()) > 0);
  t.ok(shardsWithRows.length >= 2, `rows in ${shardsWithRows.length} shards`);
});

t.test('hll_count(hll(x)) is within 3% of the true distinct count', async (t) => {
  const body = await query('SELECT hll_count(hll(user)) FROM req');
  t.same(body.output?.[0]?.records?.schema.column_schemas, [{ name: 'hll_count(hll(req.user))', data_type: 'UInt64' }]);
  const [[estimate]] = rowsOf(body) as [[number]];
  near(t, estimate, new Set(written.map((r) => r.user)).size, 0.03, 'distinct users');
});

t.test('hll_merge of per-host states is the union, per host counts are within 3%', async (t) => {
  const truth = new Set(written.map((r) => r.user)).size;
  const [[merged]] = rowsOf(
    await query('SELECT hll_count(hll_merge(s)) FROM (SELECT host, hll(user) AS s FROM req GROUP BY host)'),
  ) as [[number]];
  near(t, merged, truth, 0.03, 'merged');
  const [[direct]] = rowsOf(await query('SELECT hll_count(hll(user)) FROM req')) as [[number]];
  t.equal(merged, direct, 'register-wise merging loses nothing');
  const perHost = rowsOf(
    await query('SELECT host, hll_count(hll(user)) FROM req GROUP BY host ORDER BY host'),
  ) as Array<[string, number]>;
  t.equal(perHost.length, HOSTS.length);
  for (const [host, count] of perHost) {
    near(t, count, new Set(written.filter((r) => r.host === host).map((r) => r.user)).size, 0.03, host);
  }
});

t.test('uddsketch_calc(0.5 / 0.99) is within the 1% bound of the exact percentiles', async (t) => {
  const latencies = written.map((r) => r.latency);
  const [[p50, p99]] = rowsOf(
    await query(
      'SELECT uddsketch_calc(0.5, uddsketch_state(1024, 0.01, latency)), uddsketch_calc(0.99, uddsketch_state(1024, 0.01, latency)) FROM req',
    ),
  ) as [[number, number]];
  near(t, p50, exactQuantile(latencies, 0.5), 0.01, 'p50');
  near(t, p99, exactQuantile(latencies, 0.99), 0.01, 'p99');
});

t.test('states stored in a BINARY column merge later', async (t) => {
  await query('CREATE TABLE rollup (host STRING, h BINARY, u BINARY, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  await query(
    'INSERT INTO rollup (host, h, u, ts) SELECT host, hll(user), uddsketch_state(1024, 0.01, latency), 0 FROM req GROUP BY host',
  );
  const [[users, p99]] = rowsOf(
    await query('SELECT hll_count(hll_merge(h)), uddsketch_calc(0.99, uddsketch_merge(1024, 0.01, u)) FROM rollup'),
  ) as [[number, number]];
  near(t, users, new Set(written.map((r) => r.user)).size, 0.03, 'users from stored states');
  near(
    t,
    p99,
    exactQuantile(
      written.map((r) => r.latency),
      0.99,
    ),
    0.01,
    'p99 from stored states',
  );
  const mismatch = await sql(server.url, 'SELECT uddsketch_merge(64, 0.01, u) FROM rollup');
  t.equal(mismatch.body.code, 3001);
  t.match(
    mismatch.body.error,
    'Merging UDDSketch with different parameters: arguments=(64, 0.01) vs actual input=(1024, 0.01)',
  );
});
