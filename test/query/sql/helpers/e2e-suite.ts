/**
 * End-to-end SQL behaviour, written once and run against each storage: the in-memory stand-in
 * (execute.test.ts) and the real `ShardStore` (shard-store.test.ts). Every test gets a fresh
 * two-shard environment.
 */
import type { Test } from 'tap';
import { executeSql } from '../../../../src/query/sql/exec/execute.js';
import type { ShardPlan } from '../../../../src/query/sql/plan/plan.js';
import { rows, run, session, type TestEnv } from './test-env.js';

export interface EnvFactory {
  make(): Promise<TestEnv>;
  close(env: TestEnv): Promise<void>;
}

type TestFn = (t: Test, env: TestEnv) => Promise<void>;

const CPU_DDL =
  'CREATE TABLE cpu (host STRING, dc STRING, usage DOUBLE, n BIGINT, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host, dc))';
const CPU_ROWS = `INSERT INTO cpu (host, dc, usage, n, ts) VALUES
  ('web-2', 'eu', 0.5, 1, 1000), ('web-1', 'us', 0.25, 2, 2000), ('web-1', 'us', 0.75, 3, 1000),
  ('db-1', 'eu', 1.5, 4, 3000), ('web-2', 'eu', NULL, 5, 2000), ('db-1', 'eu', 2.5, 6, 1000)`;

