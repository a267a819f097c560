/**
 * `query.timeout`: the server's deadline for every query, whatever the client asks. SQL answers
 * the reference's 408 (as `http.timeout` does) and the work stops in the shards; the Prometheus
 * API caps its `timeout` parameter with it and answers Prometheus' own timeout error. Writes and
 * other routes are not bound by it.
 */
import t from 'tap';
import { sql, startServer, writeLines } from '../helpers/server.js';

const SLOW_SQL = `SELECT greptime_timestamp, host, min(v) RANGE '1s' FILL LINEAR FROM m ALIGN '1s' BY (host)`;
// 2.2 M subquery steps over 20 series: about 0.65 s on the 2-core machine once warm.
const SLOW_PROMQL = 'sum_over_time(p[25d:1s])';

/** Two samples 800,000 s apart for each of 20 series of table p, for the slow PromQL. */
function promqlRows(): string {
  return Array.from({ length: 20 }, (_, i) => `p,host=h${i} v=1 1700000000\np,host=h${i} v=2 1700799999`).join('\n');
}

t.test('query.timeout cuts slow queries off, and only queries', async (t) => {
  const server = await startServer({ extraToml: '[query]\ntimeout = "300ms"' });
  t.teardown(() => server.stop());
  const slots = 800_000;
  const rows = `m,host=a v=1 1700000000\nm,host=a v=2 ${1_700_000_000 + slots - 1}`;
  t.equal((await writeLines(server.url, rows, 'db=public&precision=s')).status, 204);
  t.equal((await writeLines(server.url, promqlRows(), 'db=public&precision=s')).status, 204);

  let started = performance.now();
  const slow = await sql(server.url, SLOW_SQL);
  let ms = performance.now() - started;
  t.equal(slow.status, 408, 'SQL past the deadline: 408');
  t.ok(ms < 2000, `answered after ${ms.toFixed(0)} ms`);

  started = performance.now();
  const promql = await fetch(
    `${server.url}/v1/metricsapi/api/v1/query?query=${encodeURIComponent(SLOW_PROMQL)}&time=1700800000&timeout=1m`,
  );
  ms = performance.now() - started;
  const body = (await promql.json()) as { status: string; errorType: string; error: string };
  t.equal(promql.status, 503, 'PromQL past the deadline, though it asked for a minute');
  t.same(body, { status: 'error', errorType: 'timeout', error: 'query timed out in expression evaluation' });
  t.ok(ms < 2000, `answered after ${ms.toFixed(0)} ms`);

  // Quick queries and writes are not affected, and the server is still serving.
  t.equal((await writeLines(server.url, 'm,host=b v=3 1700000001', 'db=public&precision=s')).status, 204);
  const count = await sql(server.url, 'SELECT count(*) FROM m');
  t.same(count.body.output?.[0]?.records?.rows, [[3]]);
  const health = await fetch(`${server.url}/health`);
  t.equal(health.status, 200);
});

t.test('without query.timeout the same queries finish', async (t) => {
  const server = await startServer({ extraToml: '[query]\ntimeout = "0s"' });
  t.teardown(() => server.stop());
  const rows = 'm,host=a v=1 1700000000\nm,host=a v=2 1700799999';
  t.equal((await writeLines(server.url, rows, 'db=public&precision=s')).status, 204);
  t.equal((await writeLines(server.url, promqlRows(), 'db=public&precision=s')).status, 204);
  const slow = await sql(server.url, SLOW_SQL);
  t.equal(slow.status, 200);
  t.equal(slow.body.output?.[0]?.records?.rows?.length, 800_000);
  const promql = await fetch(
    `${server.url}/v1/metricsapi/api/v1/query?query=${encodeURIComponent(SLOW_PROMQL)}&time=1700800000`,
  );
  t.equal(promql.status, 200);
  const answer = (await promql.json()) as { data: { result: { value: [number, string] }[] } };
  t.equal(answer.data.result.length, 20, 'the subquery was evaluated for every series');
});
