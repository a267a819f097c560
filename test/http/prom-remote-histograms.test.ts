/**
 * Native histograms end to end over real HTTP: remote write 1.0 `TimeSeries.histograms` (integer
 * and float) → stored as rows of the metric table → PromQL over the Prometheus API (compared with
 * the same query over the engine's in-memory source) → remote read `TimeSeries.histograms` and
 * streamed histogram chunks.
 * Through WAL replay, a flush, compaction and a restart from segments; malformed histograms are
 * refused with 400 and store nothing.
 */
import type { Test } from 'tap';
import t from 'tap';
import { instantQuery, rangeQuery } from '../../src/query/promql/engine.js';
import { MemorySource } from '../../src/query/promql/memory-source.js';
import type { Labels } from '../../src/query/promql/types.js';
import { queryDataJson } from '../../src/router/prom-api/encode.js';
import { decodeHistogramChunk } from '../helpers/histogram-chunk-decode.js';
import {
  floatHistogramOf,
  type HistogramSpec,
  histogramMessage,
  remoteReadHistograms,
  writeBody,
} from '../helpers/prom-histograms.js';
import {
  bitsOf,
  decodeChunkedBody,
  decodeXorChunk,
  numberOfBits,
  postRemoteRead,
  postRemoteWrite,
  readRequestBytes,
  STREAMED_CONTENT_TYPE,
  snappyBlock,
} from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';
import { sharedServer } from '../helpers/shared-server.js';

// Three cases that need one shard and nothing of their own share a server (metrics `mixed`,
// `good_floats`/`bad_histograms`, `ends`); the streamed read below writes a `mixed` of its own.
const oneShard = sharedServer({ shards: 1 });

const T0 = 1_700_000_000_000;
const STEP_MS = 15_000;
const API = '/v1/metricsapi/api/v1';

/** An integer histogram whose counts grow by `k` per step, and a float one with fractions. */
function intSpec(k: number, timestamp: number): HistogramSpec {
  return {
    float: false,
    count: 9 * k,
    sum: 20 * k,
    schema: 0,
    zeroThreshold: 0.001,
    zeroCount: k,
    negative: [[0, k]],
    positive: [
      [0, 2 * k],
      [1, 3 * k],
      [3, 2 * k],
    ],
    timestamp,
  };
}

function floatSpec(k: number, timestamp: number): HistogramSpec {
  return {
    float: true,
    count: 3.75 * k,
    sum: 7.5 * k,
    schema: 1,
    zeroThreshold: 0,
    zeroCount: 0,
    negative: [],
    positive: [
      [-2, 0.25 * k],
      [2, 1.5 * k],
      [3, 2 * k],
    ],
    timestamp,
  };
}

const STEPS = 8;
const SERIES: Array<{ labels: Record<string, string>; specs: HistogramSpec[] }> = [
  {
    labels: { __name__: 'req_seconds', job: 'api' },
    specs: Array.from({ length: STEPS }, (_, i) => intSpec(i + 1, T0 + i * STEP_MS)),
  },
  {
    labels: { __name__: 'req_seconds', job: 'web' },
    specs: Array.from({ length: STEPS }, (_, i) => floatSpec(i + 1, T0 + i * STEP_MS)),
  },
];

function timeseriesOf(series: typeof SERIES): unknown[] {
  return series.map((s) => ({
    labels: Object.entries(s.labels).map(([name, value]) => ({ name, value })),
    histograms: s.specs.map(histogramMessage),
  }));
}