export function registerEndToEnd(t: Test, factory: EnvFactory): void {
  const test = (name: string, fn: TestFn): void => {
    t.test(name, async (t) => {
      const env = await factory.make();
      try {
        await fn(t, env);
      } finally {
        await factory.close(env);
      }
    });
  };

  test('creates a table and describes it with GreptimeDB columns', async (t, env) => {
    await run(env, CPU_DDL);
    t.same(await rows(env, 'DESC TABLE cpu'), [
      ['host', 'String', 'PRI', 'YES', '', 'TAG'],
      ['dc', 'String', 'PRI', 'YES', '', 'TAG'],
      ['usage', 'Float64', '', 'YES', '', 'FIELD'],
      ['n', 'Int64', '', 'YES', '', 'FIELD'],
      ['ts', 'TimestampMillisecond', 'PRI', 'NO', '', 'TIMESTAMP'],
    ]);
  });

  test('inserted rows come back in primary key then time order from both shards', async (t, env) => {
    await run(env, CPU_DDL);
    t.same(await run(env, CPU_ROWS), { kind: 'affected', rows: 6 });
    const result = await run(env, 'SELECT * FROM cpu');
    t.same(result.kind === 'records' ? result.columns : null, [
      { name: 'host', type: 'String' },
      { name: 'dc', type: 'String' },
      { name: 'usage', type: 'Float64' },
      { name: 'n', type: 'Int64' },
      { name: 'ts', type: 'TimestampMillisecond' },
    ]);
    t.same(result.kind === 'records' ? result.rows : null, [
      ['db-1', 'eu', 2.5, 6n, 1000n],
      ['db-1', 'eu', 1.5, 4n, 3000n],
      ['web-1', 'us', 0.75, 3n, 1000n],
      ['web-1', 'us', 0.25, 2n, 2000n],
      ['web-2', 'eu', 0.5, 1n, 1000n],
      ['web-2', 'eu', null, 5n, 2000n],
    ]);
    const perShard = await Promise.all(
      env.shards.map(async (shard) => {
        let count = 0;
        const table = env.getTable('public', 'cpu');
        for await (const chunk of shard.scan({
          tableId: table?.id ?? -1,
          columns: [{ id: 0, kind: 'i64', role: 'time' }],
        }))
          count += chunk.rowCount;
        return count;
      }),
    );
    t.equal(
      perShard.reduce((a, b) => a + b, 0),
      6,
    );
    t.ok(
      perShard.every((c) => c > 0),
      `rows spread over both shards: ${perShard.join(', ')}`,
    );
  });

  test('a row with the same series and timestamp replaces the earlier one', async (t, env) => {
    await run(env, CPU_DDL);
    await run(env, "INSERT INTO cpu VALUES ('a', 'x', 1.0, 1, 1000)");
    await run(env, "INSERT INTO cpu VALUES ('a', 'x', 2.0, 2, 1000)");
    t.same(await rows(env, 'SELECT usage, n FROM cpu'), [[2, 2n]]);
  });

  test('aggregates merge partial results from every shard', async (t, env) => {
    await run(env, CPU_DDL);
    await run(env, CPU_ROWS);
    t.same(await rows(env, 'SELECT count(*), count(usage), sum(usage), avg(n), min(ts), max(host) FROM cpu'), [
      [6n, 5n, 5.5, 3.5, 1000n, 'web-2'],
    ]);
    t.same(await rows(env, 'SELECT host, count(*) AS c, sum(n) FROM cpu GROUP BY host ORDER BY host'), [
      ['db-1', 2n, 10n],
      ['web-1', 2n, 5n],
      ['web-2', 2n, 6n],
    ]);
    t.same(await rows(env, 'SELECT dc, count(DISTINCT host) FROM cpu GROUP BY dc ORDER BY dc'), [
      ['eu', 2n],
      ['us', 1n],
    ]);
    t.same(await rows(env, 'SELECT host FROM cpu GROUP BY host HAVING sum(usage) > 1 ORDER BY 1'), [['db-1']]);
  });

  test('ORDER BY, LIMIT and OFFSET apply to the merged rows', async (t, env) => {
    await run(env, CPU_DDL);
    await run(env, CPU_ROWS);
    t.same(await rows(env, 'SELECT n FROM cpu ORDER BY usage DESC NULLS LAST LIMIT 3'), [[6n], [4n], [3n]]);
    t.same(await rows(env, 'SELECT n FROM cpu ORDER BY n LIMIT 2 OFFSET 2'), [[3n], [4n]]);
    t.same(await rows(env, 'SELECT n FROM cpu ORDER BY n LIMIT 4, 10'), [[5n], [6n]]);
    t.same(await rows(env, 'SELECT usage FROM cpu ORDER BY usage'), [[0.25], [0.5], [0.75], [1.5], [2.5], [null]]);
  });

  test('WHERE on the time index and on tags is pushed into every shard scan', async (t, env) => {
    await run(env, CPU_DDL);
    await run(env, CPU_ROWS);
    t.same(await rows(env, "SELECT n FROM cpu WHERE host = 'web-1' AND ts >= 1000 AND ts < 2000"), [[3n]]);
    const plan = env.lastPlans[0] as ShardPlan;
    t.equal(plan.scan?.timeMin, 1000n);
    t.equal(plan.scan?.timeMax, 2000n);
    t.same(plan.scan?.seriesFilter, [
      { columnId: env.getTable('public', 'cpu')?.columns.find((c) => c.name === 'host')?.id, values: ['web-1'] },
    ]);
    t.same(
      await rows(env, "SELECT n FROM cpu WHERE ts BETWEEN '1970-01-01 00:00:02' AND '1970-01-01 00:00:03' ORDER BY n"),
      [[2n], [4n], [5n]],
    );
    t.same(await rows(env, "SELECT n FROM cpu WHERE host IN ('db-1', 'nope') ORDER BY n"), [[4n], [6n]]);
  });

  test('SELECT without FROM is answered by the router alone', async (t, env) => {
    t.same(await run(env, "SELECT 1, 2 + 3 AS x, upper('a')"), {
      kind: 'records',
      columns: [
        { name: 'Int64(1)', type: 'Int64' },
        { name: 'x', type: 'Int64' },
        { name: 'upper(Utf8("a"))', type: 'String' },
      ],
      rows: [[1n, 5n, 'A']],
    });
    t.equal(env.scatterCount, 0);
  });

  test('the built-in numbers table holds 0 to 99', async (t, env) => {
    t.same(await rows(env, 'SELECT count(*), sum(number), min(number), max(number) FROM numbers'), [
      [100n, 4950n, 0, 99],
    ]);
    t.same(await rows(env, 'SELECT number FROM numbers WHERE number > 97'), [[98], [99]]);
  });

  test('missing columns get their DEFAULT, or NULL', async (t, env) => {
    await run(
      env,
      "CREATE TABLE d (i INT DEFAULT -1, s STRING DEFAULT 'x', f DOUBLE, ts TIMESTAMP TIME INDEX DEFAULT now())",
    );
    await run(env, 'INSERT INTO d (ts) VALUES (5)');
    await run(env, 'INSERT INTO d (i, s, f, ts) VALUES (DEFAULT, NULL, 1.5, 6)');
    t.same(await rows(env, 'SELECT i, s, f, ts FROM d'), [
      [-1, 'x', null, 5n],
      [-1, null, 1.5, 6n],
    ]);
    const before = BigInt(Date.now());
    await run(env, 'INSERT INTO d (i) VALUES (7)');
    const [[ts]] = (await rows(env, 'SELECT ts FROM d WHERE i = 7')) as [[bigint]];
    t.ok(ts >= before - 1000n && ts <= BigInt(Date.now()) + 1000n, 'now() default is the insert time');
  });

  test('timestamp text in INSERT is read in the session time zone', async (t, env) => {
    await run(env, 'CREATE TABLE z (ts TIMESTAMP TIME INDEX, v INT)');
    const s = session('public', 'Asia/Shanghai');
    await run(env, "INSERT INTO z VALUES ('2024-01-30 00:01:01', 1), ('2024-01-30T00:01:01Z', 2)", s);
    t.same(await rows(env, 'SELECT ts, v FROM z ORDER BY v'), [
      [1706544061000n, 1],
      [1706572861000n, 2],
    ]);
    t.same(await rows(env, "SELECT v FROM z WHERE ts = '2024-01-30 00:01:01'", s), [[1]]);
  });

  test('SET time_zone and USE change the session for later statements of the request', async (t, env) => {
    await run(env, 'CREATE DATABASE other');
    const s = session();
    const results = await executeSql(
      "USE other; CREATE TABLE z (ts TIMESTAMP TIME INDEX); SET time_zone = '+08:00'; INSERT INTO z VALUES ('1970-01-01 08:00:01'); SELECT * FROM z",
      s,
      env,
    );
    t.same(
      results.map((r) => r.kind),
      ['affected', 'affected', 'affected', 'affected', 'records'],
    );
    t.same(results[4], { kind: 'records', columns: [{ name: 'ts', type: 'TimestampMillisecond' }], rows: [[1000n]] });
    t.equal(s.db, 'other');
    t.equal(s.timezone, '+08:00');
    t.ok(env.getTable('other', 'z'));
  });

  test('a failing statement fails the request and stops the statements after it', async (t, env) => {
    await t.rejects(
      executeSql(
        'CREATE TABLE a (ts TIMESTAMP TIME INDEX); SELECT * FROM missing; CREATE TABLE b (ts TIMESTAMP TIME INDEX)',
        session(),
        env,
      ),
      {
        code: 4001,
        message: 'Failed to plan SQL: Table not found: greptime.public.missing',
      },
    );
    t.ok(env.getTable('public', 'a'));
    t.notOk(env.getTable('public', 'b'));
  });

  test('a syntax error anywhere fails the request before anything runs', async (t, env) => {
    await t.rejects(executeSql('CREATE TABLE a (ts TIMESTAMP TIME INDEX); SELECT FROM', session(), env), {
      code: 2000,
    });
    t.notOk(env.getTable('public', 'a'));
  });

  test('SHOW DATABASES and SHOW TABLES list what exists, sorted, with LIKE and WHERE', async (t, env) => {
    await run(env, "CREATE DATABASE 'illegal-database'");
    t.same(await rows(env, 'SHOW DATABASES'), [
      ['greptime_private'],
      ['illegal-database'],
      ['information_schema'],
      ['public'],
    ]);
    t.same(await rows(env, "SHOW DATABASES LIKE 'p%'"), [['public']]);
    await run(env, 'CREATE TABLE zeta (ts TIMESTAMP TIME INDEX)');
    await run(env, 'CREATE TABLE alpha (ts TIMESTAMP TIME INDEX)');
    t.same(await rows(env, 'SHOW TABLES'), [['alpha'], ['numbers'], ['zeta']]);
    t.same(await rows(env, "SHOW TABLES WHERE Tables = 'zeta'"), [['zeta']]);
    t.same(await rows(env, "SHOW FULL TABLES FROM public LIKE 'a%'"), [['alpha', 'BASE TABLE']]);
    await t.rejects(run(env, 'SHOW TABLES FROM nowhere'), { code: 4004, message: 'Database not found: nowhere' });
  });

  test('SHOW CREATE TABLE prints GreptimeDB canonical DDL', async (t, env) => {
    await run(
      env,
      "CREATE TABLE IF NOT EXISTS monitor (host STRING, ts TIMESTAMP(9) DEFAULT CURRENT_TIMESTAMP() TIME INDEX, cpu FLOAT64 DEFAULT 0, memory FLOAT64, PRIMARY KEY(host)) ENGINE=mito WITH(COMMENT='create by human')",
    );
    t.same(await rows(env, 'SHOW CREATE TABLE monitor'), [
      [
        'monitor',
        'CREATE TABLE IF NOT EXISTS "monitor" (\n  "host" STRING NULL,\n  "ts" TIMESTAMP(9) NOT NULL DEFAULT current_timestamp(),\n  "cpu" DOUBLE NULL DEFAULT 0,\n  "memory" DOUBLE NULL,\n  TIME INDEX ("ts"),\n  PRIMARY KEY ("host")\n)\n\nENGINE=mito\nWITH(\n  comment = \'create by human\'\n)',
      ],
    ]);
  });

  test('DROP TABLE and DROP DATABASE remove objects; IF EXISTS tolerates absence', async (t, env) => {
    await run(env, 'CREATE DATABASE d1');
    await run(env, 'CREATE TABLE d1.t (ts TIMESTAMP TIME INDEX)');
    t.same(await run(env, 'DROP TABLE d1.t'), { kind: 'affected', rows: 0 });
    t.notOk(env.getTable('d1', 't'));
    await t.rejects(run(env, 'DROP TABLE d1.t'), { code: 4001 });
    t.same(await run(env, 'DROP TABLE IF EXISTS d1.t'), { kind: 'affected', rows: 0 });
    await t.rejects(run(env, 'DROP DATABASE d1', session('d1')), { code: 1004, message: 'Schema `d1` is in use' });
    t.same(await run(env, 'DROP DATABASE d1'), { kind: 'affected', rows: 0 });
    t.same(await run(env, 'DROP DATABASE IF EXISTS d1'), { kind: 'affected', rows: 0 });
  });

  test('CREATE reports 1 row for databases and 0 for tables; duplicates fail unless IF NOT EXISTS', async (t, env) => {
    t.same(await run(env, 'CREATE DATABASE x'), { kind: 'affected', rows: 1 });
    await t.rejects(run(env, 'CREATE DATABASE x'), { code: 4011 });
    t.same(await run(env, 'CREATE DATABASE IF NOT EXISTS x'), { kind: 'affected', rows: 1 });
    t.same(await run(env, 'CREATE TABLE t (ts TIMESTAMP TIME INDEX)'), { kind: 'affected', rows: 0 });
    await t.rejects(run(env, 'CREATE TABLE t (ts TIMESTAMP TIME INDEX)'), { code: 4000 });
    t.same(await run(env, 'CREATE TABLE IF NOT EXISTS t (ts TIMESTAMP TIME INDEX)'), { kind: 'affected', rows: 0 });
    await t.rejects(run(env, 'CREATE TABLE nodb.t (ts TIMESTAMP TIME INDEX)'), { code: 4004 });
    await t.rejects(run(env, 'USE nodb'), { code: 4004, message: 'Database not found: nodb' });
  });

  test('errors carry GreptimeDB codes and texts', async (t, env) => {
    await run(env, CPU_DDL);
    await t.rejects(run(env, 'SELECT nope FROM cpu'), {
      code: 3000,
      message: 'Failed to plan SQL: No field named nope. Valid fields are cpu.host, cpu.dc, cpu.usage, cpu.n, cpu.ts.',
    });
    await t.rejects(run(env, 'INSERT INTO missing VALUES (1)'), {
      code: 4001,
      message: 'Table not found: greptime.public.missing',
    });
    await t.rejects(run(env, "INSERT INTO cpu (host, ts) VALUES ('a')"), {
      code: 1004,
      message: 'Invalid SQL, error: column count mismatch, columns: 2, values: 1',
    });
    await t.rejects(run(env, "INSERT INTO cpu (host) VALUES ('a')"), {
      code: 1004,
      message: 'No valid default value can be built automatically, column: ts',
    });
    await t.rejects(run(env, "INSERT INTO cpu (host, ts) VALUES ('a', 'soon')"), {
      code: 2000,
      message: 'Failed to parse value: Failed to parse soon to Timestamp value',
    });
    await t.rejects(run(env, 'INSERT INTO cpu (host, ts) VALUES (3, 1)'), {
      code: 2000,
      message:
        'Failed to parse value: Fail to parse number 3, invalid column type: String(StringType { size_type: Utf8 })',
    });
    await t.rejects(run(env, 'SELECT 1 / 0'), { code: 3001 });
    await t.rejects(run(env, 'DELETE FROM nope'), { code: 4001 });
  });

  test('CREATE TABLE is checked the way GreptimeDB checks it', async (t, env) => {
    await t.rejects(run(env, 'CREATE TABLE t (i BIGINT)'), { code: 2000, message: 'Missing time index constraint' });
    await t.rejects(run(env, 'CREATE TABLE t (i INT TIME INDEX)'), {
      code: 1004,
      message: 'Invalid column option, column name: i, error: time index column data type should be timestamp',
    });
    await t.rejects(run(env, 'CREATE TABLE t (i TIMESTAMP TIME INDEX NULL)'), {
      code: 1004,
      message: /time index column can't be null/,
    });
    await t.rejects(run(env, 'CREATE TABLE t (i TIMESTAMP TIME INDEX, j BIGINT, TIME INDEX(j))'), {
      code: 2000,
      message: 'Invalid time index: expected only one time index constraint but actual 2',
    });
    await t.rejects(run(env, "CREATE TABLE 'N.~' (i TIMESTAMP TIME INDEX)"), {
      code: 1004,
      message: 'Invalid table name: N.~',
    });
    await t.rejects(run(env, 'CREATE TABLE t (ts TIMESTAMP TIME INDEX, h STRING PRIMARY KEY, PRIMARY KEY(h))'), {
      code: 1004,
      message: 'Illegal primary keys definition: found definitions of primary keys in multiple places',
    });
    await t.rejects(run(env, 'CREATE TABLE t (ts TIMESTAMP TIME INDEX DEFAULT now)'), {
      code: 1001,
      message: "Unsupported default constraint for column: 'ts', reason: expr 'now' not supported",
    });
    await t.rejects(run(env, "CREATE DATABASE '㊙️database'"), { code: 1002 });
  });

  test('unquoted names fold to lower case, quoted names keep their case', async (t, env) => {
    await run(env, 'CREATE TABLE AbC (CoLA STRING, Ts TIMESTAMP TIME INDEX, PRIMARY KEY (cOlA))');
    await run(env, 'CREATE TABLE "MiXed" ("Val" INT, ts TIMESTAMP TIME INDEX)');
    t.ok(env.getTable('public', 'abc'));
    t.same(
      env.getTable('public', 'abc')?.columns.map((c) => c.name),
      ['cola', 'ts'],
    );
    await run(env, 'INSERT INTO "MiXed" VALUES (1, 1)');
    t.same(await rows(env, 'SELECT "Val" FROM "MiXed"'), [[1]]);
    await t.rejects(run(env, 'SELECT * FROM MiXed'), {
      code: 4001,
      message: 'Failed to plan SQL: Table not found: greptime.public.mixed',
    });
    await t.rejects(run(env, 'SELECT Val FROM "MiXed"'), {
      code: 3000,
      message: /No field named val\. Valid fields are "MiXed"\."Val", "MiXed"\.ts\./,
    });
  });

  test('non-string primary key columns round-trip through tag storage', async (t, env) => {
    await run(env, 'CREATE TABLE k (i INT, b BOOLEAN, ts TIMESTAMP TIME INDEX, v DOUBLE, PRIMARY KEY (i, b))');
    await run(env, 'INSERT INTO k VALUES (2, true, 1, 1.0), (10, false, 1, 2.0), (-1, NULL, 1, 3.0)');
    t.same(await rows(env, 'SELECT i, b, v FROM k'), [
      [-1, null, 3],
      [2, true, 1],
      [10, false, 2],
    ]);
    t.same(await rows(env, 'SELECT v FROM k WHERE i = 10'), [[2]]);
  });

  test('INSERT ... SELECT copies rows, casting to the target columns', async (t, env) => {
    await run(env, CPU_DDL);
    await run(env, CPU_ROWS);
    await run(env, 'CREATE TABLE copy (host STRING PRIMARY KEY, total DOUBLE, ts TIMESTAMP TIME INDEX)');
    t.same(await run(env, 'INSERT INTO copy SELECT host, sum(n), max(ts) FROM cpu GROUP BY host'), {
      kind: 'affected',
      rows: 3,
    });
    t.same(await rows(env, 'SELECT host, total, ts FROM copy'), [
      ['db-1', 10, 3000n],
      ['web-1', 5, 2000n],
      ['web-2', 6, 2000n],
    ]);
    await t.rejects(run(env, 'INSERT INTO copy SELECT host FROM cpu'), {
      code: 3000,
      message: /Column count doesn't match insert query!/,
    });
  });

  test('CREATE TABLE LIKE copies columns, keys and defaults', async (t, env) => {
    await run(env, 'CREATE TABLE src (pk STRING PRIMARY KEY, i INTEGER DEFAULT 7, j TIMESTAMP TIME INDEX)');
    await run(env, 'CREATE TABLE dst LIKE src');
    t.same(await rows(env, 'DESC TABLE dst'), await rows(env, 'DESC TABLE src'));
  });

  test('SELECT DISTINCT removes duplicates across shards', async (t, env) => {
    await run(env, CPU_DDL);
    await run(env, CPU_ROWS);
    t.same(await rows(env, 'SELECT DISTINCT dc FROM cpu ORDER BY dc'), [['eu'], ['us']]);
    await t.rejects(run(env, 'SELECT DISTINCT dc FROM cpu ORDER BY n'), {
      code: 3000,
      message:
        'Failed to plan SQL: Error during planning: For SELECT DISTINCT, ORDER BY expressions cpu.n must appear in select list',
    });
  });

  test('an aborted request stops with code 1005', async (t, env) => {
    const controller = new AbortController();
    controller.abort();
    await t.rejects(executeSql('SELECT 1', { db: 'public', timezone: 'UTC', signal: controller.signal }, env), {
      code: 1005,
    });
  });
}
