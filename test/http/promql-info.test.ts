/**
 * Prometheus 3's `info()` through the real server: series written by remote write (each metric
 * its own table, spread over the shards), enriched from `target_info` or other info metrics
 * matched on `instance` and `job`, as the OpenTelemetry-to-Prometheus convention expects
 * (resource attributes on `target_info`). The semantics in detail are checked by Prometheus' own
 * `info.test` (test/conformance/promql-upstream.ts); this proves the path through storage:
 * info series found by a `__name__` regex across tables, at each step of a range query.
 */
import t from 'tap';
import { remoteWrite } from '../helpers/prom-remote.js';
import { startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const API = '/v1/metricsapi/api/v1';

interface Result {
  metric: Record<string, string>;
  value?: [number, string];
  values?: Array<[number, string]>;
}

const server = await startServer({ shards: 2 });
t.teardown(() => server.stop());

const series = (labels: Record<string, string>, values: number[]) => ({
  labels,
  samples: values.map((value, i) => ({ value, timestamp: T0 + i * 60_000 })),
});
const write = await remoteWrite(server.url, [
  series({ __name__: 'http_requests', instance: 'a:80', job: 'api', code: '200' }, [1, 2, 3, 4]),
  series({ __name__: 'http_requests', instance: 'b:80', job: 'api', code: '200' }, [5, 6, 7, 8]),
  series({ __name__: 'http_requests', instance: 'c:80', job: 'web', code: '500' }, [9, 9, 9, 9]),
  series({ __name__: 'target_info', instance: 'a:80', job: 'api', k8s_cluster: 'east', version: '1.2' }, [1, 1, 1, 1]),
  series({ __name__: 'target_info', instance: 'b:80', job: 'api', k8s_cluster: 'west', version: '1.3' }, [1, 1, 1, 1]),
  series({ __name__: 'build_info', instance: 'a:80', job: 'api', revision: 'abc' }, [1, 1, 1, 1]),
]);
if (write.status !== 204) throw new Error(`remote write: ${write.status}`);

async function query(q: string, timeMs = T0 + 120_000): Promise<Result[]> {
  const params = new URLSearchParams({ query: q, time: String(timeMs / 1000) });
  const res = await fetch(`${server.url}${API}/query?${params}`);
  const body = (await res.json()) as { status: string; error?: string; data: { result: Result[] } };
  if (body.status !== 'success') throw new Error(`${q}: ${body.error}`);
  return body.data.result.sort((x, y) => (x.metric.instance ?? '').localeCompare(y.metric.instance ?? ''));
}

t.test('info() adds target_info data labels to the series that share instance and job', async (t) => {
  const result = await query('info(http_requests)');
  t.same(
    result.map((r) => [r.metric, r.value?.[1]]),
    [
      [
        { __name__: 'http_requests', instance: 'a:80', job: 'api', code: '200', k8s_cluster: 'east', version: '1.2' },
        '3',
      ],
      [
        { __name__: 'http_requests', instance: 'b:80', job: 'api', code: '200', k8s_cluster: 'west', version: '1.3' },
        '7',
      ],
      // No target_info for c: kept as it is.
      [{ __name__: 'http_requests', instance: 'c:80', job: 'web', code: '500' }, '9'],
    ],
  );
});

t.test('a data label selector limits the labels copied and drops series with no match', async (t) => {
  const result = await query('info(http_requests, {k8s_cluster=~".+"})');
  t.same(
    result.map((r) => r.metric),
    [
      { __name__: 'http_requests', instance: 'a:80', job: 'api', code: '200', k8s_cluster: 'east' },
      { __name__: 'http_requests', instance: 'b:80', job: 'api', code: '200', k8s_cluster: 'west' },
    ],
  );
  t.same(
    (await query('sum by (k8s_cluster) (info(rate(http_requests[3m]), {k8s_cluster=~".+"}))', T0 + 180_000)).map(
      (r) => r.metric,
    ),
    [{ k8s_cluster: 'east' }, { k8s_cluster: 'west' }].sort((x, y) => x.k8s_cluster.localeCompare(y.k8s_cluster)),
    'after rate() and into an aggregation, as dashboards use it',
  );
});

t.test('other info metrics by __name__, one regex over several tables', async (t) => {
  const result = await query('info(http_requests{instance="a:80"}, {__name__=~".+_info"})');
  t.same(
    result.map((r) => r.metric),
    [
      {
        __name__: 'http_requests',
        instance: 'a:80',
        job: 'api',
        code: '200',
        k8s_cluster: 'east',
        version: '1.2',
        revision: 'abc',
      },
    ],
  );
});

t.test('a range query enriches every step', async (t) => {
  const params = new URLSearchParams({
    query: 'info(http_requests{instance="b:80"})',
    start: String(T0 / 1000),
    end: String((T0 + 180_000) / 1000),
    step: '60',
  });
  const body = (await (await fetch(`${server.url}${API}/query_range?${params}`)).json()) as {
    data: { result: Result[] };
  };
  t.same(
    body.data.result.map((r) => [r.metric.k8s_cluster, r.values?.map((v) => v[1])]),
    [['west', ['5', '6', '7', '8']]],
  );
});

t.test('two info series of one signature at one time are a conflict', async (t) => {
  const dup = await remoteWrite(server.url, [
    series({ __name__: 'dup_info', instance: 'a:80', job: 'api', x: '1' }, [1]),
    series({ __name__: 'dup_info', instance: 'a:80', job: 'api', x: '2' }, [1]),
  ]);
  t.equal(dup.status, 204);
  const params = new URLSearchParams({ query: 'info(http_requests, {__name__="dup_info"})', time: String(T0 / 1000) });
  const res = await fetch(`${server.url}${API}/query?${params}`);
  const body = (await res.json()) as { status: string; error: string };
  t.equal(body.status, 'error');
  t.match(body.error, /found duplicate series for info metric/);
});
