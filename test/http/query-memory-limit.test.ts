/**
 * query.memory_limit: a query that would hold more rows or groups than the limit fails with 6000
 * and a message naming the limit, in a shard or in the router; smaller queries on the same data
 * still answer, and so does the server.
 */
import t from 'tap';
import { type SqlBody, sql, startServer } from '../helpers/server.js';

const rows = (b: SqlBody) => b.output?.[0]?.records?.rows;

t.test('queries past the per-query memory limit fail clearly; the rest still run', async (t) => {
  const server = await startServer({ shards: 2, extraToml: '[query]\nmemory_limit = "1MiB"' });
  t.teardown(() => server.stop());
  const q = (s: string) => sql(server.url, s);
  await q('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, w DOUBLE)');
  for (let batch = 0; batch < 8; batch++) {
    const values = Array.from({ length: 5000 }, (_, i) => {
      const n = batch * 5000 + i;
      return `('h${n % 5000}', ${n}, ${n}, ${n * 2})`;
    }).join(', ');
    t.equal((await q(`INSERT INTO m VALUES ${values}`)).status, 200);
  }

  const all = await q('SELECT * FROM m');
  t.equal(all.status, 500, all.text);
  t.equal(all.body.code, 6000);
  t.match(all.body.error, /memory limit of 1MiB \(query\.memory_limit\)/);

  const groups = await q('SELECT host, ts, count(*) FROM m GROUP BY host, ts');
  t.equal(groups.body.code, 6000, 'too many groups in a shard');
  t.match(groups.body.error, /while grouping in a shard/);

  t.same(rows((await q('SELECT count(*), sum(v) FROM m')).body), [[40000, (39999 * 40000) / 2]], 'aggregates fit');
  t.same(
    rows((await q('SELECT v FROM m ORDER BY v DESC LIMIT 3')).body),
    [[39999], [39998], [39997]],
    'a top-k keeps only its best rows, so it fits',
  );
  t.equal(rows((await q("SELECT * FROM m WHERE host = 'h1'")).body)?.length, 8, 'a narrow query fits');
  const join = await q('SELECT a.v FROM m a JOIN m b ON a.host = b.host');
  t.equal(join.body.code, 6000, join.text);
  t.equal((await fetch(`${server.url}/health`)).status, 200, 'the server keeps serving');
});

t.test('memory_limit "0" means unbounded', async (t) => {
  const server = await startServer({ shards: 1, extraToml: '[query]\nmemory_limit = "0"' });
  t.teardown(() => server.stop());
  await sql(server.url, 'CREATE TABLE m (ts TIMESTAMP TIME INDEX, v DOUBLE)');
  const values = Array.from({ length: 20000 }, (_, i) => `(${i}, ${i})`).join(', ');
  await sql(server.url, `INSERT INTO m VALUES ${values}`);
  t.equal(rows((await sql(server.url, 'SELECT * FROM m')).body)?.length, 20000);
});
