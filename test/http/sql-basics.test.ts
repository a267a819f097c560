/** The first SQL slice over HTTP: DDL, INSERT, SELECT with filters, ordering, aggregates, SHOW/DESC. */
import t from 'tap';
import { type SqlBody, sql, startServer } from '../helpers/server.js';

const rows = (b: SqlBody) => b.output?.[0]?.records?.rows;
const names = (b: SqlBody) => b.output?.[0]?.records?.schema.column_schemas.map((c) => c.name);

t.test('DDL, INSERT and SELECT work end to end across shards', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const q = (s: string, db?: string) => sql(server.url, s, db);

  t.same((await q('CREATE DATABASE shop')).body.output, [{ affectedrows: 1 }]);
  const dup = await q('CREATE DATABASE shop');
  t.equal(dup.status, 400);
  t.equal(dup.body.code, 4011);
  t.equal((await q('CREATE DATABASE IF NOT EXISTS shop')).status, 200, 'IF NOT EXISTS is not an error');

  const create = await q(
    'CREATE TABLE sales (ts TIMESTAMP TIME INDEX, region STRING, store STRING, amount DOUBLE, qty BIGINT, PRIMARY KEY (region, store))',
    'shop',
  );
  t.equal(create.status, 200, create.text);

  const insert = await q(
    `INSERT INTO sales (ts, region, store, amount, qty) VALUES
      ('2024-01-01 00:00:00', 'eu', 's1', 10.5, 1),
      ('2024-01-01 00:01:00', 'eu', 's2', 20, 2),
      (1704067320000, 'us', 's3', 30.25, 3),
      ('2024-01-01T00:03:00Z', 'us', 's3', NULL, 4),
      ('2024-01-01 00:04:00', 'ap', 's4', 5, NULL)`,
    'shop',
  );
  t.same(insert.body.output, [{ affectedrows: 5 }], insert.text);

  const all = await q('SELECT region, store, amount, qty, ts FROM sales ORDER BY ts', 'shop');
  t.same(rows(all.body), [
    ['eu', 's1', 10.5, 1, 1704067200000],
    ['eu', 's2', 20, 2, 1704067260000],
    ['us', 's3', 30.25, 3, 1704067320000],
    ['us', 's3', null, 4, 1704067380000],
    ['ap', 's4', 5, null, 1704067440000],
  ]);

  const filtered = await q(
    "SELECT store, amount FROM sales WHERE region IN ('eu', 'us') AND amount > 15 OR store LIKE 's4%' ORDER BY amount DESC",
    'shop',
  );
  t.same(rows(filtered.body), [
    ['s3', 30.25],
    ['s2', 20],
    ['s4', 5],
  ]);

  const timeRange = await q(
    "SELECT count(*) FROM sales WHERE ts >= '2024-01-01 00:01:00' AND ts < '2024-01-01 00:04:00'",
    'shop',
  );
  t.same(rows(timeRange.body), [[3]]);

  const grouped = await q(
    'SELECT region, count(*), sum(amount), avg(amount), min(qty), max(qty) FROM sales GROUP BY region ORDER BY region',
    'shop',
  );
  t.equal(grouped.status, 200, grouped.text);
  t.same(rows(grouped.body), [
    ['ap', 1, 5, 5, null, null],
    ['eu', 2, 30.5, 15.25, 1, 2],
    ['us', 2, 30.25, 30.25, 3, 4],
  ]);

  const paged = await q('SELECT qty FROM sales WHERE qty IS NOT NULL ORDER BY qty LIMIT 2 OFFSET 1', 'shop');
  t.same(rows(paged.body), [[2], [3]]);

  const dbs = await q('SHOW DATABASES');
  t.same(names(dbs.body), ['Database']);
  t.ok(rows(dbs.body)?.some((r) => r[0] === 'shop'));
  const tables = await q('SHOW TABLES', 'shop');
  t.same(rows(tables.body), [['sales']]);
  const desc = await q('DESCRIBE TABLE sales', 'shop');
  t.same(names(desc.body), ['Column', 'Type', 'Key', 'Null', 'Default', 'Semantic Type']);
  t.same(rows(desc.body)?.[0], ['ts', 'TimestampMillisecond', 'PRI', 'NO', '', 'TIMESTAMP']);

  const missing = await q('SELECT * FROM nope', 'shop');
  t.equal(missing.status, 400);
  t.equal(missing.body.code, 4001);
  t.equal(missing.headers.get('x-greptime-err-code'), '4001');

  const syntax = await q('SELEC 1');
  t.equal(syntax.status, 400);
  t.equal(syntax.body.code, 2000);
  t.match(syntax.body.error, /^Invalid SQL syntax/);

  // Nesting past sqlparser's recursion limit is a syntax error, not a stack overflow (500).
  const deep = await q(`SELECT ${'('.repeat(5000)}1${')'.repeat(5000)}`);
  t.equal(deep.status, 400);
  t.equal(deep.body.error, 'Invalid SQL syntax: sql parser error: recursion limit exceeded');
  t.equal((await q('SELECT ((((1))))')).status, 200, 'shallow nesting still parses');

  const badDb = await q('SELECT 1', 'nodb');
  t.equal(badDb.status, 400);
  t.equal(badDb.body.code, 4004);

  t.same((await q('DROP TABLE sales', 'shop')).body.output, [{ affectedrows: 0 }]);
  t.equal((await q('SELECT * FROM sales', 'shop')).body.code, 4001);
  const recreated = await q('CREATE TABLE sales (ts TIMESTAMP TIME INDEX, v DOUBLE)', 'shop');
  t.equal(recreated.status, 200);
  t.same(rows((await q('SELECT count(*) FROM sales', 'shop')).body), [[0]], 'a re-created table starts empty');
});

t.test('several statements in one request answer one output each', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const res = await sql(server.url, 'SELECT 1; SELECT 2 + 3 AS x');
  t.equal(res.body.output?.length, 2);
  t.same(res.body.output?.[1]?.records?.rows, [[5]]);
  t.same(res.body.output?.[1]?.records?.schema.column_schemas, [{ name: 'x', data_type: 'Int64' }]);
});