/** The same series in the engine's in-memory source: what the stored path must answer. */
function memorySource(): MemorySource {
  const source = new MemorySource();
  for (const s of SERIES) {
    const labels: Labels = Object.entries(s.labels)
      .map(([name, value]) => ({ name, value }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const spec of s.specs) source.addHistogram(labels, spec.timestamp, floatHistogramOf(spec));
  }
  return source;
}

const INSTANT_QUERIES = [
  'req_seconds',
  'histogram_count(req_seconds)',
  'histogram_sum(req_seconds)',
  'histogram_avg(req_seconds)',
  'histogram_quantile(0.5, req_seconds)',
  'histogram_quantile(0.9, rate(req_seconds[1m]))',
  'histogram_fraction(0, 2, req_seconds)',
  'histogram_stddev(req_seconds)',
  'histogram_stdvar(req_seconds)',
  'rate(req_seconds[1m])',
  'increase(req_seconds[1m])',
  'sum(rate(req_seconds{job="api"}[1m]))',
  'histogram_count(sum by (job) (rate(req_seconds[1m])))',
];
const EVAL_MS = T0 + 6 * STEP_MS;

async function apiData(url: string, path: string, params: Record<string, string>): Promise<unknown> {
  const res = await fetch(`${url}${API}/${path}?${new URLSearchParams(params)}`);
  const body = (await res.json()) as { status: string; data: unknown; error?: string };
  if (body.status !== 'success') throw new Error(`${path} ${params.query}: ${body.error}`);
  return body.data;
}

/** Every query over HTTP equals the engine's answer over the in-memory source, JSON for JSON. */
async function checkQueries(t: Test, url: string, what: string): Promise<void> {
  const source = memorySource();
  for (const q of INSTANT_QUERIES) {
    const got = await apiData(url, 'query', { query: q, time: String(EVAL_MS / 1000) });
    const expected = JSON.parse(queryDataJson(await instantQuery(q, EVAL_MS, { source })));
    t.same(got, expected, `${what}: ${q}`);
  }
  const range = { start: T0 / 1000, end: (T0 + (STEPS - 1) * STEP_MS) / 1000, step: 15 };
  for (const q of ['req_seconds', 'rate(req_seconds[1m])', 'histogram_quantile(0.5, req_seconds)']) {
    const got = await apiData(url, 'query_range', {
      query: q,
      start: String(range.start),
      end: String(range.end),
      step: String(range.step),
    });
    const outcome = await rangeQuery(q, range.start * 1000, range.end * 1000, range.step * 1000, { source });
    t.same(got, JSON.parse(queryDataJson(outcome)), `${what}: range ${q}`);
  }
}

/** Remote read returns every histogram as it was written, with its read hint. */
async function checkRemoteRead(t: Test, url: string, what: string): Promise<void> {
  const [series] = await remoteReadHistograms(url, [
    { start: 0, end: T0 * 2, matchers: [['__name__', 'EQ', 'req_seconds']] },
  ]);
  t.equal(series?.length, 2, `${what}: two series`);
  for (const s of SERIES) {
    const read = series?.find((r) => r.labels.job === s.labels.job);
    t.same(read?.labels, s.labels, `${what}: labels of ${s.labels.job}`);
    t.same(read?.samples, [], `${what}: no float samples in ${s.labels.job}`);
    t.same(
      read?.histograms.map(normalised),
      // As Prometheus' TSDB reads them back: a series' first sample "unknown" (0), every later
      // one, whose counts only grew, "not_reset" (2), whatever hint the writer sent.
      s.specs.map((spec, i) => ({ ...normalised(histogramMessage(spec)), reset_hint: i === 0 ? 0 : 2 })),
      `${what}: histograms of ${s.labels.job}`,
    );
  }
}

/** A Histogram message's fields with protobuf's defaults filled in (absent = 0 / empty). */
function normalised(m: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [
    'count_int',
    'count_float',
    'sum',
    'schema',
    'zero_threshold',
    'zero_count_int',
    'zero_count_float',
    'reset_hint',
    'timestamp',
  ]) {
    out[key] = Number(m[key] ?? 0);
  }
  for (const key of ['negative_deltas', 'negative_counts', 'positive_deltas', 'positive_counts', 'custom_values']) {
    out[key] = ((m[key] as unknown[] | undefined) ?? []).map(Number);
  }
  for (const key of ['negative_spans', 'positive_spans']) {
    out[key] = ((m[key] as Array<{ offset?: number; length?: number }> | undefined) ?? []).map((s) => ({
      offset: s.offset ?? 0,
      length: s.length ?? 0,
    }));
  }
  return out;
}

