/**
 * GROUP BY ROLLUP / CUBE / GROUPING SETS and grouping() over the real server: rows written with
 * line protocol land in three shards, each shard groups its rows once per grouping set, and the
 * router merges the partial groups. Answers are checked against sums computed here, from the
 * memtables and again from flushed segments (where plain GROUP BY over tags reads series
 * statistics instead of rows).
 */
import t, { type Test } from 'tap';
import { rowsOf, type SqlBody, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const REGIONS = ['ap', 'eu', 'us'];
const HOSTS = ['h0', 'h1', 'h2', 'h3'];
const POINTS = 5;
let server: TestServer;

/** bytes written by (region, host) in the model, summed over its points. */
function bytesOf(region: string, host: string): number {
  const base = (REGIONS.indexOf(region) * 10 + HOSTS.indexOf(host)) * 100;
  let sum = 0;
  for (let i = 0; i < POINTS; i++) sum += base + i;
  return sum;
}

const sumOver = (regions: string[], hosts: string[]): number =>
  regions.reduce((a, r) => a + hosts.reduce((b, h) => b + bytesOf(r, h), 0), 0);

t.before(async () => {
  server = await startServer({ shards: 3 });
  const lines: string[] = [];
  for (const region of REGIONS)
    for (const host of HOSTS)
      for (let i = 0; i < POINTS; i++)
        lines.push(
          `req,region=${region},host=${host} bytes=${(REGIONS.indexOf(region) * 10 + HOSTS.indexOf(host)) * 100 + i}i ${T0 + i * 1000}`,
        );
  const res = await writeLines(server.url, lines.join('\n'));
  if (res.status !== 204) throw new Error(`write ${res.status}`);
});
t.teardown(() => server.stop());

async function body(statement: string): Promise<SqlBody> {
  const res = await sql(server.url, statement);
  if (res.status !== 200) throw new Error(`${statement}: ${res.text}`);
  return res.body;
}

async function rows(statement: string): Promise<unknown[][]> {
  return rowsOf(await body(statement));
}

/** Rows written per shard, from the shards' own counters. */
async function rowsPerShard(): Promise<number[]> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('shoaldb_shard_rows_written_total{'))
    .map((l) => Number(l.split(' ').pop()));
}

async function check(t: Test, stage: string): Promise<void> {
  const rollup = await body(
    'SELECT region, host, count(*), sum(bytes), grouping(region), grouping(region, host) FROM req GROUP BY ROLLUP (region, host) ORDER BY region, host',
  );
  t.same(
    rollup.output?.[0]?.records?.schema.column_schemas,
    [
      { name: 'region', data_type: 'String' },
      { name: 'host', data_type: 'String' },
      { name: 'count(*)', data_type: 'Int64' },
      { name: 'sum(req.bytes)', data_type: 'Int64' },
      { name: 'grouping(req.region)', data_type: 'Int32' },
      { name: 'grouping(req.region,req.host)', data_type: 'Int32' },
    ],
    `${stage}: ROLLUP column names and types`,
  );
  const expectedRollup: unknown[][] = [];
  for (const r of REGIONS) {
    for (const h of HOSTS) expectedRollup.push([r, h, POINTS, bytesOf(r, h), 0, 0]);
    expectedRollup.push([r, null, POINTS * HOSTS.length, sumOver([r], HOSTS), 0, 1]);
  }
  expectedRollup.push([null, null, POINTS * HOSTS.length * REGIONS.length, sumOver(REGIONS, HOSTS), 1, 3]);
  t.same(rowsOf(rollup), expectedRollup, `${stage}: ROLLUP rows`);

  t.same(
    await rows(
      'SELECT region, host, sum(bytes), grouping(region, host) AS g FROM req GROUP BY CUBE (region, host) HAVING grouping(region) = 1 ORDER BY g, host',
    ),
    [...HOSTS.map((h) => [null, h, sumOver(REGIONS, [h]), 2]), [null, null, sumOver(REGIONS, HOSTS), 3]],
    `${stage}: CUBE's host-only subtotals and grand total`,
  );
  t.equal(
    (await rows('SELECT count(*) FROM req GROUP BY CUBE (region, host)')).length,
    REGIONS.length * HOSTS.length + REGIONS.length + HOSTS.length + 1,
    `${stage}: CUBE has a row per group of every subset`,
  );

  t.same(
    await rows(
      'SELECT region, host, sum(bytes), grouping(region, host) AS g FROM req GROUP BY GROUPING SETS ((region), (host), ()) ORDER BY g, region, host LIMIT 4',
    ),
    [...REGIONS.map((r) => [r, null, sumOver([r], HOSTS), 1]), [null, 'h0', sumOver(REGIONS, ['h0']), 2]],
    `${stage}: GROUPING SETS with ORDER BY and LIMIT`,
  );
  t.same(
    await rows("SELECT host, count(*) FROM req WHERE region = 'none' GROUP BY ROLLUP (host)"),
    [[null, 0]],
    `${stage}: the grand total of an empty input`,
  );
}

t.test('in the memtables of all three shards', async (t) => {
  const perShard = await rowsPerShard();
  t.ok(perShard.length === 3 && perShard.every((n) => n > 0), `every shard holds rows: ${perShard.join(', ')}`);
  await check(t, 'memtable');
});

t.test('in flushed segments', async (t) => {
  t.equal((await sql(server.url, "ADMIN flush_table('req')")).status, 200);
  await check(t, 'segments');
});

t.test('grouping() of a column that is not grouped is a planning error', async (t) => {
  const res = await sql(server.url, 'SELECT grouping(host) FROM req GROUP BY ROLLUP (region)');
  t.equal(res.status, 400);
  t.same(res.body.code, 3000);
  t.equal(
    res.body.error,
    'Failed to plan SQL: Error during planning: Argument req.host to grouping function is not in grouping columns req.region',
  );
});
