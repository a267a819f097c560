import t from 'tap';
import { rows, run, TestEnv } from './helpers/test-env.js';

// ALTER TABLE, TRUNCATE, ADMIN and EXPLAIN through executeSql over in-memory shards.

async function setup(): Promise<TestEnv> {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE t (i INT, j TIMESTAMP TIME INDEX)');
  await run(env, 'INSERT INTO t VALUES (1, 1), (2, 2)');
  return env;
}

function columnNames(env: TestEnv): string[] {
  return env.getTable('public', 't')?.columns.map((c) => c.name) ?? [];
}

t.test('ADD COLUMN appends a column that older rows read as NULL', async (t) => {
  const env = await setup();
  await run(env, 'ALTER TABLE t ADD COLUMN k INT, ADD COLUMN host STRING PRIMARY KEY');
  t.same(columnNames(env), ['i', 'j', 'k', 'host']);
  t.same(env.getTable('public', 't')?.primaryKey, ['host']);
  t.same(await rows(env, 'SELECT * FROM t'), [
    [1, 1n, null, null],
    [2, 2n, null, null],
  ]);
  await run(env, "INSERT INTO t VALUES (3, 3, 30, 'h')");
  t.same(await rows(env, 'SELECT k, host FROM t WHERE i = 3'), [[30, 'h']]);
});

t.test('ADD COLUMN refuses an existing name unless IF NOT EXISTS, and places FIRST / AFTER', async (t) => {
  const env = await setup();
  await t.rejects(run(env, 'ALTER TABLE t ADD COLUMN i INT'), {
    code: 4003,
    message: 'Column i already exists in table t',
  });
  await run(env, 'ALTER TABLE t ADD COLUMN IF NOT EXISTS i INT');
  await run(env, 'ALTER TABLE t ADD COLUMN a INT FIRST, ADD COLUMN b INT AFTER i');
  t.same(columnNames(env), ['a', 'i', 'b', 'j']);
});

t.test('a NOT NULL column added with a DEFAULT reads the default for older rows', async (t) => {
  const env = await setup();
  await run(env, 'ALTER TABLE t ADD COLUMN o INT NOT NULL DEFAULT 400');
  t.same(await rows(env, 'SELECT i, o FROM t'), [
    [1, 400],
    [2, 400],
  ]);
});

t.test('DROP COLUMN removes a field; a re-added name starts empty', async (t) => {
  const env = await setup();
  await run(env, 'ALTER TABLE t DROP COLUMN i');
  t.same(await rows(env, 'SELECT * FROM t'), [[1n], [2n]]);
  await run(env, 'ALTER TABLE t ADD COLUMN i INT');
  t.same(await rows(env, 'SELECT i FROM t'), [[null], [null]]);
  await t.rejects(run(env, 'ALTER TABLE t DROP COLUMN j'), {
    code: 1004,
    message: 'Not allowed to remove index column j from table t',
  });
  await t.rejects(run(env, 'ALTER TABLE t DROP COLUMN nope'), {
    code: 4002,
    message: 'Column nope not exists in table t',
  });
});

t.test('RENAME keeps the data and refuses taken or invalid names', async (t) => {
  const env = await setup();
  await run(env, 'ALTER TABLE t RENAME u');
  t.same(await rows(env, 'SELECT i FROM u'), [[1], [2]]);
  await t.rejects(run(env, 'SELECT * FROM t'), { code: 4001 });
  await run(env, 'CREATE TABLE t (i INT, j TIMESTAMP TIME INDEX)');
  await t.rejects(run(env, 'ALTER TABLE u RENAME t'), {
    code: 4000,
    message: 'Table already exists, table: greptime.public.t',
  });
  await t.rejects(run(env, "ALTER TABLE u RENAME 'a b'"), { code: 1002 });
});

t.test('MODIFY COLUMN sets and drops defaults with GreptimeDB checks', async (t) => {
  const env = await setup();
  await run(env, "ALTER TABLE t ADD COLUMN m TIMESTAMP DEFAULT '2024-01-30 00:00:00'");
  t.equal(env.getTable('public', 't')?.columns[2]?.defaultSql, "'2024-01-30 00:00:00+0000'");
  await run(env, 'ALTER TABLE t MODIFY COLUMN i SET DEFAULT 7');
  await run(env, 'INSERT INTO t (j) VALUES (3)');
  t.same(await rows(env, 'SELECT i FROM t WHERE j = 3'), [[7]]);
  await run(env, 'ALTER TABLE t MODIFY COLUMN i DROP DEFAULT');
  t.equal(env.getTable('public', 't')?.columns[0]?.defaultSql, undefined);
  await run(env, 'ALTER TABLE t ADD COLUMN o INT NOT NULL DEFAULT 1');
  await t.rejects(run(env, 'ALTER TABLE t MODIFY COLUMN o DROP DEFAULT'), {
    code: 1004,
    message: 'Invalid alter table(t) request: column o is not nullable and `default` cannot be dropped',
  });
  await t.rejects(run(env, 'ALTER TABLE t MODIFY COLUMN o SET DEFAULT NULL'), { code: 1004 });
});

