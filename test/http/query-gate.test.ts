/**
 * max_concurrent_queries: past the bound a query is refused at once with 503 and Retry-After in
 * its route's error shape; the slot comes back when the running query ends, and non-query routes
 * and writes are never refused by it.
 */
import t from 'tap';
import { sql, startServer, writeLines } from '../helpers/server.js';

t.test('a query past max_concurrent_queries is refused with 503 and Retry-After', async (t) => {
  const server = await startServer({ shards: 2, topLevelToml: 'max_concurrent_queries = 1' });
  t.teardown(() => server.stop());
  const rows = ['m,host=a v=1 0', 'm,host=a v=2 4102444800', 'm,host=b v=3 1700000000'].join('\n');
  t.equal((await writeLines(server.url, rows, 'db=public&precision=s')).status, 204);

  // A join that works for about a second before the memory limit refuses it holds the one slot.
  const aliases = Array.from({ length: 20 }, (_, i) => `m t${i}`);
  const slow = sql(server.url, `SELECT count(*) FROM ${aliases.join(', ')}`);
  await new Promise((r) => setTimeout(r, 200));

  const refused = await sql(server.url, 'SELECT count(*) FROM m');
  t.equal(refused.status, 503, refused.text);
  t.equal(refused.headers.get('retry-after'), '1');
  t.equal(refused.body.code, 4009);
  t.match(refused.body.error, /Too many concurrent queries.*max_concurrent_queries/);

  const prom = await fetch(`${server.url}/v1/metricsapi/api/v1/query?query=m&time=1700000000`);
  t.equal(prom.status, 503);
  t.equal(prom.headers.get('retry-after'), '1');
  t.match(await prom.json(), { status: 'error', error: /Too many concurrent queries/ });

  const format = await fetch(`${server.url}/v1/metricsapi/api/v1/format_query?query=sum(m)`);
  t.equal(format.status, 200, 'format_query is not a query');
  t.equal((await writeLines(server.url, 'm,host=c v=4 1700000001', 'db=public&precision=s')).status, 204);

  t.equal((await slow).body.code, 6000, 'the running query ends on its own terms');
  const after = await sql(server.url, 'SELECT count(*) FROM m');
  t.same(after.body.output?.[0]?.records?.rows, [[4]], 'the slot is free again');
});

t.test('every query up to the bound is answered, however many a shard is asked at once', async (t) => {
  // Each query sends one task to each shard; more than the worker's task slots at once used to be
  // refused by the thread pool's own queue bound (500, "Internal error"), now they wait their turn.
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const lines = Array.from({ length: 2000 }, (_, i) => `cq,host=h${i % 50} v=${i} ${1_700_000_000_000 + i * 1000}`);
  t.equal((await writeLines(server.url, lines.join('\n'))).status, 204);

  const n = 32; // the default max_concurrent_queries
  const sqlAnswers = Promise.all(
    Array.from({ length: n / 2 }, (_, i) => sql(server.url, `SELECT count(*) FROM cq WHERE v >= ${i}`)),
  );
  const promAnswers = Promise.all(
    Array.from({ length: n / 2 }, async () => {
      const q = encodeURIComponent('count(cq)');
      const res = await fetch(`${server.url}/v1/metricsapi/api/v1/query?query=${q}&time=1700002000`);
      return { status: res.status, body: (await res.json()) as { data?: { result?: Array<{ value: unknown[] }> } } };
    }),
  );
  // Writes meanwhile take their own slots.
  const write = writeLines(server.url, 'cq_other,host=late v=1 1700000005000');
  const answers = await sqlAnswers;
  answers.forEach((a, i) => {
    t.equal(a.status, 200, a.text);
    t.same(a.body.output?.[0]?.records?.rows, [[2000 - i]], `SQL query ${i}`);
  });
  for (const a of await promAnswers) {
    t.equal(a.status, 200);
    t.equal(a.body.data?.result?.[0]?.value?.[1], '50', JSON.stringify(a.body));
  }
  t.equal((await write).status, 204);

  // Every write and decode task the router counted toward a shard was counted down by it.
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const waiting = [...metrics.matchAll(/^shoaldb_shard_write_tasks_waiting\{shard="(\d)"\} (\d+)$/gm)];
  t.equal(waiting.length, 2);
  for (const m of waiting) t.equal(m[2], '0', `shard ${m[1]} has no write task left waiting`);
});
