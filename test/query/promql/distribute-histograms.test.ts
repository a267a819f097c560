/**
 * PromQL pushdown over native histograms gives the answers of the unpushed evaluation. Integer
 * and float histogram counters (schemas -1, 0, 1, 3, custom buckets with differing bounds),
 * counter resets, staleness markers, gaps, and a metric mixing float and histogram series are
 * written into three real `ShardStore`s, partitioned by (table, tag set) as the router does; every
 * query runs with and without pushdown, each shard answer passing through a structured clone with
 * transfer as it does between worker and router.
 *
 * Step series must be identical, histograms bit for bit; sums and means over several shards add in
 * another order and are compared within 1e-9 relative. Counter-reset hints must always be equal.
 */
import t from 'tap';
import { rangeQuery } from '../../../src/query/promql/engine.js';
import { encodeStoredHistogram } from '../../../src/query/promql/histogram/stored-histogram.js';
import type { BucketSpan, WireHistogram } from '../../../src/query/promql/histogram/wire-histogram.js';
import { staleNaN } from '../../../src/query/promql/types.js';
import { prng } from '../../helpers/prng.js';
import { comparePushdown, EXACT, type PushdownEnv, SUMMED, sourceOf } from './helpers/pushdown-compare.js';
import { type StoredMetric, type StoredSample, storeMetrics } from './helpers/pushdown-stores.js';

const SHARDS = 3;
const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const SCRAPE_MS = 15_000;
const SAMPLES = (90 * MINUTE) / SCRAPE_MS;

/** A sample: a histogram, a float, or a staleness marker (a float NaN with its payload). */
type Sample = { h: WireHistogram } | { f: number };

interface SeriesSpec {
  tags: Record<string, string>;
  sample: (k: number) => Sample | null;
}

interface MetricSpec {
  name: string;
  tags: string[];
  series: SeriesSpec[];
}

const rand = prng(Number(process.env.PROMQL_DISTRIBUTE_SEED ?? 20261126));

/** Spans of consecutive bucket indexes. */
function spansOf(indexes: readonly number[]): BucketSpan[] {
  const spans: BucketSpan[] = [];
  let end = 0;
  indexes.forEach((index, k) => {
    const last = spans[spans.length - 1];
    if (last && index === end) last.length++;
    else spans.push({ offset: k === 0 ? index : index - end, length: 1 });
    end = index + 1;
  });
  return spans;
}

/**
 * A histogram of absolute bucket counts (integers unless `float`), positive buckets only unless
 * `negative` is given; `customValues` makes it a custom-bucket one.
 */
function histogram(
  float: boolean,
  schema: number,
  positive: Array<[number, number]>,
  negative: Array<[number, number]> = [],
  customValues: number[] = [],
  zeroCount = 0,
): WireHistogram {
  const counts = (b: Array<[number, number]>): number[] => {
    if (float) return b.map(([, c]) => c);
    let previous = 0;
    return b.map(([, c]) => {
      const d = c - previous;
      previous = c;
      return d;
    });
  };
  const total = zeroCount + [...positive, ...negative].reduce((s, [, c]) => s + c, 0);
  return {
    float,
    count: total,
    sum: total * 1.75,
    schema,
    zeroThreshold: customValues.length > 0 ? 0 : 0.001,
    zeroCount,
    negativeSpans: spansOf(negative.map(([i]) => i)),
    negative: counts(negative),
    positiveSpans: spansOf(positive.map(([i]) => i)),
    positive: counts(positive),
    resetHint: 0,
    timestampMs: 0,
    customValues,
  };
}

/**
 * A histogram counter: every bucket grows by a random amount per scrape; it resets now and then,
 * may start late, may end in a staleness marker, and may have a gap.
 */
function counter(float: boolean, schema: number, indexes: number[], customValues: number[] = []): SeriesSpec['sample'] {
  let counts = indexes.map(() => Math.floor(rand() * 50));
  let zero = customValues.length > 0 ? 0 : Math.floor(rand() * 5);
  const startAt = rand() < 0.25 ? Math.floor(rand() * SAMPLES * 0.4) : 0;
  const stopAt = rand() < 0.25 ? Math.floor(SAMPLES * (0.6 + rand() * 0.4)) : SAMPLES + 1;
  const gapFrom = rand() < 0.4 ? Math.floor(rand() * SAMPLES) : -1;
  return (k) => {
    if (k < startAt || k > stopAt) return null;
    if (k === stopAt || k === gapFrom) return { f: staleNaN() };
    if (gapFrom >= 0 && k > gapFrom && k < gapFrom + 25) return null;
    if (rand() < 0.015) {
      counts = counts.map(() => 0);
      zero = 0;
    }
    counts = counts.map((c) => c + (float ? Math.floor(rand() * 40) / 4 : Math.floor(rand() * 10)));
    if (customValues.length === 0) zero += Math.floor(rand() * 3);
    const positive = indexes.map((i, b): [number, number] => [i, counts[b] as number]);
    const side = customValues.length > 0 ? [] : positive.slice(0, 1).map(([i, c]): [number, number] => [-i - 1, c]);
    return { h: histogram(float, schema, positive, side, customValues, zero) };
  };
}

