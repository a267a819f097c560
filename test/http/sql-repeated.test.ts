/**
 * A query text sent again is answered from what the table holds now: the router keeps parsed
 * queries by text, never their plans or answers, so a column added, a table replaced or rows
 * written since the last time all show, and now() moves on.
 */
import t from 'tap';
import { type SqlBody, sql, startServer } from '../helpers/server.js';

const rows = (b: SqlBody) => b.output?.[0]?.records?.rows;
const names = (b: SqlBody) => b.output?.[0]?.records?.schema.column_schemas.map((c) => c.name);

t.test('the same text twice sees the table as it is each time', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const q = async (s: string) => {
    const res = await sql(server.url, s);
    t.equal(res.status, 200, `${s}: ${res.text}`);
    return res.body;
  };
  await q('CREATE TABLE m (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, v DOUBLE)');
  await q("INSERT INTO m VALUES (1000, 'a', 1), (2000, 'b', 2)");
  const all = 'SELECT * FROM m ORDER BY ts';
  const sum = "SELECT host, sum(v) AS s FROM m WHERE host = 'a' GROUP BY host";

  t.same(names(await q(all)), ['ts', 'host', 'v']);
  t.same(rows(await q(sum)), [['a', 1]]);
  t.same(rows(await q(sum)), [['a', 1]], 'the second time the same');

  await q('ALTER TABLE m ADD COLUMN note STRING');
  await q("INSERT INTO m VALUES (3000, 'a', 4, 'late')");
  const after = await q(all);
  t.same(names(after), ['ts', 'host', 'v', 'note'], 'the added column shows');
  t.same(rows(after), [
    [1000, 'a', 1, null],
    [2000, 'b', 2, null],
    [3000, 'a', 4, 'late'],
  ]);
  t.same(rows(await q(sum)), [['a', 5]], 'rows written since show');

  await q('DROP TABLE m');
  await q('CREATE TABLE m (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, w BIGINT)');
  await q("INSERT INTO m VALUES (5000, 'c', 7)");
  t.same(names(await q(all)), ['ts', 'host', 'w'], 'the replaced table shows');
  const gone = await sql(server.url, sum);
  t.equal(gone.status, 400, 'the old column is an error now, not an old answer');
  t.match(gone.text, /\bv\b/);
});

t.test('now() is read each time the text runs', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  const now = async () => {
    const res = await sql(server.url, 'SELECT now() AS n');
    t.equal(res.status, 200, res.text);
    return rows(res.body)?.[0]?.[0] as number;
  };
  const first = await now();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const second = await now();
  t.ok(second > first, `${second} after ${first}`);
});
