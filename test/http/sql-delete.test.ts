/** DELETE over HTTP: rows go away across shards, stay gone through flush and a crash, and can be written again. */
import t from 'tap';
import { type SqlBody, sql, startServer } from '../helpers/server.js';

const rows = (b: SqlBody) => b.output?.[0]?.records?.rows;

t.test('DELETE removes the rows its WHERE selects, durably', async (t) => {
  const server = await startServer({ shards: 2 });
  let current = server;
  t.teardown(() => current.stop());
  const q = (s: string) => sql(current.url, s);

  await q('CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, usage DOUBLE, note STRING)');
  const values = Array.from({ length: 40 }, (_, i) => `('h${i % 8}', ${1000 + i}, ${i}, 'n${i}')`).join(', ');
  t.same((await q(`INSERT INTO cpu VALUES ${values}`)).body.output, [{ affectedrows: 40 }]);

  const byField = await q('DELETE FROM cpu WHERE usage >= 30');
  t.same(byField.body.output, [{ affectedrows: 10 }], byField.text);
  const byTag = await q("DELETE FROM cpu WHERE host = 'h0'");
  t.same(byTag.body.output, [{ affectedrows: 4 }], 'h0 had 4 rows left below usage 30');
  t.same((await q("DELETE FROM cpu WHERE host = 'nobody'")).body.output, [{ affectedrows: 0 }]);

  const expected = Array.from({ length: 30 }, (_, i) => i).filter((i) => i % 8 !== 0);
  const usages = async () => rows((await q('SELECT usage FROM cpu ORDER BY usage')).body)?.map((r) => r[0]);
  t.same(await usages(), expected);
  t.same(rows((await q('SELECT count(*) FROM cpu')).body), [[expected.length]], 'count(*) agrees');

  await q("ADMIN flush_table('cpu')");
  t.same(await usages(), expected, 'unchanged after a flush');
  await q('DELETE FROM cpu WHERE usage < 5');
  await current.kill();
  current = await startServer({ shards: 2, dataDir: server.dataDir });
  const afterCrash = expected.filter((u) => u >= 5);
  t.same(await usages(), afterCrash, 'a delete acknowledged before a crash stays applied');

  t.same((await q("INSERT INTO cpu VALUES ('h1', 1001, 101, 'back')")).body.output, [{ affectedrows: 1 }]);
  t.same(
    rows((await q("SELECT usage, note FROM cpu WHERE host = 'h1' AND ts = 1001")).body),
    [[101, 'back']],
    'a deleted row can be written again',
  );
  await q("ADMIN compact_table('cpu')");
  t.equal((await usages())?.length, afterCrash.length + 1, 'compaction keeps deletes applied');
});

t.test('DELETE errors: unknown table, bad syntax; the statement formats canonically', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  const missing = await sql(server.url, 'DELETE FROM nope WHERE a = 1');
  t.equal(missing.status, 400);
  t.equal(missing.body.code, 4001, missing.text);
  const bad = await sql(server.url, 'DELETE monitor WHERE a = 1');
  t.equal(bad.status, 400);
  t.equal(bad.body.code, 2000, bad.text);
  await sql(server.url, 'CREATE TABLE m (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)');
  const unknownColumn = await sql(server.url, 'DELETE FROM m WHERE zzz = 1');
  t.equal(unknownColumn.status, 400, unknownColumn.text);
  const format = await fetch(
    `${server.url}/v1/sql/format?sql=${encodeURIComponent("delete from m where h='x' and v>1")}`,
  );
  t.same(await format.json(), { formatted: "DELETE FROM m WHERE h = 'x' AND v > 1;" });
});
