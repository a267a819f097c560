/**
 * PromQL pushdown gives the answers of the unpushed evaluation. Randomized series (counters with
 * resets, gauges, NaNs, staleness markers, series that start late or stop, label sets that differ
 * between series of one metric, values near the float64 limit) are written into three real
 * `ShardStore`s, partitioned by (table, tag set) as the router does; every query runs once with
 * pushdown and once without, over the same catalog and stores, with every shard answer passing
 * through a structured clone with transfer as it does between worker and router.
 *
 * Values must be identical, except for aggregations whose partial states add up floats in another
 * order (sum, avg, stddev, stdvar over several shards): those are compared within 1e-9 relative
 * (or 1e-9 absolute near zero), and the test says which queries those are.
 */
import t from 'tap';
import { rangeQuery } from '../../../src/query/promql/engine.js';
import { PromqlError, staleNaN } from '../../../src/query/promql/types.js';
import { prng } from '../../helpers/prng.js';
import { comparePushdown, EXACT, type PushdownEnv, SUMMED, sourceOf } from './helpers/pushdown-compare.js';
import { type StoredMetric, type StoredSample, storeMetrics } from './helpers/pushdown-stores.js';

const SHARDS = 3;
const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const HOURS_OF_DATA = 2;
const SCRAPE_MS = 15_000;

interface SeriesSpec {
  tags: Record<string, string>;
  /** Value at sample index i (time t); null = no sample. */
  value: (i: number, t: number) => number | null;
}

interface MetricSpec {
  name: string;
  tags: string[];
  series: SeriesSpec[];
}

const SEED = Number(process.env.PROMQL_DISTRIBUTE_SEED ?? 20240611);
const rand = prng(SEED);

function metrics(): MetricSpec[] {
  const out: MetricSpec[] = [];
  const samples = (HOURS_OF_DATA * 60 * MINUTE) / SCRAPE_MS;
  // Counters: resets, late starts, early stops ending in a staleness marker, rare NaNs.
  const requests: SeriesSpec[] = [];
  for (const job of ['api', 'db', 'web']) {
    for (let i = 0; i < 8; i++) {
      for (const method of ['get', 'post']) {
        const startAt = rand() < 0.2 ? Math.floor(rand() * samples * 0.5) : 0;
        const stopAt = rand() < 0.2 ? Math.floor(samples * (0.5 + rand() * 0.5)) : samples + 1;
        const rate = 1 + rand() * 20;
        let total = rand() * 1000;
        requests.push({
          tags: { job, instance: `${job}-${i}:9100`, method },
          value: (k) => {
            if (k < startAt || k > stopAt) return null;
            if (k === stopAt) return staleNaN();
            if (rand() < 0.01) total = 0;
            total += rate * (0.5 + rand());
            return rand() < 0.005 ? Number.NaN : total;
          },
        });
      }
    }
  }
  out.push({ name: 'http_requests_total', tags: ['job', 'instance', 'method'], series: requests });
  // Gauges whose series have different label sets (zone only on some), no NaN.
  const memory: SeriesSpec[] = [];
  for (const job of ['api', 'db', 'web']) {
    for (let i = 0; i < 7; i++) {
      const base = 10 + rand() * 90;
      const tags: Record<string, string> = { job, instance: `${job}-${i}:9100` };
      if (i % 3 === 0) tags.zone = `z${i % 2}`;
      memory.push({ tags, value: () => base + rand() * 20 });
    }
  }
  out.push({ name: 'mem_bytes', tags: ['job', 'instance', 'zone'], series: memory });
  // A gauge with NaNs and staleness markers in the middle, for *_over_time and NaN handling.
  const temperature: SeriesSpec[] = [];
  for (let r = 0; r < 9; r++) {
    const gapFrom = Math.floor(rand() * samples);
    temperature.push({
      tags: { room: `r${r}`, floor: `f${r % 3}` },
      value: (k) => {
        if (k === gapFrom) return staleNaN();
        if (k > gapFrom && k < gapFrom + 30) return null;
        return rand() < 0.02 ? Number.NaN : 15 + rand() * 10;
      },
    });
  }
  out.push({ name: 'temp_celsius', tags: ['room', 'floor'], series: temperature });
  // 0/1 values for count_values.
  const up: SeriesSpec[] = [];
  for (const job of ['api', 'db']) {
    for (let i = 0; i < 10; i++)
      up.push({ tags: { job, instance: `${job}-${i}` }, value: () => (rand() < 0.8 ? 1 : 0) });
  }
  out.push({ name: 'up', tags: ['job', 'instance'], series: up });
  // Values whose plain sum overflows: avg must switch to its incremental mean.
  const huge: SeriesSpec[] = [];
  for (let i = 0; i < 6; i++) huge.push({ tags: { i: String(i) }, value: () => 1.2e308 + rand() * 4e307 });
  out.push({ name: 'huge', tags: ['i'], series: huge });
  // Classic histogram buckets, for histogram_quantile over a partial sum.
  const buckets: SeriesSpec[] = [];
  for (let i = 0; i < 4; i++) {
    let counts = [0, 0, 0, 0];
    for (const [b, le] of ['0.1', '0.5', '1', '+Inf'].entries()) {
      buckets.push({
        tags: { instance: `i${i}`, le },
        value: () => {
          if (b === 0) {
            const observed = Math.floor(rand() * 10);
            counts = counts.map((c, k) => c + Math.floor((observed * (k + 1)) / 4));
          }
          return counts[b] as number;
        },
      });
    }
  }
  out.push({ name: 'req_seconds_bucket', tags: ['instance', 'le'], series: buckets });
  return out;
}

