/**
 * OTLP exponential histograms stored as native histograms
 * (`x-greptime-otlp-metric-exponential-histograms: native`) over real HTTP: the metric's own
 * table, PromQL histogram functions, remote read returning the Prometheus bucket layout
 * (OTLP bucket i is Prometheus bucket i + 1; scales above 8 merged down to 8), rejections, and
 * the classic default left as it was.
 */
import t from 'tap';
import { decodeMetricsResponse, metricsRequestBytes, postMetrics } from '../helpers/otlp-metrics.js';
import { exponentialHistogram, metricsRequest } from '../helpers/otlp-metrics-requests.js';
import { remoteReadHistograms } from '../helpers/prom-histograms.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const NATIVE = { 'x-greptime-otlp-metric-exponential-histograms': 'native' };

async function instant(url: string, query: string, timeMs: number): Promise<unknown[]> {
  const params = new URLSearchParams({ query, time: String(timeMs / 1000) });
  const body = (await (await fetch(`${url}/v1/metricsapi/api/v1/query?${params}`)).json()) as {
    status: string;
    error?: string;
    data: { result: unknown[] };
  };
  if (body.status !== 'success') throw new Error(`${query}: ${body.error}`);
  return body.data.result;
}

t.test('OTLP exponential histograms as native histograms', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const url = server.url;

  const body = metricsRequest({
    metrics: [
      exponentialHistogram(
        'rpc.latency',
        [
          {
            timeMs: T0,
            scale: 0,
            zeroCount: 2,
            // scale 0: OTLP bucket i covers (2^i, 2^(i+1)]
            positive: { offset: 0, counts: [1, 3] }, // (1, 2], (2, 4]
            negative: { offset: 1, counts: [4] }, // [-4, -2)
            sum: 1.5,
            attributes: { route: 'a' },
          },
          {
            timeMs: T0 + 15_000,
            scale: 0,
            zeroCount: 4,
            positive: { offset: 0, counts: [2, 6] },
            negative: { offset: 1, counts: [8] },
            sum: 3,
            attributes: { route: 'a' },
          },
          {
            timeMs: T0,
            scale: 10,
            zeroCount: 0,
            positive: { offset: 0, counts: [1, 1, 1, 1, 1] },
            sum: 5,
            attributes: { route: 'fine' },
          },
        ],
        's',
      ),
    ],
  });
  const res = await postMetrics(url, metricsRequestBytes(body), 'application/x-protobuf', NATIVE);
  t.equal(res.status, 200);
  t.same(decodeMetricsResponse(res.body).partialSuccess ?? null, null, 'every point stored');

  const desc = rowsOf((await sql(url, 'DESC TABLE rpc_latency_seconds')).body).map((r) => [r[0], r[1]]);
  t.same(desc, [
    ['greptime_timestamp', 'TimestampMillisecond'],
    ['greptime_value', 'Float64'],
    ['greptime_histogram', 'Binary'],
    ['route', 'String'],
  ]);
  const tables = rowsOf((await sql(url, 'SHOW TABLES')).body).map((r) => r[0]);
  t.notOk(tables.includes('rpc_latency_seconds_bucket'), 'no classic bucket table');

  t.same(await instant(url, 'histogram_count(rpc_latency_seconds)', T0 + 15_000), [
    { metric: { route: 'a' }, value: [T0 / 1000 + 15, '20'] },
    { metric: { route: 'fine' }, value: [T0 / 1000 + 15, '5'] },
  ]);
  t.same(await instant(url, 'histogram_sum(rpc_latency_seconds{route="a"})', T0 + 15_000), [
    { metric: { route: 'a' }, value: [T0 / 1000 + 15, '3'] },
  ]);
  // 10 more observations in 15 s, extrapolated by half an interval towards the window's start
  // (Prometheus' rule): 10 × 22.5 / 15.
  t.same(await instant(url, 'histogram_count(increase(rpc_latency_seconds{route="a"}[1m]))', T0 + 15_000), [
    { metric: { route: 'a' }, value: [T0 / 1000 + 15, '15'] },
  ]);
  const quantile = (await instant(url, 'histogram_quantile(0.99, rpc_latency_seconds{route="a"})', T0)) as Array<{
    value: [number, string];
  }>;
  const q = Number(quantile[0]?.value[1]);
  t.ok(q > 2 && q <= 4, `the 0.99 quantile lies in the last bucket (2, 4]: ${q}`);

  const [series] = await remoteReadHistograms(url, [
    { start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', 'rpc_latency_seconds']] },
  ]);
  const a = series?.find((s) => s.labels.route === 'a');
  t.match(a?.histograms[0], {
    count_int: 10,
    zero_count_int: 2,
    sum: 1.5,
    positive_spans: [{ offset: 1, length: 2 }],
    positive_deltas: [1, 2],
    negative_spans: [{ offset: 2, length: 1 }],
    negative_deltas: [4],
  });
  t.equal(a?.histograms[0]?.schema ?? 0, 0, 'schema 0 (absent: the default)');
  const fine = series?.find((s) => s.labels.route === 'fine');
  t.match(
    fine?.histograms[0],
    {
      count_int: 5,
      schema: 8,
      positive_spans: [{ offset: 1, length: 2 }],
      positive_deltas: [4, -3],
    },
    'scale 10 merged down to schema 8',
  );
});

t.test('native mode rejects scales without a native schema; unknown modes are refused', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  const body = metricsRequest({
    metrics: [
      exponentialHistogram('coarse', [{ timeMs: T0, scale: -5, zeroCount: 0, positive: { offset: 0, counts: [1] } }]),
    ],
  });
  const res = await postMetrics(server.url, metricsRequestBytes(body), 'application/x-protobuf', NATIVE);
  t.equal(res.status, 200);
  t.match(decodeMetricsResponse(res.body).partialSuccess, {
    rejectedDataPoints: 1,
    errorMessage: /scale -5 is below -4/,
  });
  const bad = await postMetrics(server.url, metricsRequestBytes(body), 'application/x-protobuf', {
    'x-greptime-otlp-metric-exponential-histograms': 'sparse',
  });
  t.equal(bad.status, 400);
  // Without the header, the classic layout as before.
  const classic = await postMetrics(server.url, metricsRequestBytes(body), 'application/x-protobuf');
  t.equal(classic.status, 200);
  const tables = rowsOf((await sql(server.url, 'SHOW TABLES')).body).map((r) => r[0]);
  t.ok(tables.includes('coarse_bucket'), 'classic buckets by default');
});
