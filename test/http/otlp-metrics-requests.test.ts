/**
 * OTLP/HTTP metrics with hand-built requests: summaries (which the JS SDK never emits), naming and
 * label rules, translation strategies, promotion headers, stale markers, partial success, and the
 * answer formats. Read back through SQL and PromQL.
 */
import zlib from 'node:zlib';
import t from 'tap';
import {
  decodeMetricsResponse,
  expectedRate,
  metricsRequestBytes,
  metricsRequestJson,
  postMetrics,
  promQuery,
  sortedVector,
} from '../helpers/otlp-metrics.js';
import {
  exponentialHistogram,
  gauge,
  histogram,
  metricsRequest,
  ns,
  sum,
  summary,
} from '../helpers/otlp-metrics-requests.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

async function query(url: string, statement: string, db = 'public'): Promise<unknown[][]> {
  const res = await sql(url, statement, db);
  if (res.status !== 200) throw new Error(`${statement}: ${res.text}`);
  return rowsOf(res.body);
}

async function tables(url: string, db: string): Promise<string[]> {
  return (await query(url, 'SHOW TABLES', db)).map((r) => r[0] as string).sort();
}

async function columns(url: string, table: string, db: string): Promise<string[]> {
  return (await query(url, `DESC TABLE "${table}"`, db)).map((r) => r[0] as string);
}

async function createDatabase(url: string, db: string): Promise<void> {
  const res = await sql(url, `CREATE DATABASE ${db}`);
  if (res.status !== 200) throw new Error(res.text);
}