/** The metrics as stored samples; each series starts 0-3 s after T0 (a scraper's jitter). */
async function setUp(t: { teardown(fn: () => unknown): void }): Promise<PushdownEnv> {
  const samples = (HOURS_OF_DATA * 60 * MINUTE) / SCRAPE_MS;
  const stored: StoredMetric[] = metrics().map((metric) => ({
    name: metric.name,
    tags: metric.tags,
    series: metric.series.map((series) => {
      const jitter = Math.floor(rand() * 3000);
      const out: StoredSample[] = [];
      for (let k = 0; k <= samples; k++) {
        const ts = T0 + k * SCRAPE_MS + jitter;
        const value = series.value(k, ts);
        if (value !== null) out.push({ ts, value });
      }
      return { tags: series.tags, samples: out };
    }),
  }));
  return storeMetrics(t, SHARDS, stored);
}

/**
 * Queries and their tolerance: EXACT, or SUMMED for aggregations whose partial states are added
 * in another order than the unpushed evaluation adds series (sum, avg, stddev, stdvar, and what
 * is computed from them).
 */
const QUERIES: Array<[string, number]> = [
  // Series-local at the top: shipped as per-step values.
  ['http_requests_total', EXACT],
  ['mem_bytes offset 5m', EXACT],
  ['mem_bytes offset -1m', EXACT],
  [`mem_bytes @ ${(T0 + 40 * MINUTE) / 1000}`, EXACT],
  ['mem_bytes @ end()', EXACT],
  ['mem_bytes{zone=""}', EXACT],
  ['{__name__=~"mem_bytes|temp_celsius"}', EXACT],
  ['rate(http_requests_total[5m])', EXACT],
  ['irate(http_requests_total{method="get"}[2m])', EXACT],
  ['increase(http_requests_total[10m] offset 2m)', EXACT],
  ['rate(http_requests_total[5m] @ start())', EXACT],
  ['rate(mem_bytes[5m])', EXACT],
  ['resets(http_requests_total[20m])', EXACT],
  ['changes(up[10m])', EXACT],
  ['deriv(mem_bytes[10m])', EXACT],
  ['predict_linear(mem_bytes[10m], 600)', EXACT],
  ['avg_over_time(temp_celsius[5m])', EXACT],
  ['last_over_time(temp_celsius[5m])', EXACT],
  ['quantile_over_time(0.5, temp_celsius[10m])', EXACT],
  ['quantile_over_time(2, temp_celsius[10m])', EXACT],
  ['abs(mem_bytes - 60)', EXACT],
  ['clamp(mem_bytes, 30, 60)', EXACT],
  ['round(mem_bytes, 5)', EXACT],
  ['mem_bytes > 50', EXACT],
  ['mem_bytes > bool 50', EXACT],
  ['-mem_bytes', EXACT],
  ['2 * mem_bytes + time()', EXACT],
  ['timestamp(mem_bytes)', EXACT],
  [`timestamp(mem_bytes @ ${(T0 + 40 * MINUTE) / 1000} offset 1m)`, EXACT],
  ['temp_celsius', EXACT],
  ['max_over_time(rate(http_requests_total[2m])[10m:1m])', EXACT],
  ['min_over_time(temp_celsius[10m:90s] offset 3m)', EXACT],
  // Partial aggregations.
  ['sum(rate(http_requests_total[5m]))', SUMMED],
  ['sum by (job) (rate(http_requests_total[5m]))', SUMMED],
  ['sum without (instance) (rate(http_requests_total[5m]))', SUMMED],
  ['sum by (__name__) ({__name__=~"mem_bytes|temp_celsius"})', SUMMED],
  ['sum(temp_celsius)', SUMMED],
  ['avg by (job) (mem_bytes)', SUMMED],
  ['avg(temp_celsius)', SUMMED],
  ['avg(huge)', SUMMED],
  ['sum(huge)', SUMMED],
  ['count(http_requests_total)', EXACT],
  ['count by (zone) (mem_bytes)', EXACT],
  ['min by (job) (mem_bytes)', EXACT],
  ['max(temp_celsius)', EXACT],
  ['max by (method) (rate(http_requests_total[5m]))', EXACT],
  ['group by (job) (mem_bytes)', EXACT],
  ['stddev by (job) (mem_bytes)', SUMMED],
  ['stdvar(temp_celsius)', SUMMED],
  ['stddev(huge)', SUMMED],
  ['topk(3, mem_bytes)', EXACT],
  ['bottomk by (job) (2, mem_bytes)', EXACT],
  ['topk by (job) (2, rate(http_requests_total[5m]))', EXACT],
  ['topk(2, temp_celsius)', EXACT],
  ['topk(3, mem_bytes @ start())', EXACT],
  ['topk(100, up)', EXACT],
  ['limitk(4, mem_bytes)', EXACT],
  ['limitk by (job) (2, mem_bytes)', EXACT],
  ['limit_ratio(0.5, mem_bytes)', EXACT],
  ['limit_ratio(-0.3, mem_bytes)', EXACT],
  ['count_values("v", up)', EXACT],
  ['count_values by (job) ("v", up)', EXACT],
  ['count_values without (instance) ("value", up)', EXACT],
  ['sum(max_over_time(mem_bytes[10m:2m]))', SUMMED],
  ['sum(rate(http_requests_total[5m])) by (job) * 60', SUMMED],
  ['sum(rate(nonexistent_total[5m]))', EXACT],
  // Not pushable as a whole: their series-local parts are.
  ['quantile(0.9, mem_bytes)', EXACT],
  ['quantile by (job) (0.5, rate(http_requests_total[5m]))', EXACT],
  ['quantile(2, mem_bytes)', EXACT],
  ['max_over_time(sum(rate(http_requests_total[1m]))[10m:1m])', SUMMED],
  ['label_replace(mem_bytes, "host", "$1", "instance", "(.*):.*")', EXACT],
  ['sum by (host) (label_replace(rate(http_requests_total[5m]), "host", "$1", "instance", "(.*)-.*"))', EXACT],
  ['label_join(up, "both", "/", "job", "instance")', EXACT],
  [
    'rate(http_requests_total[5m]) / on (job, instance) group_left sum by (job, instance) (rate(http_requests_total[5m]))',
    SUMMED,
  ],
  ['mem_bytes / mem_bytes', EXACT],
  ['mem_bytes + on (job, instance) group_left up', EXACT],
  ['absent(nonexistent)', EXACT],
  ['absent(mem_bytes)', EXACT],
  ['absent_over_time(temp_celsius[1m])', EXACT],
  ['sort_desc(sum by (job) (mem_bytes))', SUMMED],
  ['scalar(sum(up))', EXACT],
  ['mem_bytes * scalar(count(up))', EXACT],
  ['topk(scalar(count(up) - 18), mem_bytes)', EXACT],
  ['histogram_quantile(0.9, sum by (le) (rate(req_seconds_bucket[5m])))', SUMMED],
  ['vector(1) + on () group_left count(up)', EXACT],
  ['hour(mem_bytes * 0 + time())', EXACT],
  // Errors must be the same error.
  ['topk(NaN, mem_bytes)', EXACT],
  ['label_replace(mem_bytes, "job", "x", "job", ".*")', EXACT],
  ['count_values("__bad label", up)', EXACT],
];

