/**
 * Queries that name a tag value reach only the shards whose tag filter may hold it
 * (src/router/shard-pruning.ts, src/shared/tag-filter.ts): over real HTTP with two shards, each
 * one-host PromQL or SQL query leaves one shard out (`shoaldb_query_shard_tasks_total`), and the
 * answers stay exact for series in segments, in the memtable, replayed from the WAL after a
 * restart, and written after it; queries without such a value still reach every shard.
 */
import t, { type Test } from 'tap';
import { rowsOf, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const HOSTS = 120;
const POINTS = 5;
const T0 = 1_700_000_000_000;
const EVAL_S = (T0 + 60_000) / 1000;

interface PromAnswer {
  status: string;
  data: { resultType: string; result: Array<{ metric: Record<string, string>; values?: Array<[number, string]> }> };
}

function lines(first: number, end: number): string {
  const out: string[] = [];
  for (let h = first; h < end; h++) {
    for (let k = 0; k < POINTS; k++) out.push(`sp,host=h${h},dc=d${h % 3} v=${h} ${T0 + k * 1000}`);
  }
  return out.join('\n');
}

async function tasks(url: string): Promise<{ sent: number; skipped: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (outcome: string): number =>
    Number(
      new RegExp(`^shoaldb_query_shard_tasks_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN,
    );
  return { sent: read('sent'), skipped: read('skipped') };
}

async function prom(url: string, path: string, params: Record<string, string>): Promise<PromAnswer> {
  const res = await fetch(`${url}/v1/metricsapi/api/v1/${path}?${new URLSearchParams(params)}`);
  if (res.status !== 200) throw new Error(`${path} ${params.query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as PromAnswer;
}

/** Asks one host by PromQL and by SQL; checks both answers and that each query left one shard out. */
async function checkHost(t: Test, url: string, h: number): Promise<void> {
  const before = await tasks(url);
  const selected = await prom(url, 'query', { query: `sp{host="h${h}"}[5m]`, time: String(EVAL_S) });
  const series = selected.data.result;
  t.equal(series.length, 1, `h${h}: one series`);
  t.same(
    series[0]?.values?.map(([, v]) => Number(v)),
    Array(POINTS).fill(h),
    `h${h}: its samples`,
  );
  const counted = await sql(url, `SELECT count(*), sum(v) FROM sp WHERE host = 'h${h}'`);
  t.same(rowsOf(counted.body), [[POINTS, POINTS * h]], `h${h}: SQL count and sum`);
  // The one shard's rows come back in final order, without the tags its sort breaks ties with.
  const latest = await sql(
    url,
    `SELECT greptime_timestamp, v FROM sp WHERE host = 'h${h}' ORDER BY greptime_timestamp DESC LIMIT 2 OFFSET 1`,
  );
  t.same(
    rowsOf(latest.body),
    [3, 2].map((k) => [(T0 + k * 1000) * 1e6, h]),
    `h${h}: SQL rows in order, offset and limit applied`,
  );
  const after = await tasks(url);
  t.equal(after.skipped - before.skipped, 3, `h${h}: each query left one shard out`);
  t.equal(after.sent - before.sent, 3, `h${h}: each query reached one shard`);
}

let server: TestServer;
t.before(async () => {
  server = await startServer({ shards: 2 });
});
t.teardown(() => server.stop());

t.test('one-host queries reach one shard and answer exactly, flushed or not', async (t) => {
  t.equal((await writeLines(server.url, lines(0, HOSTS / 2))).status, 204);
  t.equal((await sql(server.url, "ADMIN flush_table('sp')")).status, 200);
  t.equal((await writeLines(server.url, lines(HOSTS / 2, HOSTS))).status, 204);
  for (let h = 0; h < HOSTS; h += 7) await checkHost(t, server.url, h);
});

t.test('queries without a required value reach every shard', async (t) => {
  const before = await tasks(server.url);
  const all = await prom(server.url, 'query', { query: 'count(sp)', time: String(EVAL_S) });
  t.equal(all.data.result[0]?.values, undefined);
  t.same((all.data.result[0] as unknown as { value: [number, string] }).value[1], String(HOSTS));
  const regex = await prom(server.url, 'query', { query: 'sp{host=~"h1|h2"}[5m]', time: String(EVAL_S) });
  t.same(regex.data.result.map((s) => s.metric.host).sort(), ['h1', 'h2']);
  const counted = await sql(server.url, 'SELECT count(*) FROM sp');
  t.same(rowsOf(counted.body), [[HOSTS * POINTS]]);
  const after = await tasks(server.url);
  t.equal(after.skipped, before.skipped, 'none left out');
  t.equal(after.sent - before.sent, 6, 'three queries, two shards each');
});

t.test('a value no shard holds asks one shard and answers empty', async (t) => {
  const before = await tasks(server.url);
  const none = await prom(server.url, 'query', { query: 'sp{host="nowhere"}[5m]', time: String(EVAL_S) });
  t.same(none.data.result, []);
  const range = await prom(server.url, 'query_range', {
    query: 'sum(rate(sp{host="nowhere"}[1m]))',
    start: String(T0 / 1000),
    end: String(EVAL_S),
    step: '15',
  });
  t.same(range.data.result, []);
  t.same(rowsOf((await sql(server.url, "SELECT count(*) FROM sp WHERE host IN ('nowhere', 'nor-here')")).body), [[0]]);
  const after = await tasks(server.url);
  t.equal(after.sent - before.sent, 3, 'one shard each, so the answers keep their shape');
  t.equal(after.skipped - before.skipped, 3);
});

t.test('a pushed-down range query over one host reaches one shard', async (t) => {
  const before = await tasks(server.url);
  const range = await prom(server.url, 'query_range', {
    query: 'max(sp{host="h11"})',
    start: String(T0 / 1000),
    end: String((T0 + 4000) / 1000),
    step: '1',
  });
  t.same(
    range.data.result[0]?.values?.map(([, v]) => Number(v)),
    Array(POINTS).fill(11),
  );
  const after = await tasks(server.url);
  t.equal(after.skipped - before.skipped, 1);
});

t.test('after a restart: segments and the replayed WAL are in the filter, and new series at once', async (t) => {
  const dataDir = server.dataDir;
  await server.stop();
  server = await startServer({ shards: 2, dataDir });
  for (let h = 3; h < HOSTS; h += 9) await checkHost(t, server.url, h);
  t.equal((await writeLines(server.url, lines(HOSTS, HOSTS + 4))).status, 204);
  for (let h = HOSTS; h < HOSTS + 4; h++) await checkHost(t, server.url, h);
});