async function metricValue(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(labels)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

t.test('OTLP metrics requests', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  t.test('summaries become quantile series plus _sum and _count, times floored to ms', async (t) => {
    const db = 'summaries';
    await createDatabase(url, db);
    const body = metricsRequest({
      attributes: { 'service.name': 'api' },
      metrics: [
        summary(
          'rpc.duration',
          [
            {
              timeMs: T0,
              // A nanosecond remainder must be dropped, not rounded.
              timeNs: ns(T0, 999_999),
              count: 10,
              sum: 12.5,
              quantiles: [
                [0.5, 1.1],
                [0.99, 3],
                [0, 0.2],
                [1, 4],
              ],
              attributes: { path: '/a' },
            },
            {
              timeMs: T0 + 15_000,
              count: 12,
              sum: 14,
              quantiles: [
                [0.5, 1.2],
                [0.99, 3.5],
                [0, 0.2],
                [1, 4],
              ],
              attributes: { path: '/a' },
            },
          ],
          's',
          'RPC latency',
        ),
      ],
    });
    const res = await postMetrics(url, metricsRequestBytes(body), 'application/x-protobuf', {
      'x-greptime-db-name': db,
    });
    t.equal(res.status, 200);
    t.equal(res.contentType, 'application/x-protobuf');
    t.equal(res.body.length, 0, 'a full success is an empty ExportMetricsServiceResponse');

    t.same(await tables(url, db), ['rpc_duration_seconds', 'rpc_duration_seconds_count', 'rpc_duration_seconds_sum']);
    t.same(
      await query(
        url,
        'SELECT greptime_timestamp, quantile, greptime_value FROM rpc_duration_seconds ORDER BY greptime_timestamp, quantile',
        db,
      ),
      [
        [T0, '0', 0.2],
        [T0, '0.5', 1.1],
        [T0, '0.99', 3],
        [T0, '1', 4],
        [T0 + 15_000, '0', 0.2],
        [T0 + 15_000, '0.5', 1.2],
        [T0 + 15_000, '0.99', 3.5],
        [T0 + 15_000, '1', 4],
      ],
    );
    t.same(
      await query(
        url,
        'SELECT greptime_timestamp, greptime_value, path, job FROM rpc_duration_seconds_sum ORDER BY greptime_timestamp',
        db,
      ),
      [
        [T0, 12.5, '/a', 'api'],
        [T0 + 15_000, 14, '/a', 'api'],
      ],
    );
    t.same(await query(url, 'SELECT greptime_value FROM rpc_duration_seconds_count ORDER BY greptime_timestamp', db), [
      [10],
      [12],
    ]);

    const p99 = await promQuery(url, 'rpc_duration_seconds{quantile="0.99"}', T0 + 15_000, db);
    t.same(p99, [
      {
        metric: { __name__: 'rpc_duration_seconds', job: 'api', path: '/a', quantile: '0.99', service_name: 'api' },
        value: [(T0 + 15_000) / 1000, '3.5'],
      },
    ]);
    const rate = await promQuery(url, 'rate(rpc_duration_seconds_count[30s])', T0 + 15_000, db);
    t.equal(rate.length, 1);
    const want = expectedRate({ t: T0, v: 10 }, { t: T0 + 15_000, v: 12 }, T0 + 15_000, 30_000);
    t.ok(Math.abs(Number(rate[0]?.value[1]) - want) < 1e-12, `rate ${rate[0]?.value[1]} = ${want}`);
    const metadata = (await (await fetch(`${url}/v1/metricsapi/api/v1/metadata?db=${db}`)).json()) as {
      data: Record<string, unknown>;
    };
    t.same(metadata.data.rpc_duration_seconds, [{ type: 'summary', help: 'RPC latency', unit: 'seconds' }]);
  });

  t.test('metric names follow the default translation rules', async (t) => {
    const db = 'naming';
    await createDatabase(url, db);
    const point = [{ timeMs: T0, value: 1 }];
    const body = metricsRequest({
      metrics: [
        sum('claude_code.cost.usage', point, { unit: 'USD' }),
        sum('requests.total', point, { unit: '{request}' }),
        sum('queue-length', point, { monotonic: false, unit: '{item}' }),
        gauge('2xx.rate', point, '1'),
        gauge('cpu.ratio', point, '1'),
        gauge('net.io', point, 'By/s'),
        gauge('disk.used', point, '%'),
        gauge('http..latency__max', point, 'ms'),
        gauge('memory.bytes', point, 'By'),
        gauge('rate', point, '/s'),
        gauge('weird', point, 'foo.bar'),
        histogram('http.server.duration', [{ timeMs: T0, bounds: [1], counts: [1, 0], sum: 0.5 }], 'ms'),
      ],
    });
    const res = await postMetrics(url, metricsRequestBytes(body), 'application/x-protobuf', {
      'x-greptime-db-name': db,
    });
    t.equal(res.status, 200);
    t.same(await tables(url, db), [
      '_2xx_rate_ratio',
      'claude_code_cost_usage_USD_total',
      'cpu_ratio',
      'disk_used_percent',
      'http_latency_max_milliseconds',
      'http_server_duration_milliseconds_bucket',
      'http_server_duration_milliseconds_count',
      'http_server_duration_milliseconds_sum',
      'memory_bytes',
      'net_io_bytes_per_second',
      'queue_length',
      'rate_per_second',
      'requests_total',
      'weird_foo_bar',
    ]);
  });

  t.test('the translation strategy header changes names and labels', async (t) => {
    const build = () =>
      metricsRequestBytes(
        metricsRequest({
          attributes: { 'service.name': 'api' },
          metrics: [
            histogram(
              'http.server.duration',
              [{ timeMs: T0, bounds: [1], counts: [1, 1], sum: 2.5, attributes: { 'http.method': 'GET' } }],
              'ms',
            ),
            sum('http.requests', [{ timeMs: T0, value: 3, attributes: { 'http.method': 'GET' } }]),
          ],
        }),
      );
    const cases: Array<[string, string[], string]> = [
      [
        'UnderscoreEscapingWithoutSuffixes',
        ['http_requests', 'http_server_duration_bucket', 'http_server_duration_count', 'http_server_duration_sum'],
        'http_method',
      ],
      [
        'NoUTF8EscapingWithSuffixes',
        [
          'http.requests_total',
          'http.server.duration_milliseconds_bucket',
          'http.server.duration_milliseconds_count',
          'http.server.duration_milliseconds_sum',
        ],
        'http.method',
      ],
      [
        'NoTranslation',
        ['http.requests', 'http.server.duration_bucket', 'http.server.duration_count', 'http.server.duration_sum'],
        'http.method',
      ],
    ];
    for (const [strategy, names, label] of cases) {
      const db = `strategy_${strategy.toLowerCase()}`;
      await createDatabase(url, db);
      const res = await postMetrics(url, build(), 'application/x-protobuf', {
        'x-greptime-db-name': db,
        'x-greptime-otlp-metric-translation-strategy': strategy,
      });
      t.equal(res.status, 200, strategy);
      t.same(await tables(url, db), names, strategy);
      t.ok((await columns(url, names[0] as string, db)).includes(label), `${strategy} label ${label}`);
    }
    const bad = await postMetrics(url, build(), 'application/x-protobuf', {
      'x-greptime-db-name': 'public',
      'x-greptime-otlp-metric-translation-strategy': 'Whatever',
    });
    t.equal(bad.status, 400);
    t.notOk((await tables(url, 'public')).includes('http_requests_total'), 'nothing stored');
  });

  t.test('attribute names and values become labels by the rules', async (t) => {
    const db = 'labels';
    await createDatabase(url, db);
    const body = metricsRequest({
      attributes: { 'service.name': 'api', 'service.version': '1.0', 'host.name': 'h1' },
      metrics: [
        gauge('temp', [
          {
            timeMs: T0,
            value: 1,
            attributes: {
              '1st': 'a',
              _private: 'b',
              __meta: 'c',
              'dotted.key-x': 'd',
              ratio: 1.0,
              half: 0.5,
              count: 7n,
              flag: true,
              list: ['x'],
              empty: '',
              'service.version': '2.0',
            },
          },
        ]),
      ],
    });
    const res = await postMetrics(url, metricsRequestBytes(body), 'application/x-protobuf', {
      'x-greptime-db-name': db,
    });
    t.equal(res.status, 200);
    const [sample] = await promQuery(url, 'temp', T0, db);
    t.same(sample?.metric, {
      __meta: 'c',
      __name__: 'temp',
      count: '7',
      dotted_key_x: 'd',
      half: '0.5',
      job: 'api',
      key_1st: 'a',
      key_private: 'b',
      ratio: '1',
      service_name: 'api',
      service_version: '2.0',
    });
  });

  t.test('promotion headers choose resource and scope labels', async (t) => {
    const db = 'promotion';
    await createDatabase(url, db);
    const build = (name: string) =>
      metricsRequestBytes(
        metricsRequest({
          attributes: { 'service.name': 'api', 'host.name': 'h1', 'os.type': 'linux', 'k8s.pod.name': 'p-1' },
          scope: { name: 'lib', version: '0.9', attributes: { 'lib.mode': 'fast' } },
          scopeSchemaUrl: 'https://opentelemetry.io/schemas/1.0.0',
          metrics: [gauge(name, [{ timeMs: T0, value: 1 }])],
        }),
      );
    const post = (name: string, headers: Record<string, string>) =>
      postMetrics(url, build(name), 'application/x-protobuf', { 'x-greptime-db-name': db, ...headers });
    t.equal((await post('by_default', {})).status, 200);
    t.equal(
      (await post('listed', { 'x-greptime-otlp-metric-promote-resource-attrs': 'host.name; os.type' })).status,
      200,
    );
    t.equal(
      (
        await post('all_but', {
          'x-greptime-otlp-metric-promote-all-resource-attrs': 'yes',
          'x-greptime-otlp-metric-ignore-resource-attrs': 'os.type',
        })
      ).status,
      200,
    );
    t.equal((await post('scoped', { 'x-greptime-otlp-metric-promote-scope-attrs': 'true' })).status, 200);
    const labelsOf = async (name: string) => Object.keys((await promQuery(url, name, T0, db))[0]?.metric ?? {}).sort();
    t.same(await labelsOf('by_default'), ['__name__', 'job', 'k8s_pod_name', 'service_name']);
    t.same(await labelsOf('listed'), ['__name__', 'host_name', 'job', 'k8s_pod_name', 'os_type', 'service_name']);
    t.same(await labelsOf('all_but'), ['__name__', 'host_name', 'job', 'k8s_pod_name', 'service_name']);
    const [scoped] = await promQuery(url, 'scoped', T0, db);
    t.same(scoped?.metric, {
      __name__: 'scoped',
      job: 'api',
      k8s_pod_name: 'p-1',
      otel_scope_lib_mode: 'fast',
      otel_scope_name: 'lib',
      otel_scope_schema_url: 'https://opentelemetry.io/schemas/1.0.0',
      otel_scope_version: '0.9',
      service_name: 'api',
    });
    // target_info keeps every non-identifying attribute whatever the headers say.
    const info = await promQuery(url, 'target_info', T0, db);
    t.same(
      info.map((s) => s.metric),
      [{ __name__: 'target_info', host_name: 'h1', job: 'api', k8s_pod_name: 'p-1', os_type: 'linux' }],
    );
  });

  t.test('exponential histograms with negative, zero and positive buckets', async (t) => {
    const db = 'exponential';
    await createDatabase(url, db);
    const body = metricsRequest({
      metrics: [
        exponentialHistogram('spread', [
          {
            timeMs: T0,
            scale: 0,
            zeroCount: 2,
            // scale 0: bucket i covers (2^i, 2^(i+1)]
            positive: { offset: 0, counts: [1, 3] }, // (1, 2], (2, 4]
            negative: { offset: 1, counts: [4] }, // [-4, -2)
            sum: 1.5,
          },
        ]),
      ],
    });
    const res = await postMetrics(url, metricsRequestBytes(body), 'application/x-protobuf', {
      'x-greptime-db-name': db,
    });
    t.equal(res.status, 200);
    const rows = await query(url, 'SELECT le, greptime_value FROM spread_bucket ORDER BY greptime_value, le', db);
    t.same(rows, [
      ['-2', 4],
      ['0', 6],
      ['2', 7],
      ['+Inf', 10],
      ['4', 10],
    ]);
    t.same(await query(url, 'SELECT greptime_value FROM spread_count', db), [[10]]);
    t.same(await query(url, 'SELECT greptime_value FROM spread_sum', db), [[1.5]]);
  });

  t.test('points flagged "no recorded value" become stale markers', async (t) => {
    const db = 'stale';
    await createDatabase(url, db);
    const body = metricsRequest({
      metrics: [
        gauge('up_gauge', [
          { timeMs: T0, value: 1 },
          { timeMs: T0 + 10_000, flags: 1 },
        ]),
      ],
    });
    const res = await postMetrics(url, metricsRequestBytes(body), 'application/x-protobuf', {
      'x-greptime-db-name': db,
    });
    t.equal(res.status, 200);
    t.equal(decodeMetricsResponse(res.body).partialSuccess, undefined, 'a stale point is not a rejection');
    t.same(
      (await promQuery(url, 'up_gauge', T0 + 5_000, db)).map((s) => s.value[1]),
      ['1'],
    );
    t.same(await promQuery(url, 'up_gauge', T0 + 20_000, db), [], 'the series ends at the marker');
    t.same(await query(url, 'SELECT count(*) FROM up_gauge', db), [[2]]);
  });

  t.test('rejected points are reported in partial_success and the rest is stored', async (t) => {
    const db = 'partial';
    await createDatabase(url, db);
    const body = metricsRequest({
      metrics: [
        gauge('good', [
          { timeMs: T0, value: 1 },
          { timeMs: T0 + 1000 }, // no value
          { timeMs: 0, value: 2, timeNs: 0n }, // no timestamp
          { timeMs: T0 + 2000, value: 3, attributes: { '': 'x' } }, // empty attribute key
          { timeMs: T0 + 3000, value: 4, attributes: { __name__: 'x' } }, // reserved label
        ]),
        gauge('...', [{ timeMs: T0, value: 1 }]), // a name that escapes to nothing
        summary('sizes', [
          { timeMs: T0, count: 1, sum: 1, quantiles: [[0.5, 1]] },
          { timeMs: T0 + 1000, count: 1, sum: 1, quantiles: [[1.5, 1]] }, // quantile outside [0, 1]
          { timeMs: T0 + 2000, count: 1, sum: 1, quantiles: [[Number.NaN, 1]] },
        ]),
        histogram('lat', [
          { timeMs: T0, bounds: [1, 2], counts: [1, 1, 1] },
          { timeMs: T0 + 1000, bounds: [2, 1], counts: [1, 1, 1] }, // bounds not increasing
          { timeMs: T0 + 2000, bounds: [1, 2], counts: [1, 1, 1], count: 5 }, // count ≠ sum of buckets
        ]),
      ],
    });
    for (const encoding of ['protobuf', 'json'] as const) {
      const target = `${db}_${encoding}`;
      await createDatabase(url, target);
      const res =
        encoding === 'protobuf'
          ? await postMetrics(url, metricsRequestBytes(body), 'application/x-protobuf', {
              'x-greptime-db-name': target,
            })
          : await postMetrics(url, metricsRequestJson(body), 'application/json', { 'x-greptime-db-name': target });
      t.equal(res.status, 200, encoding);
      let partial: Record<string, unknown> | undefined;
      if (encoding === 'protobuf') partial = decodeMetricsResponse(res.body).partialSuccess;
      else {
        t.equal(res.contentType, 'application/json');
        partial = (JSON.parse(Buffer.from(res.body).toString()) as { partialSuccess?: Record<string, unknown> })
          .partialSuccess;
      }
      t.equal(Number(partial?.rejectedDataPoints), 9, `${encoding}: nine points rejected`);
      const message = String(partial?.errorMessage);
      for (const part of [
        'without a value',
        'without time_unix_nano',
        'empty key',
        '__name__ is reserved',
        'gives no valid metric name',
        'outside [0, 1]',
        'not strictly increasing',
        'differs from the sum',
      ]) {
        t.match(message, part, `${encoding}: message names "${part}"`);
      }
      t.same(await tables(url, target), ['good', 'lat_bucket', 'lat_count', 'sizes', 'sizes_count', 'sizes_sum']);
      t.same(await query(url, 'SELECT greptime_timestamp, greptime_value FROM good', target), [[T0, 1]]);
      t.same(await query(url, 'SELECT quantile, greptime_value FROM sizes', target), [['0.5', 1]]);
      t.same(await query(url, 'SELECT le, greptime_value FROM lat_bucket ORDER BY greptime_value', target), [
        ['1', 1],
        ['2', 2],
        ['+Inf', 3],
      ]);
    }
  });

  t.test('JSON requests are answered in JSON; gzip bodies are accepted; ?db= picks the database', async (t) => {
    const db = 'jsonway';
    await createDatabase(url, db);
    const body = metricsRequestJson(
      metricsRequest({ metrics: [sum('hits', [{ timeMs: T0, value: 41n, attributes: { big: 9007199254740993n } }])] }),
    );
    const before = await metricValue(url, 'shoaldb_ingest_requests_total', 'protocol="otlp-metrics",outcome="ok"');
    const res = await fetch(`${url}/v1/otlp/v1/metrics?db=${db}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: zlib.gzipSync(body),
    });
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'application/json');
    t.same(await res.json(), {});
    t.same(await query(url, 'SELECT greptime_timestamp, greptime_value, big FROM hits_total', db), [
      [T0, 41, '9007199254740993'],
    ]);
    const after = await metricValue(url, 'shoaldb_ingest_requests_total', 'protocol="otlp-metrics",outcome="ok"');
    t.equal(after - before, 1, 'the request is counted');
    t.ok((await metricValue(url, 'shoaldb_ingest_rows_total', 'protocol="otlp-metrics"')) >= 1);
    const sorted = sortedVector(await promQuery(url, 'hits_total', T0, db));
    t.equal(sorted[0]?.value[1], '41');
  });
});