t.test('native histograms through remote write, PromQL and remote read, across restarts', async (t) => {
  let server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());

  const res = await postRemoteWrite(server.url, writeBody(timeseriesOf(SERIES)));
  t.equal(res.status, 204, res.text);

  const desc = await sql(server.url, 'DESC TABLE req_seconds');
  t.same(
    rowsOf(desc.body).map((r) => [r[0], r[1], r[5]]),
    [
      ['greptime_timestamp', 'TimestampMillisecond', 'TIMESTAMP'],
      ['greptime_value', 'Float64', 'FIELD'],
      ['greptime_histogram', 'Binary', 'FIELD'],
      ['job', 'String', 'TAG'],
    ],
    'histograms live in a Binary field of the metric table',
  );
  const count = await sql(
    server.url,
    'SELECT count(*), count(greptime_value), count(greptime_histogram) FROM req_seconds',
  );
  t.same(rowsOf(count.body), [[16, 0, 16]], 'one row per histogram sample, value NULL');

  // The encoding itself, checked by hand once (Prometheus' JSON for a native histogram).
  const one = (await apiData(server.url, 'query', {
    query: 'req_seconds{job="api"}',
    time: String(T0 / 1000),
  })) as { result: unknown[] };
  t.same(one.result, [
    {
      metric: { __name__: 'req_seconds', job: 'api' },
      histogram: [
        T0 / 1000,
        {
          count: '9',
          sum: '20',
          buckets: [
            [1, '-1', '-0.5', '1'],
            [3, '-0.001', '0.001', '1'],
            [0, '0.5', '1', '2'],
            [0, '1', '2', '3'],
            [0, '4', '8', '2'],
          ],
        },
      ],
    },
  ]);

  const series = (await apiData(server.url, 'series', { 'match[]': 'req_seconds' })) as unknown[];
  t.same(
    series,
    [
      { __name__: 'req_seconds', job: 'api' },
      { __name__: 'req_seconds', job: 'web' },
    ],
    'histogram-only series are listed by the series API',
  );

  await checkQueries(t, server.url, 'from the memtable');
  await checkRemoteRead(t, server.url, 'from the memtable');

  await server.kill();
  server = await startServer({ dataDir: server.dataDir, shards: 2 });
  await checkQueries(t, server.url, 'after WAL replay');
  await checkRemoteRead(t, server.url, 'after WAL replay');

  t.equal((await sql(server.url, "ADMIN flush_table('req_seconds')")).status, 200);
  await checkQueries(t, server.url, 'from a segment');
  t.equal((await sql(server.url, "ADMIN compact_table('req_seconds')")).status, 200);
  await checkRemoteRead(t, server.url, 'after compaction');

  await server.stop();
  server = await startServer({ dataDir: server.dataDir, shards: 2 });
  await checkQueries(t, server.url, 'after a restart from segments');
  await checkRemoteRead(t, server.url, 'after a restart from segments');
});

t.test('float samples and histograms of one metric share its table', async (t) => {
  const server = await oneShard();
  const body = writeBody([
    {
      labels: [
        { name: '__name__', value: 'mixed' },
        { name: 'job', value: 'f' },
      ],
      samples: [{ value: 2.5, timestamp: T0 }],
    },
    {
      labels: [
        { name: '__name__', value: 'mixed' },
        { name: 'job', value: 'h' },
      ],
      histograms: [histogramMessage(intSpec(1, T0))],
    },
  ]);
  t.equal((await postRemoteWrite(server.url, body)).status, 204);
  const data = (await apiData(server.url, 'query', { query: 'mixed', time: String(T0 / 1000) })) as {
    result: Array<Record<string, unknown>>;
  };
  t.same(
    data.result.map((r) => Object.keys(r).sort()),
    [
      ['metric', 'value'],
      ['histogram', 'metric'],
    ],
  );
});