function metrics(): MetricSpec[] {
  const latency: SeriesSpec[] = [];
  const layouts: Array<[boolean, number, number[]]> = [
    [false, 0, [0, 1, 2, 4]],
    [true, 1, [-2, 0, 3, 4, 5]],
    [false, 3, [7, 8, 9, 12, 20]],
    [true, -1, [0, 1, 2]],
  ];
  for (const job of ['api', 'db', 'web']) {
    for (let i = 0; i < 6; i++) {
      const [float, schema, indexes] = layouts[(i + job.length) % layouts.length] as [boolean, number, number[]];
      latency.push({ tags: { job, instance: `${job}-${i}` }, sample: counter(float, schema, indexes) });
    }
  }
  // Custom buckets with different bounds in one group: reconciled, with an info.
  const custom: SeriesSpec[] = [];
  for (let i = 0; i < 6; i++) {
    const bounds = i % 3 === 0 ? [0.1, 0.5, 1, 5] : [0.1, 1, 5];
    custom.push({
      tags: { instance: `c-${i}` },
      sample: counter(i % 2 === 0, -53, bounds.map((_, k) => k).concat([bounds.length]), bounds),
    });
  }
  // Float counters and histogram counters in one metric: sums of both are dropped with a warning.
  const mixed: SeriesSpec[] = [];
  for (let i = 0; i < 6; i++) {
    if (i % 2 === 0) mixed.push({ tags: { instance: `m-${i}` }, sample: counter(false, 0, [0, 1, 2]) });
    else {
      let total = rand() * 100;
      mixed.push({ tags: { instance: `m-${i}` }, sample: () => ({ f: (total += rand() * 10) }) });
    }
  }
  // Float histograms near the float64 limit: avg's plain sum overflows (Prometheus then sums each
  // divided by the count), which the partial form leaves to the router.
  const huge: SeriesSpec[] = [];
  for (let i = 0; i < 6; i++) {
    huge.push({
      tags: { i: String(i) },
      sample: () => ({ h: histogram(true, 0, [[1, 1.2e308 + rand() * 4e307]]) }),
    });
  }
  return [
    { name: 'huge_hist', tags: ['i'], series: huge },
    { name: 'lat_seconds', tags: ['job', 'instance'], series: latency },
    { name: 'cb_seconds', tags: ['instance'], series: custom },
    { name: 'mixed_total', tags: ['instance'], series: mixed },
  ];
}

/** The metrics as stored samples; each series starts 0-3 s after T0 (a scraper's jitter). */
async function setUp(t: { teardown(fn: () => unknown): void }): Promise<PushdownEnv> {
  const stored: StoredMetric[] = metrics().map((metric) => ({
    name: metric.name,
    tags: metric.tags,
    histograms: true,
    series: metric.series.map((series) => {
      const jitter = Math.floor(rand() * 3000);
      const out: StoredSample[] = [];
      for (let k = 0; k <= SAMPLES; k++) {
        const sample = series.sample(k);
        if (sample === null) continue;
        const ts = T0 + k * SCRAPE_MS + jitter;
        out.push(
          'h' in sample ? { ts, value: null, histogram: encodeStoredHistogram(sample.h) } : { ts, value: sample.f },
        );
      }
      return { tags: series.tags, samples: out };
    }),
  }));
  return storeMetrics(t, SHARDS, stored);
}