const INSTANT_TIMES = [T0 + 7 * MINUTE, T0 + 30 * MINUTE + 4_321, T0 + 95 * MINUTE, T0 + 120 * MINUTE + 3 * 60_000];
const RANGES: Array<[number, number, number]> = [
  [T0 + 20 * MINUTE, T0 + 120 * MINUTE, MINUTE],
  [T0 + 50 * MINUTE, T0 + 62 * MINUTE, 7_000],
];

t.test('pushed-down evaluation answers what the router alone answers', async (t) => {
  const env = await setUp(t);
  const source = sourceOf(env);
  const compared = await comparePushdown(t, source, QUERIES, INSTANT_TIMES, RANGES);
  t.ok(compared >= QUERIES.length * 6, `${compared} evaluations compared`);
});

t.test('aggregations of series-local expressions ship no raw samples', async (t) => {
  const env = await setUp(t);
  const source = sourceOf(env);
  const opsOf = async (query: string): Promise<string[]> => {
    env.ops = [];
    await rangeQuery(query, T0 + 20 * MINUTE, T0 + 120 * MINUTE, MINUTE, { source });
    return env.ops;
  };
  t.same(await opsOf('sum(rate(http_requests_total[5m]))'), ['eval'], 'one evaluation round, no select');
  t.same(await opsOf('topk(5, rate(http_requests_total[5m]))'), ['eval']);
  t.same(await opsOf('rate(http_requests_total[5m])'), ['eval'], 'a bare range function runs in the shards');
  t.same(await opsOf('quantile(0.5, rate(http_requests_total[5m]))'), ['eval'], 'quantile ships step values');
  t.same(await opsOf('absent_over_time(mem_bytes[5m])'), ['select'], 'not series-local: raw samples');
  env.ops = [];
  await rangeQuery('sum(rate(http_requests_total[5m]))', T0, T0 + MINUTE, MINUTE, { source, pushdown: false });
  t.same(env.ops, ['select'], 'without pushdown the router reads raw samples');
});

