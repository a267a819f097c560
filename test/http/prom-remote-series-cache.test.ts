/**
 * Remote write resolves series through a cache keyed by the label bytes as sent. Property test
 * against a plain model: random label sets, the same set in other label orders, with extra
 * empty-valued labels (the same as absent), spread over requests and shards, and again after a
 * restart (a fresh cache). What SQL reads back must be exactly the model: every sample attached
 * to its own series, no two label sets merged, no set split.
 */
import t from 'tap';
import { prng } from '../helpers/prng.js';
import { remoteWrite, type TestSeries } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer, type TestServer } from '../helpers/server.js';

const METRICS = ['cache_a', 'cache_b'];
const NAMES = ['a', 'b', 'c', 'd', 'e'];
const VALUES = ['', 'x', 'y', 'xy', 'yx', 'x\u00e9'];
const T0 = 1_700_000_000_000;

/** The series a label set means: metric and its non-empty labels, sorted. */
function canonical(metric: string, labels: Array<[string, string]>): string {
  const tags = labels.filter(([, v]) => v !== '').sort((p, q) => (p[0] < q[0] ? -1 : 1));
  return `${metric}{${tags.map(([n, v]) => `${n}=${v}`).join(',')}}`;
}

function shuffled<T>(items: T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

async function storedSamples(url: string): Promise<string[]> {
  const out: string[] = [];
  for (const metric of METRICS) {
    const res = await sql(url, `SELECT * FROM ${metric}`);
    if (res.status !== 200) continue;
    const columns = (res.body.output?.[0]?.records?.schema.column_schemas ?? []).map((c) => c.name);
    for (const row of rowsOf(res.body)) {
      const labels: Array<[string, string]> = [];
      let ts = 0;
      let value = 0;
      columns.forEach((name, i) => {
        if (name === 'greptime_timestamp') ts = row[i] as number;
        else if (name === 'greptime_value') value = row[i] as number;
        else if (row[i] !== null) labels.push([name, row[i] as string]);
      });
      out.push(`${canonical(metric, labels)}@${ts}=${value}`);
    }
  }
  return out.sort();
}

t.test('the series cache maps every label set to its own series, before and after a restart', async (t) => {
  const rand = prng(Number(process.env.SERIES_CACHE_SEED ?? 11));
  // Label sets: random names and values; about a third are re-sent in another order or with an
  // empty extra label, which must land in the same series.
  const sets: Array<{ metric: string; labels: Array<[string, string]> }> = [];
  for (let i = 0; i < 120; i++) {
    const metric = METRICS[Math.floor(rand() * METRICS.length)] as string;
    const labels: Array<[string, string]> = [];
    for (const name of NAMES)
      if (rand() < 0.6) labels.push([name, VALUES[Math.floor(rand() * VALUES.length)] as string]);
    sets.push({ metric, labels });
  }
  const model: string[] = [];
  let clock = 0;
  const send = async (server: TestServer, rounds: number) => {
    for (let round = 0; round < rounds; round++) {
      const series: TestSeries[] = [];
      for (const set of sets) {
        if (rand() < 0.3) continue;
        let labels = set.labels;
        const variant = rand();
        if (variant < 0.3) labels = shuffled(labels, rand);
        else if (variant < 0.45) {
          const free = NAMES.filter((n) => !labels.some(([name]) => name === n));
          if (free.length > 0) labels = [...labels, [free[0] as string, '']];
        }
        const ts = T0 + ++clock * 1000;
        const value = Math.round(rand() * 1000) / 8;
        series.push({ labels: [['__name__', set.metric], ...labels], samples: [{ value, timestamp: ts }] });
        model.push(`${canonical(set.metric, labels)}@${ts}=${value}`);
      }
      const res = await remoteWrite(server.url, series);
      t.equal(res.status, 204, res.text);
    }
  };

  let server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  await send(server, 6);
  t.same(await storedSamples(server.url), [...model].sort(), 'every sample in its own series');

  // The cache holds one entry per distinct label byte string sent (orders and empty extras are
  // other bytes), and /metrics says how many.
  const metricsText = await (await fetch(`${server.url}/metrics`)).text();
  const cached = /shoaldb_series_cache_entries\{protocol="metricsapi-write"\} (\d+)/.exec(metricsText);
  t.ok(
    cached && Number(cached[1]) >= new Set(model.map((m) => m.slice(0, m.indexOf('@')))).size,
    'cache size in /metrics',
  );
  t.ok(cached && Number(cached[1]) <= model.length, 'at most one entry per series sent');

  await server.stop();
  server = await startServer({ dataDir: server.dataDir, shards: 2 });
  await send(server, 4);
  t.same(await storedSamples(server.url), [...model].sort(), 'after a restart, with a fresh cache');

  const distinct = new Set(model.map((m) => m.slice(0, m.indexOf('@'))));
  let stored = 0;
  for (const metric of METRICS) {
    const tags = (await sql(server.url, `SHOW COLUMNS FROM ${metric}`)).status === 200;
    if (!tags) continue;
    const res = await sql(server.url, `SELECT count(*) FROM (SELECT DISTINCT a, b, c, d, e FROM ${metric})`);
    t.equal(res.status, 200, JSON.stringify(res.body));
    stored += Number(rowsOf(res.body)[0]?.[0] ?? 0);
  }
  t.equal(stored, distinct.size, 'as many series as distinct label sets');
});
