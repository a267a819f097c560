/**
 * Append-mode tables spread their rows over the shards (src/shared/partition.ts, `spreadsRows`):
 * a log table without tags is one series, which used to put all of its storage work on one shard.
 * What must hold: its rows land in every shard; SQL answers as before (counts, ORDER BY/LIMIT,
 * GROUP BY, RANGE); PromQL sees each series whole (raw selections joined in the router, no
 * series-local work pushed to shards that hold only part of a series); DELETE reaches every shard.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { remoteWrite } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

async function memtableRows(url: string): Promise<number[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: number[] = [];
  for (const line of text.split('\n')) {
    const m = /^shoaldb_memtable_rows\{shard="(\d+)"\} (\S+)/.exec(line);
    if (m) out[Number(m[1])] = Number(m[2]);
  }
  return out;
}

async function rows(server: TestServer, statement: string): Promise<string[]> {
  const res = await sql(server.url, statement);
  if (res.status !== 200) throw new Error(`${statement}: ${JSON.stringify(res.body)}`);
  return rowsOf(res.body).map((r) => r.join('|'));
}

async function promql(server: TestServer, path: string): Promise<unknown> {
  const res = await fetch(`${server.url}/v1/metricsapi/api/v1/${path}`);
  const body = (await res.json()) as { status: string; data: unknown };
  if (body.status !== 'success') throw new Error(JSON.stringify(body));
  return body.data;
}

t.test('a tagless append-mode table is written to every shard and reads back whole', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const create = "CREATE TABLE logs (ts TIMESTAMP TIME INDEX, msg STRING, n DOUBLE) WITH ('append_mode' = 'true')";
  t.equal((await sql(server.url, create)).status, 200);
  let n = 0;
  for (let request = 0; request < 8; request++) {
    const lines: string[] = [];
    for (let i = 0; i < 50; i++, n++) lines.push(`logs msg="line ${n}",n=${n} ${T0 + n}`);
    t.equal((await writeLines(server.url, lines.join('\n'))).status, 204);
  }
  const perShard = await memtableRows(server.url);
  t.equal(perShard.length, 2);
  t.ok(
    perShard.every((r) => r > 0),
    `rows in every shard (${perShard.join(', ')})`,
  );
  t.same(await rows(server, 'SELECT count(*), sum(n), min(n), max(n) FROM logs'), [`400|${(399 * 400) / 2}|0|399`]);
  t.same(await rows(server, 'SELECT n FROM logs ORDER BY ts DESC LIMIT 3'), ['399', '398', '397']);
  const range = await rows(server, "SELECT ts, count(n) RANGE '100ms' FROM logs ALIGN '100ms' ORDER BY ts");
  t.same(
    range.map((r) => r.split('|')[1]),
    ['100', '100', '100', '100'],
    'each window counts its rows once',
  );
  // A DELETE reaches the rows in every shard.
  t.equal((await sql(server.url, `DELETE FROM logs WHERE ts < ${T0 + 200}`)).status, 200);
  t.same(await rows(server, 'SELECT count(*), min(n) FROM logs'), ['200|200']);
  // And after a flush, from the segments of both shards.
  t.equal((await sql(server.url, "ADMIN flush_table('logs')")).status, 200);
  t.same(await rows(server, 'SELECT count(*), min(n) FROM logs'), ['200|200']);
});

t.test('PromQL sees a series spread over the shards whole', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const create =
    "CREATE TABLE am (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, v DOUBLE) WITH ('append_mode' = 'true')";
  t.equal((await sql(server.url, create)).status, 200);
  // One sample of each host every 10 s for 10 minutes, one request per step: the steps alternate
  // between the shards.
  for (let step = 0; step < 60; step++) {
    const lines = ['a', 'b'].map((h) => `am,host=${h} v=${step} ${T0 + step * 10_000}`).join('\n');
    t.equal((await writeLines(server.url, lines)).status, 204);
  }
  const perShard = await memtableRows(server.url);
  t.ok(
    perShard.every((r) => r > 0),
    `rows in every shard (${perShard.join(', ')})`,
  );
  const at = (T0 + 590_000) / 1000;
  const raw = (await promql(server, `query?query=am&time=${at}`)) as {
    result: Array<{ metric: object; value: [number, string] }>;
  };
  t.same(
    raw.result.map((r) => [r.metric, r.value[1]]),
    [
      [{ __name__: 'am', host: 'a' }, '59'],
      [{ __name__: 'am', host: 'b' }, '59'],
    ],
    'one series per host, its latest sample',
  );
  const range = (await promql(server, `query?query=${encodeURIComponent('count_over_time(am[10m])')}&time=${at}`)) as {
    result: Array<{ metric: object; value: [number, string] }>;
  };
  t.same(
    range.result.map((r) => r.value[1]),
    ['60', '60'],
    'every sample of the window, from both shards',
  );
  const summed = (await promql(
    server,
    `query?query=${encodeURIComponent('sum(sum_over_time(am[10m]))')}&time=${at}`,
  )) as {
    result: Array<{ value: [number, string] }>;
  };
  t.same(
    summed.result.map((r) => r.value[1]),
    [String(2 * ((59 * 60) / 2))],
  );
});

t.test('the direct write paths spread an append-mode table too', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  // Every column exists with its type, so these requests take the direct paths from the first.
  const lp = "CREATE TABLE lpa (ts TIMESTAMP(9) TIME INDEX, msg STRING, n DOUBLE) WITH ('append_mode' = 'true')";
  const rw =
    "CREATE TABLE rwa (greptime_timestamp TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, greptime_value DOUBLE) WITH ('append_mode' = 'true')";
  t.equal((await sql(server.url, lp)).status, 200);
  t.equal((await sql(server.url, rw)).status, 200);
  for (let request = 0; request < 6; request++) {
    const lines = Array.from({ length: 20 }, (_, i) => `lpa msg="m${request}",n=${i} ${T0 + request * 100 + i}`);
    t.equal((await writeLines(server.url, lines.join('\n'))).status, 204);
    const series = [
      { labels: { __name__: 'rwa', host: 'one' }, samples: [{ value: request, timestamp: T0 + request }] },
    ];
    t.equal((await remoteWrite(server.url, series)).status, 204);
  }
  // Each shard holds rows of both tables: after a flush, a segment directory of each.
  t.equal((await sql(server.url, "ADMIN flush_table('lpa')")).status, 200);
  t.equal((await sql(server.url, "ADMIN flush_table('rwa')")).status, 200);
  for (const shard of [0, 1]) {
    const dir = path.join(server.dataDir, 'shards', String(shard), 'seg');
    const tables = fs.existsSync(dir)
      ? fs.readdirSync(dir).filter((d) => fs.readdirSync(path.join(dir, d)).length > 0)
      : [];
    t.equal(tables.length, 2, `shard ${shard} holds segments of both tables (${tables.join(', ')})`);
  }
  t.same(await rows(server, 'SELECT count(*), sum(n) FROM lpa'), [`120|${6 * 190}`]);
  t.same(await rows(server, 'SELECT count(*), sum(greptime_value) FROM rwa'), ['6|15']);
});