/** Queries and their tolerance: EXACT, or SUMMED where partial sums add up in another order. */
const QUERIES: Array<[string, number]> = [
  // Step series holding histograms.
  ['lat_seconds', EXACT],
  ['lat_seconds offset 3m', EXACT],
  ['rate(lat_seconds[5m])', EXACT],
  ['increase(lat_seconds[5m])', EXACT],
  ['irate(lat_seconds{job="api"}[2m])', EXACT],
  ['delta(lat_seconds[5m])', EXACT],
  ['rate(lat_seconds[5m]) * 2', EXACT],
  ['rate(cb_seconds[5m])', EXACT],
  ['rate(mixed_total[5m])', EXACT],
  ['last_over_time(lat_seconds[10m])', EXACT],
  ['resets(lat_seconds[30m])', EXACT],
  // Partial sums and means of histograms.
  ['sum(rate(lat_seconds[5m]))', SUMMED],
  ['sum by (job) (rate(lat_seconds[5m]))', SUMMED],
  ['sum without (instance) (increase(lat_seconds[10m]))', SUMMED],
  ['avg(rate(lat_seconds[5m]))', SUMMED],
  ['avg by (job) (rate(lat_seconds[5m]))', SUMMED],
  ['sum(lat_seconds)', SUMMED],
  ['count(rate(lat_seconds[5m]))', EXACT],
  ['count by (job) (lat_seconds)', EXACT],
  ['group by (job) (lat_seconds)', EXACT],
  ['max(rate(lat_seconds[5m]))', EXACT],
  ['stddev by (job) (rate(lat_seconds[5m]))', SUMMED],
  ['sum(rate(cb_seconds[5m]))', SUMMED],
  ['avg(rate(cb_seconds[5m]))', SUMMED],
  ['sum(rate(mixed_total[5m]))', SUMMED],
  ['sum by (instance) (rate(mixed_total[5m]))', SUMMED],
  ['histogram_quantile(0.9, sum(rate(lat_seconds[5m])))', SUMMED],
  ['histogram_quantile(0.5, sum by (job) (rate(lat_seconds[5m])))', SUMMED],
  ['histogram_quantile(0.9, avg(rate(cb_seconds[5m])))', SUMMED],
  ['histogram_fraction(0, 4, sum(rate(lat_seconds[5m])))', SUMMED],
  ['histogram_count(sum(rate(lat_seconds[5m])))', SUMMED],
  ['sum(rate(lat_seconds[5m])) / 2', SUMMED],
  ['max_over_time(histogram_count(sum(rate(lat_seconds[1m])))[10m:1m])', SUMMED],
  // No exact partial form: the router evaluates them from raw samples.
  ['sum(rate({__name__=~"lat_seconds|cb_seconds"}[5m]))', SUMMED],
  ['topk(2, histogram_count(lat_seconds))', EXACT],
  ['quantile(0.5, rate(lat_seconds[5m]))', EXACT],
  ['avg(huge_hist)', SUMMED],
  ['sum(huge_hist)', SUMMED],
];

const INSTANT_TIMES = [T0 + 7 * MINUTE, T0 + 30 * MINUTE + 4_321, T0 + 61 * MINUTE, T0 + 92 * MINUTE];
const RANGES: Array<[number, number, number]> = [
  [T0 + 5 * MINUTE, T0 + 90 * MINUTE, MINUTE],
  [T0 + 40 * MINUTE, T0 + 52 * MINUTE, 7_000],
];

t.test('pushed-down evaluation over native histograms answers what the router alone answers', async (t) => {
  const env = await setUp(t);
  const source = sourceOf(env);
  let histograms = 0;
  const compared = await comparePushdown(t, source, QUERIES, INSTANT_TIMES, RANGES, (v) => {
    if (v.resultType === 'vector') histograms += v.samples.filter((s) => s.h !== undefined).length;
    if (v.resultType === 'matrix') histograms += v.series.reduce((n, s) => n + (s.histograms?.h.length ?? 0), 0);
  });
  t.ok(compared >= QUERIES.length * 6, `${compared} evaluations compared`);
  t.ok(histograms > 1000, `${histograms} histogram samples in the answers`);
});

t.test('the data exercises warnings and infos the partial merge must repeat', async (t) => {
  const env = await setUp(t);
  const source = sourceOf(env);
  const end = T0 + 90 * MINUTE;
  const mixed = await rangeQuery('sum(rate(mixed_total[5m]))', T0, end, MINUTE, { source });
  t.match(
    mixed.warnings.join('\n'),
    /mix of histograms and floats for aggregation/,
    'mixed floats and histograms warn',
  );
  const custom = await rangeQuery('sum(rate(cb_seconds[5m]))', T0, end, MINUTE, { source });
  t.ok(custom.infos.length + custom.warnings.length > 0, 'different custom bounds are reconciled with a note');
  const resets = await rangeQuery('resets(lat_seconds[90m])', end, end, MINUTE, { source, pushdown: false });
  const total = resets.resultType === 'matrix' ? resets.series.reduce((n, s) => n + (s.v[0] ?? 0), 0) : 0;
  t.ok(total > 0, `${total} histogram counter resets in the data`);
});

t.test('histogram aggregations are answered by the shards, not from raw samples', async (t) => {
  const env = await setUp(t);
  const source = sourceOf(env);
  const opsOf = async (query: string): Promise<string[]> => {
    env.ops = [];
    await rangeQuery(query, T0 + 20 * MINUTE, T0 + 80 * MINUTE, MINUTE, { source });
    return env.ops;
  };
  for (const query of [
    'rate(lat_seconds[5m])',
    'increase(lat_seconds[5m])',
    'sum(rate(lat_seconds[5m]))',
    'sum by (job) (rate(lat_seconds[5m]))',
    'avg(rate(lat_seconds[5m]))',
    'histogram_quantile(0.9, sum(rate(lat_seconds[5m])))',
    'sum(rate(mixed_total[5m]))',
    'sum(rate(cb_seconds[5m]))',
  ]) {
    t.same(await opsOf(query), ['eval'], `${query}: one evaluation round, no raw samples`);
  }
  t.same(
    await opsOf('sum(rate({__name__=~"lat_seconds|cb_seconds"}[5m]))'),
    ['eval', 'select'],
    'exponential and custom buckets in one sum: the router sums them from raw samples',
  );
  t.same(await opsOf('avg(huge_hist)'), ['eval', 'select'], 'an overflowing avg: the router averages raw samples');
});
