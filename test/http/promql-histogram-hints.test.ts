/**
 * Counter-reset hints of stored native histograms over real HTTP: a shard reads each series'
 * sample before the query window so that the window's first histogram reads "not_reset" when it
 * continues it, and histogram_count/_sum/_avg turn an "unknown" sample after a drop into "reset"
 * (read-hints.ts, stats-selectors.ts). The two meet in Prometheus' warning about conflicting
 * counter resets, which is the only place a hint shows in the query API. Also
 * histogram_quantiles over stored histograms.
 */
import t from 'tap';
import { type HistogramSpec, histogramMessage, writeBody } from '../helpers/prom-histograms.js';
import { postRemoteWrite } from '../helpers/prom-remote.js';
import { startServer } from '../helpers/server.js';

const T0 = 1_700_000_040_000;
const MINUTE = 60_000;
const API = '/v1/metricsapi/api/v1';
const COLLISION = 'PromQL warning: conflicting counter resets during histogram aggregation';

/** A counter histogram of `count` observations, all in bucket (0.5, 1]. */
function spec(count: number, i: number): HistogramSpec {
  return {
    float: false,
    count,
    sum: count,
    schema: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    negative: [],
    positive: [[0, count]],
    timestamp: T0 + i * MINUTE,
  };
}

// 1, 2, ..., 11 at minutes 0..10, then down to 1 at minute 11 (a reset), 2 at minute 12.
const COUNTS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2];

interface Answer {
  status: string;
  data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  warnings?: string[];
}

/** Remote-writes one series `name{job=...}` of the given histograms; the answer must be 204. */
async function writeSeries(url: string, name: string, job: string, specs: HistogramSpec[]): Promise<void> {
  const labels = [
    { name: '__name__', value: name },
    { name: 'job', value: job },
  ];
  const res = await postRemoteWrite(url, writeBody([{ labels, histograms: specs.map(histogramMessage) }]));
  t.equal(res.status, 204, `${name}{job="${job}"} written`);
}

async function query(url: string, q: string, atMs: number): Promise<Answer> {
  const res = await fetch(`${url}${API}/query?${new URLSearchParams({ query: q, time: String(atMs / 1000) })}`);
  t.equal(res.status, 200, q);
  return (await res.json()) as Answer;
}

t.test('reset hints of stored histograms decide the conflicting-resets warning', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  await writeSeries(server.url, 'lat', 'x', COUNTS.map(spec));

  // Window (9m, 11m]: minute 10 continues minute 9, before the window (not_reset), minute 11
  // dropped (reset, as histogram_count compares it with minute 10): they conflict.
  const conflict = await query(server.url, 'histogram_count(sum_over_time(lat[2m]))', T0 + 11 * MINUTE);
  t.same(conflict.data.result[0]?.value[1], '12', '11 + 1 observations');
  t.same(conflict.warnings, [`${COLLISION} (1:31)`], 'the window start read its predecessor');

  // No drop in (8m, 10m]: every sample not_reset, no warning.
  const calm = await query(server.url, 'histogram_count(sum_over_time(lat[2m]))', T0 + 10 * MINUTE);
  t.same(calm.data.result[0]?.value[1], '21');
  t.same(calm.warnings ?? [], []);

  // Without histogram_count the dropped sample stays "unknown": no conflict.
  const plain = await query(server.url, 'sum_over_time(lat[2m])', T0 + 11 * MINUTE);
  t.equal(plain.data.result.length, 1);
  t.same(plain.warnings ?? [], []);

  // Across series, in the shards' partial sums: job y continues (not_reset) where x dropped.
  await writeSeries(server.url, 'lat', 'y', [spec(5, 10), spec(6, 11)]);
  const summed = await query(server.url, 'histogram_count(sum(lat))', T0 + 11 * MINUTE);
  t.same(summed.data.result[0]?.value[1], '7');
  t.same(summed.warnings, [`${COLLISION} (1:21)`]);
  t.same((await query(server.url, 'sum(lat)', T0 + 11 * MINUTE)).warnings ?? [], []);
});

t.test('histogram_quantiles over stored histograms', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  const observations: HistogramSpec = {
    ...spec(6, 0),
    positive: [
      [0, 2],
      [1, 4],
    ],
  };
  await writeSeries(server.url, 'rt', 'x', [observations]);
  const at = T0 + MINUTE;
  const many = await query(server.url, 'histogram_quantiles(rt, "q", 0.25, 0.5, 1)', at);
  t.same(
    many.data.result.map((r) => r.metric).sort((a, b) => (a.q as string).localeCompare(b.q as string)),
    [
      { job: 'x', q: '0.25' },
      { job: 'x', q: '0.5' },
      { job: 'x', q: '1.0' },
    ],
  );
  for (const [q, label] of [
    ['0.25', '0.25'],
    ['0.5', '0.5'],
    ['1', '1.0'],
  ] as const) {
    const one = await query(server.url, `histogram_quantile(${q}, rt)`, at);
    const expected = one.data.result[0]?.value[1];
    t.ok(expected !== undefined, `histogram_quantile(${q}) answers`);
    t.equal(many.data.result.find((r) => r.metric.q === label)?.value[1], expected, `φ ${q}`);
  }
  const clash = await fetch(
    `${server.url}${API}/query?${new URLSearchParams({ query: 'histogram_quantiles(rt, "job", 0.5, 0.5)', time: String(at / 1000) })}`,
  );
  t.equal(clash.status, 422, 'two series with one label set');
  t.match(await clash.json(), { status: 'error', errorType: 'execution' });
});