t.test('stale markers and NaNs reached storage (the data exercises them)', async (t) => {
  const env = await setUp(t);
  const source = sourceOf(env);
  const nan = await rangeQuery('temp_celsius != temp_celsius', T0, T0 + 120 * MINUTE, MINUTE, {
    source,
    pushdown: false,
  });
  t.ok(nan.resultType === 'matrix' && nan.series.length > 0, 'some temperatures are NaN');
  const counts = await rangeQuery('count(temp_celsius)', T0 + 10 * MINUTE, T0 + 110 * MINUTE, 15_000, {
    source,
    pushdown: false,
  });
  const values = counts.resultType === 'matrix' ? (counts.series[0]?.v ?? []) : [];
  t.ok(Math.min(...values) < 9, 'a staleness marker hides a series before its lookback ends');
});

t.test('an evaluation in the router stops soon after its deadline', async (t) => {
  const env = await setUp(t);
  const source = sourceOf(env);
  const heavy = 'sum(quantile_over_time(0.5, rate(http_requests_total[10m])[60m:5s]))';
  const run = (signal?: AbortSignal) =>
    rangeQuery(heavy, T0, T0 + 120 * MINUTE, 15_000, { source, signal, pushdown: false });
  let started = performance.now();
  await run();
  const fullMs = performance.now() - started;
  t.ok(fullMs > 150, `the query takes ${Math.round(fullMs)} ms uninterrupted`);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new PromqlError('timeout', 'query timed out in expression evaluation')), 20);
  started = performance.now();
  const error = await run(controller.signal).catch((err: unknown) => err);
  const stoppedMs = performance.now() - started;
  t.match(error, { errorType: 'timeout' }, 'the timeout error');
  t.ok(stoppedMs < fullMs / 2, `stopped after ${Math.round(stoppedMs)} ms`);
});
