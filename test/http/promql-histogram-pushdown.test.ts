/**
 * PromQL pushdown over native histograms, over real HTTP: integer and float histogram counters
 * (several schemas, counter resets, a gap, a staleness marker) are written by remote write to a
 * four-shard server; `query_range` answers for rate, increase, sum, sum by, avg and
 * histogram_quantile come back from the shards as packed step series and partial histogram sums
 * (no raw samples on `shoaldb_promql_shard_samples_returned_total`), and equal, JSON for JSON, what
 * the same server answers over the same data directory with `SHOALDB_PROMQL_PUSHDOWN=off` (the
 * router evaluating everything from raw samples). Sums add up in another order across shards:
 * their numbers are compared within 1e-9 relative.
 */
import t from 'tap';
import { staleNaN } from '../../src/query/promql/types.js';
import { prng } from '../helpers/prng.js';
import { type HistogramSpec, histogramMessage, writeBody } from '../helpers/prom-histograms.js';
import { postRemoteWrite } from '../helpers/prom-remote.js';
import { type Traffic, traffic } from '../helpers/promql-traffic.js';
import { startServer, tempDir } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const SCRAPE_MS = 15_000;
const SAMPLES = 120;
const API = '/v1/metricsapi/api/v1';

/** Bucket layouts by series: [float counts, schema, positive bucket indexes]. */
const LAYOUTS: Array<[boolean, number, number[]]> = [
  [false, 0, [0, 1, 2, 4]],
  [true, 1, [-2, 0, 3, 5]],
  [false, 3, [7, 8, 12, 20]],
  [true, -1, [0, 1, 2]],
];

/** The remote write `TimeSeries` objects of 24 histogram counters of `rpc_seconds`. */
function timeseries(): unknown[] {
  const rand = prng(7);
  const out: unknown[] = [];
  for (let i = 0; i < 24; i++) {
    const [float, schema, indexes] = LAYOUTS[i % LAYOUTS.length] as [boolean, number, number[]];
    let counts = indexes.map(() => 0);
    const histograms: unknown[] = [];
    const samples: Array<{ value: number; timestamp: number }> = [];
    const gap = i % 5 === 0 ? [40, 55] : [-1, -1];
    const staleAt = i % 7 === 3 ? 90 : -1;
    for (let k = 0; k < SAMPLES; k++) {
      const timestamp = T0 + k * SCRAPE_MS;
      if (k >= (gap[0] as number) && k < (gap[1] as number)) continue;
      if (k === staleAt) {
        samples.push({ value: staleNaN(), timestamp });
        break;
      }
      if (k === 60 + i) counts = counts.map(() => 0);
      counts = counts.map((c) => c + (float ? Math.floor(rand() * 40) / 4 : Math.floor(rand() * 10)));
      const positive = indexes.map((index, b): [number, number] => [index, counts[b] as number]);
      const total = counts.reduce((s, c) => s + c, 0);
      const spec: HistogramSpec = {
        float,
        count: total,
        sum: total * 0.75,
        schema,
        zeroThreshold: 0.001,
        zeroCount: 0,
        negative: [],
        positive,
        timestamp,
      };
      histograms.push(histogramMessage(spec));
    }
    out.push({
      labels: [
        { name: '__name__', value: 'rpc_seconds' },
        { name: 'job', value: `j${i % 3}` },
        { name: 'instance', value: `i${i}` },
      ],
      histograms,
      samples,
    });
  }
  return out;
}

const QUERIES: Array<[string, 'step' | 'partial']> = [
  ['rate(rpc_seconds[5m])', 'step'],
  ['increase(rpc_seconds[5m])', 'step'],
  ['sum(rate(rpc_seconds[5m]))', 'partial'],
  ['sum by (job) (rate(rpc_seconds[5m]))', 'partial'],
  ['avg(rate(rpc_seconds[5m]))', 'partial'],
  ['avg by (job) (increase(rpc_seconds[10m]))', 'partial'],
  ['count by (job) (rate(rpc_seconds[5m]))', 'partial'],
  ['histogram_quantile(0.9, sum(rate(rpc_seconds[5m])))', 'partial'],
  ['histogram_quantile(0.5, sum by (job) (rate(rpc_seconds[5m])))', 'partial'],
];

async function queryRange(url: string, query: string): Promise<{ body: unknown; moved: Traffic }> {
  const before = await traffic(url);
  const params = new URLSearchParams({
    query,
    start: String((T0 + 5 * 60_000) / 1000),
    end: String((T0 + (SAMPLES - 1) * SCRAPE_MS) / 1000),
    step: '20',
  });
  const res = await fetch(`${url}${API}/query_range?${params}`);
  const body = (await res.json()) as { status: string; error?: string };
  if (body.status !== 'success') throw new Error(`${query}: ${body.error}`);
  const after = await traffic(url);
  return {
    body,
    moved: { raw: after.raw - before.raw, step: after.step - before.step, partial: after.partial - before.partial },
  };
}

/** Paths where two JSON trees differ; numbers (and numeric strings) within `tolerance` relative. */
function differences(a: unknown, b: unknown, tolerance: number, path = '$'): string[] {
  const numeric = (x: unknown): number | null =>
    typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' && !Number.isNaN(Number(x)) ? Number(x) : null;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== null && y !== null) {
    if (x === y || Math.abs(x - y) <= tolerance * Math.max(Math.abs(x), Math.abs(y), 1)) return [];
    return [`${path}: ${String(a)} vs ${String(b)}`];
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [`${path}: length ${a.length} vs ${b.length}`];
    return a.flatMap((v, i) => differences(v, b[i], tolerance, `${path}[${i}]`));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) =>
      differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tolerance, `${path}.${k}`),
    );
  }
  return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
}

t.test('histogram queries over HTTP run in the shards and answer what the router alone answers', async (t) => {
  const dataDir = tempDir();
  const pushed = new Map<string, unknown>();
  {
    const server = await startServer({ shards: 4, dataDir });
    t.teardown(() => server.stop());
    t.equal((await postRemoteWrite(server.url, writeBody(timeseries()))).status, 204);
    for (const [query, kind] of QUERIES) {
      const { body, moved } = await queryRange(server.url, query);
      pushed.set(query, body);
      t.equal(moved.raw, 0, `${query}: no raw samples left the shards`);
      t.ok(moved[kind] > 0, `${query}: the shards answered ${moved[kind]} ${kind} values`);
    }
    const histograms = JSON.stringify(pushed.get('sum(rate(rpc_seconds[5m]))')).match(/"histograms"/g)?.length ?? 0;
    t.ok(histograms > 0, 'the answers hold native histograms');
    await server.stop();
  }
  const server = await startServer({ shards: 4, dataDir, env: { ...process.env, SHOALDB_PROMQL_PUSHDOWN: 'off' } });
  t.teardown(() => server.stop());
  for (const [query, kind] of QUERIES) {
    const { body, moved } = await queryRange(server.url, query);
    t.ok(moved.raw > 0 && moved.step + moved.partial === 0, `${query}: without pushdown the router reads raw samples`);
    const diff = differences(pushed.get(query), body, kind === 'step' ? 0 : 1e-9);
    t.same(diff.slice(0, 8), [], `${query}: pushed and router-only answers are equal`);
  }
});
