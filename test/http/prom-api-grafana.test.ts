/**
 * What Grafana's Prometheus datasource asks when a dashboard loads, request by request as Grafana
 * sends them (backend queries as POST forms with float-second times and `step` in seconds; the
 * query editor's resource calls as GETs with integer-second ranges), and the Prometheus-shaped
 * answers it needs to parse.
 */
import t from 'tap';
import { remoteWrite } from '../helpers/prom-remote.js';
import { startServer } from '../helpers/server.js';

const BASE = '/v1/metricsapi';

t.test('a Grafana dashboard load gets Prometheus answers', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const datasource = `${server.url}${BASE}`;

  // An hour of node_cpu_seconds_total counters ending now, one sample every 15 seconds.
  const endMs = Math.floor(Date.now() / 15_000) * 15_000;
  const startMs = endMs - 3_600_000;
  const times = Array.from({ length: 241 }, (_, i) => startMs + i * 15_000);
  const written = await remoteWrite(server.url, [
    {
      labels: { __name__: 'node_cpu_seconds_total', instance: 'h1:9100', job: 'node', mode: 'idle' },
      samples: times.map((timestamp, i) => ({ value: i * 14.5, timestamp })),
    },
    {
      labels: { __name__: 'node_cpu_seconds_total', instance: 'h1:9100', job: 'node', mode: 'user' },
      samples: times.map((timestamp, i) => ({ value: i * 0.5, timestamp })),
    },
  ]);
  t.equal(written.status, 204, written.text);

  const json = async (res: Response) => {
    t.equal(res.headers.get('content-type'), 'application/json', `${res.url} is JSON`);
    return (await res.json()) as { status: string; data: unknown; errorType?: string };
  };
  const fromSeconds = String(Math.floor(startMs / 1000));
  const toSeconds = String(Math.floor(endMs / 1000));

  // 1. Datasource health check and version detection.
  const buildInfo = await json(await fetch(`${datasource}/api/v1/status/buildinfo`));
  t.equal(buildInfo.status, 'success');
  t.match(buildInfo.data, { version: /^\d+\.\d+\.\d+/, revision: String, branch: String, goVersion: String });
  const health = await json(
    await fetch(`${datasource}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: '1+1', time: String(endMs / 1000) }).toString(),
    }),
  );
  t.strictSame(health, { status: 'success', data: { resultType: 'scalar', result: [endMs / 1000, '2'] } });

  // 2. The query editor's metric and label browsers.
  const labelNames = await json(await fetch(`${datasource}/api/v1/labels?start=${fromSeconds}&end=${toSeconds}`));
  t.strictSame(labelNames, { status: 'success', data: ['__name__', 'instance', 'job', 'mode'] });
  const metricNames = await json(
    await fetch(`${datasource}/api/v1/label/__name__/values?start=${fromSeconds}&end=${toSeconds}`),
  );
  t.strictSame(metricNames, { status: 'success', data: ['node_cpu_seconds_total'] });
  const modes = await json(
    await fetch(
      `${datasource}/api/v1/label/mode/values?start=${fromSeconds}&end=${toSeconds}&match[]=${encodeURIComponent('node_cpu_seconds_total{job="node"}')}`,
    ),
  );
  t.strictSame(modes, { status: 'success', data: ['idle', 'user'] });
  const series = await json(
    await fetch(
      `${datasource}/api/v1/series?start=${fromSeconds}&end=${toSeconds}&match[]=${encodeURIComponent('{__name__="node_cpu_seconds_total"}')}`,
    ),
  );
  t.strictSame(series, {
    status: 'success',
    data: [
      { __name__: 'node_cpu_seconds_total', instance: 'h1:9100', job: 'node', mode: 'idle' },
      { __name__: 'node_cpu_seconds_total', instance: 'h1:9100', job: 'node', mode: 'user' },
    ],
  });
  const metadata = await json(await fetch(`${datasource}/api/v1/metadata`));
  t.strictSame(metadata, { status: 'success', data: {} });

  // 3. A time series panel: rate by mode over the last 30 minutes, step 60 seconds.
  const panelStart = (endMs - 1_800_000) / 1000;
  const panelEnd = endMs / 1000;
  const panel = await json(
    await fetch(`${datasource}/api/v1/query_range`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        query: 'sum by (mode) (rate(node_cpu_seconds_total{job="node"}[$__rate_interval]))'.replace(
          '$__rate_interval',
          '1m',
        ),
        start: String(panelStart),
        end: String(panelEnd),
        step: '60',
      }).toString(),
    }),
  );
  t.equal(panel.status, 'success');
  const data = panel.data as { resultType: string; result: Array<{ metric: object; values: Array<[number, string]> }> };
  t.equal(data.resultType, 'matrix');
  t.strictSame(
    data.result.map((r) => r.metric),
    [{ mode: 'idle' }, { mode: 'user' }],
  );
  for (const r of data.result) {
    t.equal(r.values.length, 31, 'one point per step, both ends included');
    t.equal(r.values[0]?.[0], panelStart);
    t.ok(
      r.values.every(([ts, v], i) => ts === panelStart + i * 60 && typeof v === 'string'),
      'timestamps are float seconds, values strings',
    );
  }
  t.ok(Math.abs(Number(data.result[0]?.values[0]?.[1]) - 14.5 / 15) < 1e-9, 'idle rate');

  // 4. A stat panel: an instant query at the end of the range.
  const stat = await json(
    await fetch(`${datasource}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: 'count(node_cpu_seconds_total)', time: String(panelEnd) }).toString(),
    }),
  );
  t.strictSame(stat, {
    status: 'success',
    data: { resultType: 'vector', result: [{ metric: {}, value: [panelEnd, '2'] }] },
  });

  // 5. A panel with a typo: Grafana shows `error` and keys off `errorType`.
  const typo = await fetch(`${datasource}/api/v1/query_range`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      query: 'rate(node_cpu_seconds_total[1m]',
      start: '0',
      end: '60',
      step: '15',
    }).toString(),
  });
  t.equal(typo.status, 400);
  const typoBody = await json(typo);
  t.equal(typoBody.status, 'error');
  t.equal(typoBody.errorType, 'bad_data');
});