t.test('malformed histograms are refused with 400 and nothing is stored', async (t) => {
  const server = await oneShard();
  const good = {
    labels: [{ name: '__name__', value: 'good_floats' }],
    samples: [{ value: 1, timestamp: T0 }],
  };
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'spans need more buckets than deltas',
      { ...histogramMessage(intSpec(1, T0)), positive_deltas: [2, 1] },
      /spans need 3 buckets, have 2 buckets/,
    ],
    [
      'deltas that make a count negative',
      { ...histogramMessage(intSpec(1, T0)), positive_deltas: [2, -3, 1] },
      /bucket number 2 has observation count of -1/,
    ],
    [
      'a negative float count',
      { ...histogramMessage(floatSpec(1, T0)), positive_counts: [0.25, -1.5, 2] },
      /bucket number 2 has observation count of -1.5/,
    ],
    [
      'a count below the buckets',
      { ...histogramMessage(intSpec(1, T0)), count_int: 3 },
      /observations found in buckets/,
    ],
    ['an unknown schema', { ...histogramMessage(intSpec(1, T0)), schema: 9 }, /invalid schema 9/],
  ];
  for (const [what, histogram, message] of cases) {
    const body = writeBody([
      good,
      { labels: [{ name: '__name__', value: 'bad_histograms' }], histograms: [histogram] },
    ]);
    const res = await postRemoteWrite(server.url, body);
    t.equal(res.status, 400, `${what}: 400`);
    t.match(JSON.parse(res.text), { error: message }, `${what}: says why`);
  }
  const tables = rowsOf((await sql(server.url, 'SHOW TABLES')).body).map((r) => r[0]);
  t.notOk(tables.includes('bad_histograms'), 'no table for the refused histograms');
  t.notOk(tables.includes('good_floats'), 'nor for the float samples beside them');
});

t.test('a histogram whose sum is the stale NaN ends its series', async (t) => {
  const server = await oneShard();
  const stale = { count_int: 0, sum: numberOfBits('7ff0000000000002'), timestamp: T0 + 30_000 };
  const body = writeBody([
    {
      labels: [{ name: '__name__', value: 'ends' }],
      histograms: [histogramMessage(intSpec(1, T0)), histogramMessage(intSpec(2, T0 + 15_000)), stale],
    },
  ]);
  t.equal((await postRemoteWrite(server.url, body)).status, 204);
  const at = async (ms: number) =>
    (
      (await apiData(server.url, 'query', { query: 'histogram_count(ends)', time: String(ms / 1000) })) as {
        result: unknown[];
      }
    ).result;
  t.same(await at(T0 + 20_000), [{ metric: {}, value: [(T0 + 20_000) / 1000, '18'] }], 'before the marker');
  t.same(await at(T0 + 40_000), [], 'gone after it (within the lookback delta)');
});

