/**
 * A column added with a DEFAULT reads that default for rows written before it existed (and for
 * writes that leave it out), wherever those rows live: memtable, segments, after compaction and a
 * restart. An explicit NULL stays NULL.
 */
import t from 'tap';
import { checkedSql, type SqlBody, startServer, writeLines } from '../helpers/server.js';

const rows = (b: SqlBody) => b.output?.[0]?.records?.rows;

t.test('ALTER TABLE ADD COLUMN ... DEFAULT backfills older rows at read time', async (t) => {
  const first = await startServer({ shards: 2 });
  let server = first;
  t.teardown(() => server.stop());
  const q = checkedSql(t, () => server.url);
  await q('CREATE TABLE t (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)');
  await q("INSERT INTO t VALUES ('a', 1, 1), ('b', 2, 2)");
  await q("ADMIN flush_table('t')");
  await q("INSERT INTO t VALUES ('a', 3, 3)");
  await q('ALTER TABLE t ADD COLUMN c DOUBLE DEFAULT 7.5');
  await q("ALTER TABLE t ADD COLUMN s STRING DEFAULT 'dflt'");
  await q("INSERT INTO t (h, ts, v, c, s) VALUES ('a', 4, 4, NULL, NULL), ('b', 5, 5, 1, 'x')");
  t.equal((await writeLines(server.url, 't,h=c v=6 6')).status, 204, 'a line-protocol write leaving c and s out');

  const expected = [
    ['a', 1, 1, 7.5, 'dflt'],
    ['b', 2, 2, 7.5, 'dflt'],
    ['a', 3, 3, 7.5, 'dflt'],
    ['a', 4, 4, null, null],
    ['b', 5, 5, 1, 'x'],
    ['c', 6, 6, 7.5, 'dflt'],
  ];
  const read = async () => rows(await q('SELECT h, ts, v, c, s FROM t ORDER BY ts'));
  t.same(await read(), expected, 'memtable and segment rows');
  t.same(rows(await q('SELECT count(*) FROM t WHERE c = 7.5')), [[4]], 'filters see the default');
  await q("ADMIN flush_table('t')");
  await q("ADMIN compact_table('t')");
  t.same(await read(), expected, 'after flush and compaction');
  await server.kill();
  server = await startServer({ shards: 2, dataDir: first.dataDir });
  t.same(await read(), expected, 'after a restart');
});
