/**
 * Selective queries through the series index (src/shard/series-index.ts): a SQL `tag = 'x'` or
 * `tag IN (...)` and a PromQL selector with equality or regex matchers visit only the series they
 * name (`shoaldb_scan_series_visited_total`), in the memtable and in flushed segments, and answer
 * exactly what a full walk answers. Matchers that accept a series without the label (`!=`) still
 * walk every series, and a label no series has visits none.
 */
import t, { type Test } from 'tap';
import { metricSum, rowsOf, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

const HOSTS = 150;
const ROWS = 5;
const T0 = 1_700_000_000_000;

function lines(): string {
  const out: string[] = [];
  for (let h = 0; h < HOSTS; h++) {
    for (let i = 0; i < ROWS; i++) out.push(`m,host=h${h},dc=d${h % 3} v=${h * 100 + i} ${T0 + i * 1000}`);
  }
  return out.join('\n');
}

let server: TestServer;
t.before(async () => {
  server = await startServer();
  const res = await writeLines(server.url, lines());
  if (res.status !== 204) throw new Error(`write: ${res.status}`);
});
t.teardown(() => server.stop());

/** Runs `query` and returns its answer and how many series the shards visited for it. */
async function visiting<T>(query: () => Promise<T>): Promise<{ answer: T; visited: number }> {
  const before = await metricSum(server.url, 'shoaldb_scan_series_visited_total');
  const answer = await query();
  return { answer, visited: (await metricSum(server.url, 'shoaldb_scan_series_visited_total')) - before };
}

async function sqlRows(statement: string): Promise<unknown[][]> {
  const res = await sql(server.url, statement);
  if (res.status !== 200) throw new Error(`${statement}: ${JSON.stringify(res.body)}`);
  return rowsOf(res.body);
}

async function promSeries(query: string): Promise<string[]> {
  const params = new URLSearchParams({ query, time: String(T0 / 1000 + 4) });
  const res = await fetch(`${server.url}/v1/metricsapi/api/v1/query?${params}`);
  const body = (await res.json()) as {
    data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  return body.data.result.map((r) => `${r.metric.host}=${r.value[1]}`).sort();
}

async function checkAll(t: Test, stage: string): Promise<void> {
  const one = await visiting(() => sqlRows("SELECT host, v FROM m WHERE host = 'h7' ORDER BY greptime_timestamp"));
  t.same(
    one.answer,
    Array.from({ length: ROWS }, (_, i) => ['h7', 700 + i]),
    `${stage}: SQL equality answers the host's rows`,
  );
  t.equal(one.visited, 1, `${stage}: SQL equality visits one series`);

  const two = await visiting(() =>
    sqlRows("SELECT host, count(*) FROM m WHERE host IN ('h3', 'h40', 'nope') GROUP BY host ORDER BY host"),
  );
  t.same(
    two.answer,
    [
      ['h3', ROWS],
      ['h40', ROWS],
    ],
    `${stage}: SQL IN answers both hosts`,
  );
  t.equal(two.visited, 2, `${stage}: SQL IN visits two series`);

  const both = await visiting(() => sqlRows("SELECT count(*) FROM m WHERE host = 'h3' AND dc = 'd1'"));
  t.same(both.answer, [[0]], `${stage}: contradicting tags answer nothing`);
  t.equal(both.visited, 0, `${stage}: contradicting tags visit no series`);

  const prom = await visiting(() => promSeries('m{host=~"h1[0-2]", dc="d1"}'));
  t.same(prom.answer, ['h10=1004'], `${stage}: PromQL regex and equality answer the one host`);
  t.equal(prom.visited, 1, `${stage}: PromQL visits only that series`);

  const neq = await visiting(() => promSeries('m{host!="h7"}'));
  t.equal(neq.answer.length, HOSTS - 1, `${stage}: PromQL != answers every other host`);
  t.equal(neq.visited, HOSTS, `${stage}: != walks every series`);

  const none = await visiting(() => promSeries('m{nosuch="x"}'));
  t.same(none.answer, [], `${stage}: a label no series has answers nothing`);
  t.equal(none.visited, 0, `${stage}: and visits nothing`);
}

t.test('in the memtable', (t) => checkAll(t, 'memtable'));

t.test('in segments', async (t) => {
  t.equal((await sql(server.url, "ADMIN flush_table('m')")).status, 200, 'flushed');
  await checkAll(t, 'segments');
});
