/**
 * ShoalDB against a real Prometheus (the Debian package's /usr/bin/prometheus):
 *
 * 1. Prometheus A scrapes itself every second and remote-writes to ShoalDB; `up` and
 *    `prometheus_build_info` (and their metadata) must arrive.
 * 2. Prometheus B has no scrape targets and remote-reads from ShoalDB (`read_recent: true`); its
 *    own query API must answer `prometheus_build_info` with what A wrote.
 *
 * Installs the Debian package when the binary is missing (root and apt-get needed; `.ci/run` does it
 * up front) and skips, saying why, only when that is not possible. Both Prometheus processes are
 * stopped by PID in teardown.
 */
import t from 'tap';
import {
  prometheusMissingReason,
  prometheusQuery,
  type RunningPrometheus,
  startPrometheus,
  waitFor,
} from '../helpers/prometheus-peer.js';
import { rowsOf, type SqlBody, sql, startServer, type TestServer } from '../helpers/server.js';

const missing = prometheusMissingReason();

/** Rows of a SQL answer as objects keyed by column name. */
function records(body: SqlBody): Array<Record<string, unknown>> {
  const rec = body.output?.[0]?.records;
  if (!rec) return [];
  const names = rec.schema.column_schemas.map((c) => c.name);
  return rec.rows.map((row) => Object.fromEntries(names.map((n, i) => [n, row[i]])));
}

/** Waits until ShoalDB holds at least one row of `metric` (bounded). */
export async function waitForMetric(url: string, metric: string, timeoutMs = 60_000): Promise<number> {
  return waitFor(`${metric} to arrive in ShoalDB`, timeoutMs, async () => {
    const res = await sql(url, `SELECT count(*) FROM ${metric}`);
    if (res.status !== 200) return null;
    const count = Number(rowsOf(res.body)[0]?.[0] ?? 0);
    return count > 0 ? count : null;
  });
}

t.test(
  'a real Prometheus remote-writes into ShoalDB and remote-reads it back',
  { skip: missing ?? false },
  async (t) => {
    const shoal: TestServer = await startServer();
    t.teardown(() => shoal.stop());

    // --- 1. remote write from a scraping Prometheus ---
    const writer: RunningPrometheus = await startPrometheus(
      'writer',
      (port) => `
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: prometheus
    static_configs:
      - targets: ['127.0.0.1:${port}']
remote_write:
  - url: ${shoal.url}/v1/metricsapi/write
    queue_config:
      batch_send_deadline: 1s
      min_backoff: 100ms
      max_backoff: 1s
    metadata_config:
      send: true
      send_interval: 1s
`,
      (stop) => t.teardown(stop),
    );

    // Two scrapes at least, so that range queries in the reader have something to count.
    await waitFor('two up samples in ShoalDB', 60_000, async () => (await waitForMetric(shoal.url, 'up')) >= 2);
    await waitForMetric(shoal.url, 'prometheus_build_info');

    const up = records((await sql(shoal.url, 'SELECT * FROM up ORDER BY greptime_timestamp DESC LIMIT 1')).body)[0];
    t.match(
      up,
      { job: 'prometheus', instance: `127.0.0.1:${writer.port}`, greptime_value: 1 },
      'up = 1 for the scrape',
    );
    const buildInfo = records(
      (await sql(shoal.url, 'SELECT * FROM prometheus_build_info ORDER BY greptime_timestamp DESC LIMIT 1')).body,
    )[0] as Record<string, unknown>;
    t.match(buildInfo, { job: 'prometheus', greptime_value: 1, version: /^2\./ }, 'build info carries its labels');

    const metadata = await waitFor('metadata of prometheus_build_info', 30_000, async () => {
      const res = await sql(
        shoal.url,
        "SELECT type, help FROM prometheus_metadata WHERE db = 'public' AND metric = 'prometheus_build_info'",
        'greptime_private',
      );
      return res.status === 200 ? records(res.body)[0] : null;
    });
    t.match(metadata, { type: 'gauge', help: /build/i }, 'metadata arrived');

    // The Prometheus HTTP API of ShoalDB answers like the writer's own API for what it sent.
    for (const query of ['up', 'prometheus_build_info']) {
      const own = await prometheusQuery(writer.url, query);
      const ours = await waitFor(`${query} through /v1/metricsapi/api/v1/query`, 30_000, async () => {
        const r = await prometheusQuery(`${shoal.url}/v1/metricsapi`, query);
        return r.length > 0 ? r : null;
      });
      t.same(
        ours.map((s) => s.metric),
        own.map((s) => s.metric),
        `${query}: the same series and labels as Prometheus itself answers`,
      );
      t.same(
        ours.map((s) => s.value[1]),
        own.map((s) => s.value[1]),
        `${query}: the same value`,
      );
    }
    const rate = await prometheusQuery(
      `${shoal.url}/v1/metricsapi`,
      'sum(rate(prometheus_http_requests_total[1m])) >= 0',
    );
    t.equal(rate.length, 1, 'a rate over remote-written counters evaluates');

    // --- 2. remote read from a Prometheus without targets ---
    const reader: RunningPrometheus = await startPrometheus(
      'reader',
      () => `
global:
  scrape_interval: 1s
remote_read:
  - url: ${shoal.url}/v1/metricsapi/read
    read_recent: true
`,
      (stop) => t.teardown(stop),
    );

    const result = await waitFor('the reader to answer prometheus_build_info', 30_000, async () => {
      const r = await prometheusQuery(reader.url, 'prometheus_build_info');
      return r.length > 0 ? r : null;
    });
    t.equal(result.length, 1, 'one series, from the writer');
    const metric = result[0]?.metric ?? {};
    const expected: Record<string, string> = { __name__: 'prometheus_build_info' };
    for (const [name, value] of Object.entries(buildInfo)) {
      if (name === 'greptime_timestamp' || name === 'greptime_value' || value === null || value === '') continue;
      expected[name] = String(value);
    }
    t.same(metric, expected, 'the reader sees exactly the labels the writer sent');
    t.equal(result[0]?.value[1], '1');

    const readerUp = await prometheusQuery(reader.url, `up{instance="127.0.0.1:${writer.port}"}`);
    t.same(
      readerUp.map((s) => [s.metric.job, s.value[1]]),
      [['prometheus', '1']],
      'the reader sees the writer’s up series',
    );
    const upRows = Number(rowsOf((await sql(shoal.url, 'SELECT count(*) FROM up')).body)[0]?.[0]);
    const counted = await prometheusQuery(reader.url, `count_over_time(up{instance="127.0.0.1:${writer.port}"}[1h])`);
    t.ok(Number(counted[0]?.value[1]) >= Math.min(upRows, 2), 'range selectors read every stored sample');
  },
);
