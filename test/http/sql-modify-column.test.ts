/**
 * ALTER TABLE ... MODIFY COLUMN to a type stored differently: older rows stay in storage as they
 * were written and every read casts them (a value that does not cast reads NULL); newer rows are
 * stored as the new type. Holds through flush, compaction and a restart, and back again.
 */
import t from 'tap';
import { checkedSql, type SqlBody, sql, startServer } from '../helpers/server.js';

const rows = (b: SqlBody) => b.output?.[0]?.records?.rows;

t.test('MODIFY COLUMN across storage kinds casts older rows when read', async (t) => {
  const first = await startServer({ shards: 2 });
  let server = first;
  t.teardown(() => server.stop());
  const q = checkedSql(t, () => server.url);
  await q('CREATE TABLE m (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, s STRING, n BIGINT)');
  await q("INSERT INTO m VALUES ('a', 1, '1.5', 10), ('b', 2, 'x', 20)");
  await q("ADMIN flush_table('m')");
  await q("INSERT INTO m VALUES ('a', 3, '-2e3', 30)");
  await q('ALTER TABLE m MODIFY COLUMN s DOUBLE');
  await q('ALTER TABLE m MODIFY COLUMN n STRING');
  await q("INSERT INTO m VALUES ('b', 4, 4.25, 'forty')");

  const describe = rows(await q('DESC TABLE m'))?.map((r) => [r[0], r[1]]);
  t.same(describe?.slice(2), [
    ['s', 'Float64'],
    ['n', 'String'],
  ]);
  const expected = [
    ['a', 1, 1.5, '10'],
    ['b', 2, null, '20'],
    ['a', 3, -2000, '30'],
    ['b', 4, 4.25, 'forty'],
  ];
  const read = async () => rows(await q('SELECT h, ts, s, n FROM m ORDER BY ts'));
  t.same(await read(), expected, 'old rows cast, new rows native');
  t.same(rows(await q('SELECT sum(s) FROM m WHERE s > 0')), [[5.75]], 'filters and aggregates see cast values');
  await q("ADMIN flush_table('m')");
  await q("ADMIN compact_table('m')");
  t.same(await read(), expected, 'after flush and compaction');
  await server.kill();
  server = await startServer({ shards: 2, dataDir: first.dataDir });
  t.same(await read(), expected, 'after a restart');

  await q('ALTER TABLE m MODIFY COLUMN s STRING');
  t.same(
    (await read())?.map((r) => r[2]),
    ['1.5', 'x', '-2e3', '4.25'],
    'back to STRING: the original strings read natively again, the DOUBLE-era value is cast',
  );
  const decimal = await sql(server.url, 'ALTER TABLE m MODIFY COLUMN n DECIMAL(10, 2)');
  t.equal(decimal.status, 400, 'a change of kind to a type reads cannot cast into is refused');
  t.equal(decimal.body.code, 1001, decimal.text);
});
