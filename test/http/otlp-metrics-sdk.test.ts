/**
 * OTLP/HTTP metrics from the real OpenTelemetry JS SDK (`@opentelemetry/sdk-metrics` with the
 * protobuf and the JSON OTLP exporters) into `POST /v1/otlp/v1/metrics`, read back through SQL and
 * PromQL. Timestamps come from the SDK's own export, so every check is exact.
 */
import { AggregationType } from '@opentelemetry/sdk-metrics';
import t, { type Test } from 'tap';
import {
  type Export,
  expectedRate,
  pointTimeMs,
  promQuery,
  type SdkEncoding,
  sdkPipeline,
  sortedVector,
} from '../helpers/otlp-metrics.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const RESOURCE = {
  'service.name': 'checkout',
  'service.instance.id': 'i-1',
  'deployment.environment': 'prod',
  'host.name': 'h1',
  'process.pid': 4242,
};

/** Labels every sample of RESOURCE carries (promoted by default, plus job and instance). */
const RESOURCE_LABELS = {
  deployment_environment: 'prod',
  instance: 'i-1',
  job: 'checkout',
  service_instance_id: 'i-1',
  service_name: 'checkout',
};

async function query(url: string, statement: string, db: string): Promise<unknown[][]> {
  const res = await sql(url, statement, db);
  if (res.status !== 200) throw new Error(`${statement}: ${res.text}`);
  return rowsOf(res.body);
}

function checkExported(t: Test, sent: Export): void {
  t.equal(sent.code, 0, `the exporter reports success ${sent.error?.message ?? ''}`);
}