t.test('streamed remote read carries histograms in histogram chunks', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  // 130 integer samples (two chunks), float histograms, and a series that turns from floats
  // into histograms: XOR, HISTOGRAM and FLOAT_HISTOGRAM chunks in time order.
  const ints = Array.from({ length: 130 }, (_, i) => intSpec(i + 1, T0 + i * STEP_MS));
  const floats = Array.from({ length: 5 }, (_, i) => floatSpec(i + 1, T0 + i * STEP_MS));
  const later = Array.from({ length: 3 }, (_, i) => intSpec(i + 1, T0 + (10 + i) * STEP_MS));
  const body = writeBody([
    { labels: [{ name: '__name__', value: 'chunky' }], histograms: ints.map(histogramMessage) },
    { labels: [{ name: '__name__', value: 'floaty' }], histograms: floats.map(histogramMessage) },
    {
      labels: [{ name: '__name__', value: 'mixed' }],
      samples: [0, 1, 2].map((i) => ({ value: i + 0.5, timestamp: T0 + i * STEP_MS })),
      histograms: later.map(histogramMessage),
    },
  ]);
  t.equal((await postRemoteWrite(server.url, body)).status, 204);
  const query = (name: string) => ({
    start: 0,
    end: T0 * 2,
    matchers: [['__name__', 'EQ', name]] as Array<[string, 'EQ', string]>,
  });
  // Prometheus' client order: STREAMED_XOR_CHUNKS (1) first, then SAMPLES (0).
  const res = await postRemoteRead(
    server.url,
    snappyBlock(readRequestBytes([query('chunky'), query('floaty'), query('mixed')], [1, 0])),
  );
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), STREAMED_CONTENT_TYPE);
  const frames = decodeChunkedBody(res.body);
  const chunksOf = (queryIndex: number) =>
    frames.filter((f) => f.queryIndex === queryIndex).flatMap((f) => f.series.flatMap((s) => s.chunks));
  const expect = (specs: HistogramSpec[]) =>
    specs.map((s, i) => ({
      t: s.timestamp,
      hint: i === 0 ? 'unknown' : 'not_reset',
      schema: s.schema,
      zeroThreshold: s.zeroThreshold,
      count: s.count,
      zeroCount: s.zeroCount,
      sum: s.sum,
      positive: s.positive,
      negative: s.negative,
      customValues: [],
    }));
  const decode = (c: { type: number; data: Uint8Array }) => decodeHistogramChunk(c.data, c.type === 3);

  const chunky = chunksOf(0);
  t.same(
    chunky.map((c) => [c.type, c.min, c.max]),
    [
      [2, T0, T0 + 119 * STEP_MS],
      [2, T0 + 120 * STEP_MS, T0 + 129 * STEP_MS],
    ],
    'integer histograms in HISTOGRAM chunks of at most 120',
  );
  const decoded = chunky.flatMap(decode);
  t.same(decoded.slice(0, 120), expect(ints.slice(0, 120)));
  // The second chunk's first sample: a new chunk's hint is unknown to the reader.
  t.same(decoded.slice(120), expect(ints.slice(120)));

  const floaty = chunksOf(1);
  t.same(
    floaty.map((c) => c.type),
    [3],
    'float histograms in a FLOAT_HISTOGRAM chunk',
  );
  t.same(floaty.flatMap(decode), expect(floats));

  const mixed = chunksOf(2);
  t.same(
    mixed.map((c) => c.type),
    [1, 2],
    'floats in XOR, then histograms, in time order',
  );
  t.same(
    decodeXorChunk(mixed[0]?.data ?? new Uint8Array(2)).map(([ms, bits]) => [ms, bits.toString(16)]),
    [0, 1, 2].map((i) => [T0 + i * STEP_MS, bitsOf(i + 0.5).replace(/^0+/, '')]),
  );
  t.same(decode(mixed[1] as { type: number; data: Uint8Array }), expect(later));

  const only = await postRemoteRead(server.url, snappyBlock(readRequestBytes([query('chunky')], [1])));
  t.equal(only.headers.get('content-type'), STREAMED_CONTENT_TYPE, 'a client that accepts chunks only gets them too');
  t.equal(decodeChunkedBody(only.body).flatMap((f) => f.series.flatMap((s) => s.chunks.flatMap(decode))).length, 130);
});

/** Samples the shards returned per kind since start (raw: selector samples for the router). */
async function shardTraffic(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = { raw: 0, step: 0, partial: 0 };
  for (const m of text.matchAll(/^shoaldb_promql_shard_samples_returned_total\{kind="(\w+)"\} (\d+)$/gm)) {
    out[m[1] as string] = Number(m[2]);
  }
  return out;
}

t.test('histogram queries are evaluated in the shards', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  t.equal((await postRemoteWrite(server.url, writeBody(timeseriesOf(SERIES)))).status, 204);
  const source = memorySource();
  const cases: Array<[string, 'pushed' | 'router']> = [
    ['histogram_count(rate(req_seconds[1m]))', 'pushed'],
    ['histogram_sum(req_seconds) > 10', 'pushed'],
    ['sum(histogram_count(rate(req_seconds[1m])))', 'pushed'],
    ['max by (job) (histogram_avg(req_seconds))', 'pushed'],
    ['histogram_count(req_seconds </ 2)', 'pushed'],
    // Answers carrying histograms: packed step series, partial histogram sums.
    ['rate(req_seconds[1m])', 'pushed'],
    ['sum(rate(req_seconds[1m]))', 'pushed'],
    ['avg by (job) (req_seconds)', 'pushed'],
    // A k selection that read histograms: the router evaluates it from raw samples.
    ['topk(1, histogram_count(req_seconds))', 'router'],
  ];
  for (const [query, where] of cases) {
    const before = await shardTraffic(server.url);
    const got = await apiData(server.url, 'query', { query, time: String(EVAL_MS / 1000) });
    const after = await shardTraffic(server.url);
    const expected = JSON.parse(queryDataJson(await instantQuery(query, EVAL_MS, { source })));
    t.same(got, expected, `${query}: the engine's answer`);
    const raw = (after.raw ?? 0) - (before.raw ?? 0);
    if (where === 'pushed') t.equal(raw, 0, `${query}: no raw samples left the shards`);
    else t.ok(raw > 0, `${query}: evaluated in the router from raw samples`);
  }
});
