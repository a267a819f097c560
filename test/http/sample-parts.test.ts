/**
 * The direct write path of remote write and OpenTSDB (src/shared/ingest/sample-parts.ts): series
 * bound to their table skip planning and go straight into per-shard parts; anything else takes
 * the general path. What must hold: requests that switch between the two paths store every
 * sample in its own series with the table's own column names; whatever the direct path cannot
 * write (a new label, a nanosecond time index, a label named like the time index) is written or
 * refused as before; and a schema change elsewhere keeps known series travelling by reference.
 */
import t from 'tap';
import { remoteWrite, type TestSeries } from '../helpers/prom-remote.js';
import { metricSum, rowsOf, sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

function series(name: string, hosts: number[], step: number, extra: Record<string, string> = {}): TestSeries[] {
  return hosts.map((h) => ({
    labels: { __name__: name, host: `h${h}`, ...extra },
    samples: [{ value: h * 100 + step, timestamp: T0 + step * 1000 }],
  }));
}

async function put(url: string, points: unknown[]): Promise<number> {
  const res = await fetch(`${url}/v1/tsjson/api/put`, { method: 'POST', body: JSON.stringify(points) });
  await res.arrayBuffer();
  return res.status;
}

t.test('requests switching between the direct and the general path store every sample once', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const hosts = [0, 1, 2, 3, 4, 5, 6, 7];
  // Creates the table (general path), then the same series again (direct).
  t.equal((await remoteWrite(server.url, series('sw', hosts, 0))).status, 204);
  t.equal((await remoteWrite(server.url, series('sw', hosts, 1))).status, 204);
  // A new label: its column must be added, so the general path takes the request.
  t.equal((await remoteWrite(server.url, series('sw', [0, 1], 2, { dc: 'east' }))).status, 204);
  // Known series and one of the new shape, mixed in one request: direct again.
  t.equal(
    (await remoteWrite(server.url, [...series('sw', hosts, 3), ...series('sw', [0], 3, { dc: 'east' })])).status,
    204,
  );
  // OpenTSDB points of the same metric and series, by the same path.
  t.equal(await put(server.url, [{ metric: 'sw', timestamp: T0 + 4000, value: 7.5, tags: { host: 'h3' } }]), 204);
  const res = await sql(
    server.url,
    "SELECT host, coalesce(dc, '-'), greptime_timestamp, greptime_value FROM sw ORDER BY host, dc, greptime_timestamp",
  );
  const rows = rowsOf(res.body).map((r) => r.join('|'));
  const expected: string[] = [];
  for (const h of hosts) {
    for (const step of [0, 1, 3]) expected.push(`h${h}|-|${T0 + step * 1000}|${h * 100 + step}`);
    if (h === 3) expected.push(`h3|-|${T0 + 4000}|7.5`);
  }
  expected.push(`h0|east|${T0 + 2000}|2`, `h0|east|${T0 + 3000}|3`, `h1|east|${T0 + 2000}|102`);
  expected.sort();
  t.same(rows.sort(), expected);
});

t.test("an existing table's own time index and value column; what the direct path cannot take", async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const create = async (statement: string) => t.equal((await sql(server.url, statement)).status, 200, statement);
  await create('CREATE TABLE own (at TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, reading DOUBLE)');
  await create('CREATE TABLE nanos (ts TIMESTAMP(9) TIME INDEX, host STRING PRIMARY KEY, greptime_value DOUBLE)');
  for (const step of [0, 1]) {
    t.equal((await remoteWrite(server.url, series('own', [1, 2], step))).status, 204);
    t.equal((await remoteWrite(server.url, series('nanos', [1, 2], step))).status, 204);
  }
  const own = await sql(server.url, 'SELECT host, at, reading FROM own ORDER BY host, at');
  t.same(rowsOf(own.body), [
    ['h1', T0, 100],
    ['h1', T0 + 1000, 101],
    ['h2', T0, 200],
    ['h2', T0 + 1000, 201],
  ]);
  const nanos = await sql(server.url, 'SELECT host, CAST(ts AS BIGINT), greptime_value FROM nanos ORDER BY host, ts');
  t.same(rowsOf(nanos.body), [
    ['h1', T0 * 1e6, 100],
    ['h1', (T0 + 1000) * 1e6, 101],
    ['h2', T0 * 1e6, 200],
    ['h2', (T0 + 1000) * 1e6, 201],
  ]);
  // A label named like the table's time index is refused, once the table's series are bound too.
  const clash = await remoteWrite(server.url, series('own', [1], 2, { at: 'x' }));
  t.equal(clash.status, 400, 'a label named like the time index');
  t.equal(rowsOf((await sql(server.url, 'SELECT count(*) FROM own')).body)[0]?.[0], 4, 'nothing of it written');
});

t.test('a schema change elsewhere keeps known series travelling by reference', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const hosts = Array.from({ length: 200 }, (_, i) => i);
  const pad = { pad: 'x'.repeat(200) };
  const walBytes = () => metricSum(server.url, 'shoaldb_wal_bytes_total');
  const wal0 = await walBytes();
  t.equal((await remoteWrite(server.url, series('kept', hosts, 0, pad))).status, 204);
  const first = (await walBytes()) - wal0;
  // Both decoders send the keys once.
  t.equal((await remoteWrite(server.url, series('kept', hosts, 1, pad))).status, 204);
  t.equal((await sql(server.url, 'CREATE TABLE other (ts TIMESTAMP TIME INDEX, v DOUBLE)')).status, 200);
  const wal2 = await walBytes();
  for (let step = 2; step < 6; step++) {
    t.equal((await remoteWrite(server.url, series('kept', hosts, step, pad))).status, 204);
  }
  const laterEach = ((await walBytes()) - wal2) / 4;
  t.ok(laterEach < first / 4, `after the change, requests still carry ids (${laterEach} bytes each vs ${first})`);
  const count = await sql(server.url, 'SELECT count(*), sum(greptime_value) FROM kept');
  const sum = [0, 1, 2, 3, 4, 5].reduce((n, step) => n + hosts.reduce((m, h) => m + h * 100 + step, 0), 0);
  t.same(rowsOf(count.body)[0], [1200, sum]);
});
