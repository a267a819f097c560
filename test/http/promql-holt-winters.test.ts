/**
 * `holt_winters` is Prometheus 2.x's name for `double_exponential_smoothing`; Grafana dashboards and
 * recording rules written for 2.x still use it, and GreptimeDB accepts it. Both names must give
 * the same answer, through the Prometheus API and through TQL.
 */
import t from 'tap';
import { sql, startServer } from '../helpers/server.js';

const API = '/v1/metricsapi/api/v1';

t.test('holt_winters answers as double_exponential_smoothing', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    for (const host of ['a', 'b', 'c'])
      lines.push(`hw,host=${host} v=${(i * 7 + host.charCodeAt(0)) % 13} ${1_700_000_000 + i * 10}`);
  }
  const write = await fetch(`${server.url}/v1/lineproto/write?precision=s`, { method: 'POST', body: lines.join('\n') });
  t.equal(write.status, 204);

  const range = async (query: string): Promise<unknown> => {
    const params = new URLSearchParams({ query, start: '1700000100', end: '1700000290', step: '30' });
    const res = await fetch(`${server.url}${API}/query_range?${params}`);
    const body = (await res.json()) as { status: string; data: { result: unknown[] } };
    t.equal(body.status, 'success', query);
    return body.data.result;
  };
  const expected = await range('double_exponential_smoothing(hw[2m], 0.3, 0.6)');
  t.equal((expected as unknown[]).length, 3, 'one series per host');
  t.same(await range('holt_winters(hw[2m], 0.3, 0.6)'), expected);
  t.same(
    await range('sum(holt_winters(hw[2m], 0.3, 0.6))'),
    await range('sum(double_exponential_smoothing(hw[2m], 0.3, 0.6))'),
  );

  // Not a function name elsewhere: a metric or label called holt_winters stays what it is.
  const asMetric = await fetch(`${server.url}${API}/query?query=holt_winters&time=1700000100`);
  t.equal(asMetric.status, 200);

  const tql = async (expr: string) =>
    (await sql(server.url, `TQL EVAL (1700000100, 1700000290, '30s') ${expr}`)).body.output?.[0]?.records?.rows;
  const rows = await tql('holt_winters(hw[2m], 0.3, 0.6)');
  t.ok(Array.isArray(rows) && rows.length > 0, 'TQL answers rows');
  t.same(rows, await tql('double_exponential_smoothing(hw[2m], 0.3, 0.6)'));
});