t.test('MODIFY COLUMN changes a field type; across storage kinds older rows are cast when read', async (t) => {
  const env = await setup();
  await run(env, 'ALTER TABLE t MODIFY COLUMN i DOUBLE');
  t.same(await rows(env, 'SELECT i FROM t'), [[1], [2]]);
  t.equal(env.getTable('public', 't')?.columns[0]?.type, 'Float64');
  await run(env, 'ALTER TABLE t MODIFY COLUMN i STRING');
  t.same(env.getTable('public', 't')?.columns[0]?.priorTypes, ['Float64']);
  t.same(await rows(env, 'SELECT i FROM t'), [['1.0'], ['2.0']], 'cast as Arrow casts a double to text');
  await t.rejects(run(env, 'ALTER TABLE t MODIFY COLUMN i DECIMAL(10, 2)'), { code: 1001 });
});

t.test('SET and UNSET change table options', async (t) => {
  const env = await setup();
  await run(env, "ALTER TABLE t SET 'ttl' = '7d'");
  t.same(env.getTable('public', 't')?.options, { ttl: '7d' });
  await run(env, "ALTER TABLE t UNSET 'ttl'");
  t.same(env.getTable('public', 't')?.options, {});
  await t.rejects(run(env, "ALTER TABLE t SET 'bogus' = '1'"), { code: 1004 });
});

t.test('TRUNCATE empties a table by giving it a fresh id and dropping the old data', async (t) => {
  const env = await setup();
  const before = env.getTable('public', 't')?.id;
  await run(env, 'TRUNCATE TABLE t');
  t.not(env.getTable('public', 't')?.id, before);
  t.same(await rows(env, 'SELECT count(*) FROM t'), [[0n]]);
  await run(env, 'INSERT INTO t VALUES (5, 5)');
  t.same(await rows(env, 'SELECT i FROM t'), [[5]]);
  await t.rejects(run(env, 'TRUNCATE nope'), { code: 4001 });
});

t.test('ADMIN flush_table answers 0 under the statement text and flushes storage', async (t) => {
  const env = await setup();
  const r = await run(env, "ADMIN FLUSH_TABLE('t')");
  t.same(r, { kind: 'records', columns: [{ name: "ADMIN FLUSH_TABLE('t')", type: 'UInt64' }], rows: [[0n]] });
  t.same(env.maintenance, ['flush']);
  await t.rejects(run(env, "ADMIN flush_table('nope')"), { code: 4001 });
});

t.test('EXPLAIN shows the router merge and the shard fragment', async (t) => {
  const env = await setup();
  const r = await rows(env, 'EXPLAIN SELECT i, count(*) FROM t WHERE j > 1 GROUP BY i ORDER BY i LIMIT 2');
  t.same(
    r.map((row) => row[0]),
    ['logical_plan', 'physical_plan'],
  );
  t.match(String(r[0]?.[1]), /Aggregate \(final\)/);
  t.match(String(r[1]?.[1]), /PartialAggregate[\s\S]*Scan: table_id=\d+, columns=\[.*\], time=\[2, \+inf\)/);
});

t.test('information_schema lists databases, tables and columns', async (t) => {
  const env = await setup();
  t.same(
    await rows(
      env,
      "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    ),
    [
      ['numbers', 'TEMPORARY'],
      ['t', 'BASE TABLE'],
    ],
  );
  t.same(await rows(env, "SELECT column_name, semantic_type FROM information_schema.columns WHERE table_name = 't'"), [
    ['i', 'FIELD'],
    ['j', 'TIMESTAMP'],
  ]);
  t.same(await rows(env, 'SELECT schema_name FROM information_schema.schemata ORDER BY 1'), [
    ['greptime_private'],
    ['information_schema'],
    ['public'],
  ]);
});

t.test('SHOW COLLATION and SHOW CHARSET describe utf8 only', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SHOW COLLATION'), [['utf8_bin', 'utf8', 1n, 'Yes', 'Yes', 1n]]);
  t.same(await rows(env, "SHOW COLLATION LIKE 'latin1'"), []);
  t.same(await rows(env, 'SHOW CHARSET'), [['utf8', 'UTF-8 Unicode', 'utf8_bin', 4n]]);
});