t.test('the OpenTelemetry SDK exports to the OTLP metrics endpoint', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  for (const encoding of ['proto', 'json'] as SdkEncoding[]) {
    t.test(`cumulative instruments over ${encoding}`, async (t) => {
      const db = `otlp_${encoding}`;
      t.equal((await sql(url, `CREATE DATABASE ${db}`)).status, 200);
      const sdk = sdkPipeline({
        url,
        encoding,
        resource: RESOURCE,
        headers: { 'x-greptime-db-name': db },
        views: [{ instrumentName: 'rpc.latency', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
      });
      t.teardown(() => sdk.close());
      const meter = sdk.provider.getMeter('shop', '1.2.3');
      const requests = meter.createCounter('http.server.requests', { unit: '{request}', description: 'Requests' });
      const queue = meter.createUpDownCounter('queue.size', { unit: '{item}' });
      const temperature = meter.createGauge('cpu.temperature', { unit: 'Cel', description: 'CPU temperature' });
      const utilization = meter.createGauge('cpu.utilization', { unit: '1' });
      const duration = meter.createHistogram('http.server.duration', {
        unit: 'ms',
        description: 'Request duration',
        advice: { explicitBucketBoundaries: [10, 50, 100] },
      });
      const latency = meter.createHistogram('rpc.latency', { unit: 's' });

      requests.add(5, { method: 'GET', code: 200 });
      requests.add(3, { method: 'POST', code: 500 });
      queue.add(10);
      queue.add(-3);
      temperature.record(42.5, { core: 0 });
      utilization.record(0.25);
      for (const v of [5, 20, 70, 150, 30, 60]) duration.record(v, { route: '/pay' });
      for (const v of [1, 2, 4]) latency.record(v);
      const first = await sdk.collect();
      checkExported(t, first);
      const t1 = pointTimeMs(first, 'http.server.requests');
      // The second collection must be later in milliseconds, or it would overwrite the first.
      await new Promise((resolve) => setTimeout(resolve, 50));
      requests.add(7, { method: 'GET', code: 200 });
      for (const v of [40, 80, 90]) duration.record(v, { route: '/pay' });
      const second = await sdk.collect();
      checkExported(t, second);
      const t2 = pointTimeMs(second, 'http.server.requests');
      t.ok(t2 > t1, 'two distinct collection times');

      t.test('tables are named by the translation rules and laid out as remote write', async (t) => {
        const tables = (await query(url, 'SHOW TABLES', db)).map((r) => r[0]).sort();
        t.same(tables, [
          'cpu_temperature_celsius',
          'cpu_utilization_ratio',
          'http_server_duration_milliseconds_bucket',
          'http_server_duration_milliseconds_count',
          'http_server_duration_milliseconds_sum',
          'http_server_requests_total',
          'queue_size',
          'rpc_latency_seconds_bucket',
          'rpc_latency_seconds_count',
          'rpc_latency_seconds_sum',
          'target_info',
        ]);
        const desc = await query(url, 'DESC TABLE http_server_requests_total', db);
        t.same(
          desc.map((r) => [r[0], r[1], r[5]]),
          [
            ['greptime_timestamp', 'TimestampMillisecond', 'TIMESTAMP'],
            ['greptime_value', 'Float64', 'FIELD'],
            ['code', 'String', 'TAG'],
            ['deployment_environment', 'String', 'TAG'],
            ['instance', 'String', 'TAG'],
            ['job', 'String', 'TAG'],
            ['method', 'String', 'TAG'],
            ['service_instance_id', 'String', 'TAG'],
            ['service_name', 'String', 'TAG'],
          ],
        );
      });

      t.test('counters keep their cumulative values and exact timestamps', async (t) => {
        const rows = await query(
          url,
          'SELECT greptime_timestamp, greptime_value, method, code, job, instance FROM http_server_requests_total ORDER BY method, greptime_timestamp',
          db,
        );
        t.same(rows, [
          [t1, 5, 'GET', '200', 'checkout', 'i-1'],
          [t2, 12, 'GET', '200', 'checkout', 'i-1'],
          [t1, 3, 'POST', '500', 'checkout', 'i-1'],
          [t2, 3, 'POST', '500', 'checkout', 'i-1'],
        ]);
        const queueRows = await query(url, 'SELECT greptime_timestamp, greptime_value FROM queue_size', db);
        t.same(queueRows, [
          [t1, 7],
          [t2, 7],
        ]);
        const gauge = await query(
          url,
          'SELECT greptime_value, core FROM cpu_temperature_celsius ORDER BY greptime_timestamp',
          db,
        );
        t.same(gauge.at(-1), [42.5, '0']);
        const ratio = await query(url, 'SELECT greptime_value FROM cpu_utilization_ratio', db);
        t.same(ratio.at(-1), [0.25]);
      });

      t.test('PromQL sees the labels and computes rate like Prometheus', async (t) => {
        const instant = sortedVector(await promQuery(url, 'http_server_requests_total', t2, db));
        t.same(
          instant.map((s) => [s.metric, s.value]),
          [
            [
              { __name__: 'http_server_requests_total', code: '200', method: 'GET', ...RESOURCE_LABELS },
              [t2 / 1000, '12'],
            ],
            [
              { __name__: 'http_server_requests_total', code: '500', method: 'POST', ...RESOURCE_LABELS },
              [t2 / 1000, '3'],
            ],
          ],
        );
        const rate = sortedVector(await promQuery(url, 'rate(http_server_requests_total[1m])', t2, db));
        t.equal(rate.length, 2);
        const getRate = Number(rate[0]?.value[1]);
        const want = expectedRate({ t: t1, v: 5 }, { t: t2, v: 12 }, t2, 60_000);
        t.ok(Math.abs(getRate - want) < 1e-9, `rate ${getRate} = ${want}`);
        t.equal(rate[1]?.value[1], '0');
      });

      t.test('explicit histograms give cumulative buckets with le="+Inf", _sum and _count', async (t) => {
        const buckets = await query(
          url,
          'SELECT le, greptime_value FROM http_server_duration_milliseconds_bucket WHERE greptime_timestamp = ' +
            `${t1} ORDER BY greptime_value, le`,
          db,
        );
        t.same(buckets, [
          ['10', 1],
          ['50', 3],
          ['100', 5],
          ['+Inf', 6],
        ]);
        const sums = await query(
          url,
          'SELECT greptime_timestamp, greptime_value, route FROM http_server_duration_milliseconds_sum ORDER BY greptime_timestamp',
          db,
        );
        t.same(sums, [
          [t1, 335, '/pay'],
          [t2, 545, '/pay'],
        ]);
        const counts = await query(
          url,
          'SELECT greptime_value FROM http_server_duration_milliseconds_count ORDER BY greptime_timestamp',
          db,
        );
        t.same(counts, [[6], [9]]);
        // Deltas between the collections: le10 0, le50 1, le100 3, +Inf 3; rank 2.7 lies in
        // (50, 100]: 50 + 50 * (2.7 - 1) / (3 - 1) = 92.5 whatever the extrapolation factor.
        const p90 = await promQuery(
          url,
          'histogram_quantile(0.9, sum by (le) (rate(http_server_duration_milliseconds_bucket[1m])))',
          t2,
          db,
        );
        t.equal(p90.length, 1);
        t.ok(Math.abs(Number(p90[0]?.value[1]) - 92.5) < 1e-9, `p90 ${p90[0]?.value[1]}`);
        const median = await promQuery(
          url,
          'histogram_quantile(0.5, http_server_duration_milliseconds_bucket)',
          t1,
          db,
        );
        // Rank 3 of 6 at t1 lies at the top of (10, 50].
        t.same(
          median.map((s) => s.value[1]),
          ['50'],
        );
      });

      t.test('exponential histograms are stored as classic buckets', async (t) => {
        const rows = await query(
          url,
          `SELECT le, greptime_value FROM rpc_latency_seconds_bucket WHERE greptime_timestamp = ${t1} AND le IN ('0', '1', '2', '4', '+Inf')`,
          db,
        );
        const byLe = Object.fromEntries(rows.map((r) => [r[0], r[1]]));
        // 1, 2 and 4 are exact powers of two: each is the inclusive upper bound of its bucket.
        t.same(byLe, { '0': 0, '1': 1, '2': 2, '4': 3, '+Inf': 3 });
        t.same(await query(url, 'SELECT greptime_value FROM rpc_latency_seconds_sum ORDER BY greptime_timestamp', db), [
          [7],
          [7],
        ]);
        t.same(
          await query(url, 'SELECT greptime_value FROM rpc_latency_seconds_count ORDER BY greptime_timestamp', db),
          [[3], [3]],
        );
        const median = await promQuery(url, 'histogram_quantile(0.5, rpc_latency_seconds_bucket)', t1, db);
        const value = Number(median[0]?.value[1]);
        t.ok(value > 1.97 && value <= 2, `median ${value} lies in the bucket just below 2`);
      });

      t.test('non-promoted resource attributes go to target_info', async (t) => {
        const info = await promQuery(url, 'target_info', t2, db);
        t.same(
          info.map((s) => s.metric),
          [
            {
              __name__: 'target_info',
              deployment_environment: 'prod',
              host_name: 'h1',
              instance: 'i-1',
              job: 'checkout',
              process_pid: '4242',
            },
          ],
        );
        const joined = await promQuery(
          url,
          'queue_size * on (job, instance) group_left (host_name) target_info',
          t2,
          db,
        );
        t.same(
          joined.map((s) => [s.metric.host_name, s.value[1]]),
          [['h1', '7']],
        );
      });

      t.test('type, unit and help reach the metadata API', async (t) => {
        const res = await fetch(`${url}/v1/metricsapi/api/v1/metadata?db=${db}`);
        const body = (await res.json()) as {
          data: Record<string, Array<{ type: string; help: string; unit: string }>>;
        };
        t.same(body.data.http_server_requests_total, [{ type: 'counter', help: 'Requests', unit: '' }]);
        t.same(body.data.http_server_duration_milliseconds, [
          { type: 'histogram', help: 'Request duration', unit: 'milliseconds' },
        ]);
        t.same(body.data.cpu_temperature_celsius, [{ type: 'gauge', help: 'CPU temperature', unit: 'celsius' }]);
        t.same(body.data.queue_size, [{ type: 'gauge', help: '', unit: '' }]);
        t.same(body.data.rpc_latency_seconds, [{ type: 'histogram', help: '', unit: 'seconds' }]);
      });
    });
  }

  t.test('delta temporality is stored as the deltas the SDK sends', async (t) => {
    const db = 'otlp_delta';
    t.equal((await sql(url, `CREATE DATABASE ${db}`)).status, 200);
    const sdk = sdkPipeline({
      url,
      encoding: 'proto',
      temporality: 'delta',
      resource: { 'service.name': 'worker' },
      headers: { 'x-greptime-db-name': db },
    });
    t.teardown(() => sdk.close());
    const meter = sdk.provider.getMeter('jobs');
    const processed = meter.createCounter('jobs.processed');
    const size = meter.createHistogram('job.size', { unit: 'By', advice: { explicitBucketBoundaries: [100] } });
    processed.add(2);
    size.record(50);
    size.record(500);
    const first = await sdk.collect();
    checkExported(t, first);
    await new Promise((resolve) => setTimeout(resolve, 50));
    processed.add(3);
    size.record(70);
    const second = await sdk.collect();
    checkExported(t, second);
    const t1 = pointTimeMs(first, 'jobs.processed');
    const t2 = pointTimeMs(second, 'jobs.processed');

    t.same(
      await query(
        url,
        'SELECT greptime_timestamp, greptime_value, job FROM jobs_processed_total ORDER BY greptime_timestamp',
        db,
      ),
      [
        [t1, 2, 'worker'],
        [t2, 3, 'worker'],
      ],
    );
    t.same(
      await query(
        url,
        'SELECT greptime_timestamp, le, greptime_value FROM job_size_bytes_bucket ORDER BY greptime_timestamp, le',
        db,
      ),
      [
        [t1, '+Inf', 2],
        [t1, '100', 1],
        [t2, '+Inf', 1],
        [t2, '100', 1],
      ],
    );
    // Deltas add up with sum_over_time, the PromQL reading of delta series.
    const total = await promQuery(url, 'sum_over_time(jobs_processed_total[1m])', t2, db);
    t.same(
      total.map((s) => s.value[1]),
      ['5'],
    );
    // Only service.name: no target_info for this resource.
    t.notOk((await query(url, 'SHOW TABLES', db)).some((r) => r[0] === 'target_info'));
  });
});
