/**
 * The PromQL query limits of `[query]` over real HTTP: `max_points_per_series` refuses a range
 * grid with 400 `bad_data` in Prometheus' words (API, TQL, /v1/pql); `max_samples` refuses with
 * Prometheus' 422 `execution` (step samples in the shards' evaluators, raw samples of a
 * selection); `max_series` refuses a selection matching more series, in a shard or summed over
 * both shards, on every PromQL path (instant and range queries, pushed down or not, TQL, remote
 * read). Every refusal is counted on /metrics, and the server keeps answering.
 */
import t, { type Test } from 'tap';
import { shardOfSeries, tableHash } from '../../src/shared/partition.js';
import { postRemoteRead, readRequestBytes, remoteRead, snappyBlock } from '../helpers/prom-remote.js';
import { sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const SHARDS = 2;
/** Seconds; every series has a sample each second from T0 to T0 + SAMPLES - 1. */
const T0 = 1_700_000_000;
const SAMPLES = 120;
const LAST = T0 + SAMPLES - 1;
const TOO_MANY_SAMPLES = 'query processing would load too many samples into memory in query execution';

/** Host names by the shard their series of `m` hash to: 10 per shard, 20 series in all. */
const HOSTS: string[][] = (() => {
  const byShard: string[][] = Array.from({ length: SHARDS }, () => []);
  const base = tableHash('public', 'm');
  for (let i = 0; byShard.some((hosts) => hosts.length < 10); i++) {
    const host = `h${i}`;
    const hosts = byShard[shardOfSeries(base, ['host'], [host], SHARDS)] as string[];
    if (hosts.length < 10) hosts.push(host);
  }
  return byShard;
})();
const [SHARD0, SHARD1] = HOSTS as [string[], string[]];
const ALL_HOSTS = HOSTS.flat();

function tooManySeries(max: number): string {
  return `query selects more than ${max} series (query.max_series); narrow its selectors`;
}

function hostsRegex(hosts: readonly string[]): string {
  return `m{host=~"${hosts.join('|')}"}`;
}

async function start(t: Test, queryToml: string): Promise<TestServer> {
  const server = await startServer({ shards: SHARDS, extraToml: `[query]\n${queryToml}` });
  t.teardown(() => server.stop());
  const lines: string[] = [];
  for (const host of ALL_HOSTS) for (let s = 0; s < SAMPLES; s++) lines.push(`m,host=${host} v=${s} ${T0 + s}`);
  const written = await writeLines(server.url, lines.join('\n'), 'db=public&precision=s');
  t.equal(written.status, 204, `20 series written: ${written.text}`);
  return server;
}

interface PromAnswer {
  status: number;
  body: {
    status: string;
    errorType?: string;
    error?: string;
    data?: { resultType: string; result: Array<{ metric: Record<string, string>; values?: unknown[] }> };
  };
}

async function prom(server: TestServer, path: 'query' | 'query_range', params: Record<string, string>) {
  const res = await fetch(`${server.url}/v1/metricsapi/api/v1/${path}?${new URLSearchParams(params)}`);
  return { status: res.status, body: (await res.json()) as PromAnswer['body'] };
}

function instant(server: TestServer, query: string): Promise<PromAnswer> {
  return prom(server, 'query', { query, time: String(LAST) });
}

function range(server: TestServer, query: string, startS: number, endS: number, step = '1'): Promise<PromAnswer> {
  return prom(server, 'query_range', { query, start: String(startS), end: String(endS), step });
}

function isPromError(t: Test, res: PromAnswer, status: number, errorType: string, error: string, what: string): void {
  t.equal(res.status, status, `${what}: status`);
  t.same(res.body, { status: 'error', errorType, error }, `${what}: body`);
}

/** A query within every limit still answers after a refusal. */
async function stillServes(t: Test, server: TestServer): Promise<void> {
  const res = await instant(server, `m{host="${SHARD0[0]}"}`);
  t.equal(res.status, 200, 'the server still answers a normal query');
  t.same(
    res.body.data?.result.map((r) => r.metric),
    [{ __name__: 'm', host: SHARD0[0] }],
  );
}

async function rejected(server: TestServer, reason: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const match = text.match(new RegExp(`^shoaldb_requests_rejected_total\\{reason="${reason}"\\} (\\d+)$`, 'm'));
  return match ? Number(match[1]) : 0;
}

t.test('query.max_points_per_series bounds range queries on the API, in TQL and /v1/pql', async (t) => {
  const server = await start(t, 'max_points_per_series = 100');
  const message =
    'exceeded maximum resolution of 100 points per timeseries. Try decreasing the query resolution (?step=XX)';
  const over = await range(server, 'm', T0, T0 + 101);
  isPromError(t, over, 400, 'bad_data', message, '101 steps past the first');
  await stillServes(t, server);
  const at = await range(server, 'm', T0, T0 + 100);
  t.equal(at.status, 200, '100 steps past the first are allowed');
  t.equal(at.body.data?.result.length, 20);
  t.equal(at.body.data?.result[0]?.values?.length, 101);

  const tql = await sql(server.url, `TQL EVAL (${T0}, ${T0 + 101}, '1s') m`);
  t.equal(tql.status, 400, 'TQL past the bound');
  t.equal(tql.body.error, message);
  const tqlAt = await sql(server.url, `TQL EVAL (${T0}, ${T0 + 100}, '1s') m{host="${SHARD0[0]}"}`);
  t.equal(tqlAt.status, 200, 'TQL at the bound');
  t.equal(tqlAt.body.output?.[0]?.records?.total_rows, 101);

  const pql = await fetch(
    `${server.url}/v1/pql?${new URLSearchParams({ query: 'm', start: String(T0), end: String(T0 + 101), step: '1s' })}`,
  );
  t.equal(pql.status, 400);
  t.equal(((await pql.json()) as { error: string }).error, message);
  t.equal(await rejected(server, 'max_points'), 3, 'each refusal is counted');
  await stillServes(t, server);
});

t.test('query.max_samples refuses with Prometheus 422 execution and counts the refusal', async (t) => {
  const server = await start(t, 'max_samples = 1000');
  // 101 steps × 10 series in each shard's evaluator.
  const grid = await range(server, 'm', T0, T0 + 100);
  isPromError(t, grid, 422, 'execution', TOO_MANY_SAMPLES, 'step samples of a range query');
  await stillServes(t, server);
  const one = await range(server, `m{host="${SHARD1[0]}"}`, T0, T0 + 100);
  t.equal(one.status, 200, 'one series on the same grid fits');
  t.equal(one.body.data?.result[0]?.values?.length, 101);

  // 10 series × 120 raw samples in each shard, pushed down and not.
  isPromError(t, await instant(server, 'count_over_time(m[5m])'), 422, 'execution', TOO_MANY_SAMPLES, 'raw samples');
  isPromError(t, await instant(server, 'm[5m]'), 422, 'execution', TOO_MANY_SAMPLES, 'raw samples of a matrix');
  await stillServes(t, server);
  const small = await instant(server, `count_over_time(m{host=~"${SHARD0.slice(0, 2).join('|')}"}[5m])`);
  t.equal(small.status, 200, '240 raw samples fit');
  t.same(small.body.data?.result.map((r) => r.metric.host).sort(), SHARD0.slice(0, 2).sort());

  const tql = await sql(server.url, `TQL EVAL (${T0}, ${T0 + 100}, '1s') m`);
  t.equal(tql.status, 500, 'TQL is refused');
  t.equal(tql.body.code, 6000);
  t.equal(tql.body.error, TOO_MANY_SAMPLES);
  t.ok((await rejected(server, 'max_samples')) >= 4, 'refusals are counted where they happen (the shards)');
  await stillServes(t, server);
});

t.test('query.max_series refuses a selection past it on every PromQL path', async (t) => {
  const server = await start(t, 'max_series = 5');
  const message = tooManySeries(5);
  isPromError(t, await instant(server, 'm'), 422, 'execution', message, 'instant selector (pushed down)');
  await stillServes(t, server);
  isPromError(t, await instant(server, 'm[1m]'), 422, 'execution', message, 'matrix selector (raw select)');
  isPromError(t, await instant(server, 'sum(m)'), 422, 'execution', message, 'aggregation (partial)');
  isPromError(t, await range(server, 'rate(m[1m])', T0 + 60, LAST, '10'), 422, 'execution', message, 'range query');
  await stillServes(t, server);

  const three = [SHARD0[0], SHARD0[1], SHARD1[0]] as string[];
  const fits = await instant(server, hostsRegex(three));
  t.equal(fits.status, 200, 'a selector matching 3 series answers');
  t.same(fits.body.data?.result.map((r) => r.metric.host).sort(), [...three].sort());
  const fitsRange = await range(server, `sum(${hostsRegex(three)})`, T0, LAST, '10');
  t.equal(fitsRange.status, 200);
  t.same(fitsRange.body.data?.result.length, 1);

  const tql = await sql(server.url, `TQL EVAL (${T0}, ${LAST}, '10s') m`);
  t.equal(tql.status, 500, 'TQL is refused');
  t.equal(tql.body.code, 6000);
  t.equal(tql.body.error, message);
  const tqlFits = await sql(server.url, `TQL EVAL (${T0}, ${LAST}, '10s') ${hostsRegex(three)}`);
  t.equal(tqlFits.status, 200, 'TQL of 3 series answers');

  const read = await postRemoteRead(
    server.url,
    snappyBlock(readRequestBytes([{ start: T0 * 1000, end: LAST * 1000, matchers: [['__name__', 'EQ', 'm']] }])),
  );
  t.equal(read.status, 500, 'remote read is refused');
  t.match(new TextDecoder().decode(read.body), tooManySeries(5));
  const readFits = await remoteRead(server.url, [
    { start: T0 * 1000, end: LAST * 1000, matchers: [['host', 'RE', three.join('|')]] },
  ]);
  t.equal(readFits[0]?.length, 3, 'remote read of 3 series answers');
  t.ok((await rejected(server, 'max_series')) >= 6, 'refusals are counted');
  await stillServes(t, server);
});

t.test('query.max_series bounds the sum over the shards when each shard is within it', async (t) => {
  const server = await start(t, 'max_series = 12');
  const message = tooManySeries(12);
  t.equal(SHARD0.length + SHARD1.length, 20, '10 series in each shard');
  const before = await rejected(server, 'max_series');
  isPromError(t, await instant(server, 'm'), 422, 'execution', message, 'instant selector (pushed down)');
  isPromError(t, await instant(server, 'm[1m]'), 422, 'execution', message, 'matrix selector (raw select)');
  isPromError(t, await instant(server, 'sum(m)'), 422, 'execution', message, 'aggregation (partial)');
  isPromError(
    t,
    await range(server, 'sum by (host) (rate(m[1m]))', T0 + 60, LAST, '10'),
    422,
    'execution',
    message,
    'range query',
  );
  await stillServes(t, server);
  // 7 + 6: neither shard passes 12, their sum does.
  const thirteen = [...SHARD0.slice(0, 7), ...SHARD1.slice(0, 6)];
  isPromError(t, await instant(server, hostsRegex(thirteen)), 422, 'execution', message, '7 + 6 series');
  const twelve = [...SHARD0.slice(0, 6), ...SHARD1.slice(0, 6)];
  const fits = await instant(server, `sum(${hostsRegex(twelve)})`);
  t.equal(fits.status, 200, '6 + 6 series answer');
  t.same(fits.body.data?.result, [{ metric: {}, value: [LAST, String(12 * (SAMPLES - 1))] }]);

  const tql = await sql(server.url, `TQL EVAL (${T0}, ${LAST}, '10s') ${hostsRegex(thirteen)}`);
  t.equal(tql.status, 500, 'TQL is refused');
  t.equal(tql.body.error, message);
  t.equal(await rejected(server, 'max_series'), before + 6, 'the router counts each refusal once');
  await stillServes(t, server);
});
