import t from 'tap';
import type { ShardPlan } from '../../../src/query/sql/plan/plan.js';
import { rows, run, TestEnv } from './helpers/test-env.js';

// Router-side relational features: joins, CTEs, set operations, subqueries, window functions.

async function setup(): Promise<TestEnv> {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE a (k INT, v STRING, ts TIMESTAMP TIME INDEX, PRIMARY KEY (v))');
  await run(env, 'CREATE TABLE b (k INT, w DOUBLE, ts TIMESTAMP TIME INDEX)');
  await run(env, "INSERT INTO a VALUES (1, 'x', 1), (2, 'y', 2), (3, 'z', 3)");
  await run(env, 'INSERT INTO b VALUES (2, 2.5, 1), (3, 3.5, 2), (4, 4.5, 3)');
  return env;
}

t.test('an inner join matches rows on equal keys', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT a.k, v, w FROM a JOIN b ON a.k = b.k ORDER BY a.k'), [
    [2, 'y', 2.5],
    [3, 'z', 3.5],
  ]);
});

t.test('outer joins pad the unmatched side with NULLs', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT a.k, b.k FROM a LEFT JOIN b ON a.k = b.k ORDER BY a.k'), [
    [1, null],
    [2, 2],
    [3, 3],
  ]);
  t.same(await rows(env, 'SELECT a.k, b.k FROM a RIGHT JOIN b ON a.k = b.k ORDER BY b.k'), [
    [2, 2],
    [3, 3],
    [null, 4],
  ]);
  t.same(await rows(env, 'SELECT a.k, b.k FROM a FULL JOIN b ON a.k = b.k ORDER BY a.k, b.k'), [
    [1, null],
    [2, 2],
    [3, 3],
    [null, 4],
  ]);
});

t.test('a join condition beyond equality filters candidate pairs', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT a.k, b.k FROM a LEFT JOIN b ON a.k = b.k AND b.w > 3 ORDER BY a.k'), [
    [1, null],
    [2, null],
    [3, 3],
  ]);
});

t.test('comma-separated tables and CROSS JOIN form every pair', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT count(*) FROM a, b'), [[9n]]);
  t.same(await rows(env, 'SELECT count(*) FROM a CROSS JOIN b WHERE a.k < b.k'), [[6n]]);
});

t.test('WHERE conjuncts on one joined table are pushed into that table scan', async (t) => {
  const env = await setup();
  const plans: ShardPlan[] = [];
  const scatter = env.scatter.bind(env);
  env.scatter = async (plan) => {
    plans.push(plan as ShardPlan);
    return scatter(plan);
  };
  t.same(await rows(env, "SELECT a.k FROM a JOIN b ON a.k = b.k WHERE a.v = 'z' AND b.w > 1"), [[3]]);
  const onA = plans.find((p) => p.scan?.tableId === env.getTable('public', 'a')?.id);
  t.ok(onA?.filter, 'the scan of a carries a filter');
  t.same(onA?.scan?.seriesFilter.length, 1, "a.v = 'z' prunes series");
});

t.test('CTEs are visible to later CTEs and the main query, with column aliases', async (t) => {
  const env = await setup();
  t.same(
    await rows(env, 'WITH c(x) AS (SELECT k FROM a), d AS (SELECT x * 10 AS y FROM c) SELECT y FROM d ORDER BY y'),
    [[10n], [20n], [30n]],
  );
  await t.rejects(run(env, 'WITH c AS (SELECT 1), c AS (SELECT 2) SELECT * FROM c'), {
    code: 3000,
    message: /WITH query name "c" specified more than once/,
  });
});

t.test('a recursive CTE iterates until its recursive term yields no rows', async (t) => {
  const env = TestEnv.memory(1);
  t.same(
    await rows(env, 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT sum(n) FROM r'),
    [[15n]],
  );
});

t.test('derived tables take an alias and column aliases', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT t.n FROM (SELECT k AS m FROM a) AS t(n) WHERE t.n > 1 ORDER BY 1'), [[2], [3]]);
});

t.test('set operations combine results by position, distinct unless ALL', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT k FROM a UNION SELECT k FROM b ORDER BY k'), [[1], [2], [3], [4]]);
  t.same((await rows(env, 'SELECT k FROM a UNION ALL SELECT k FROM b')).length, 6);
  t.same(await rows(env, 'SELECT k FROM a INTERSECT SELECT k FROM b ORDER BY 1'), [[2], [3]]);
  t.same(await rows(env, 'SELECT k FROM a EXCEPT SELECT k FROM b'), [[1]]);
  await t.rejects(run(env, 'SELECT k, v FROM a UNION SELECT k FROM b'), {
    code: 3000,
    message: 'Failed to plan SQL: Error during planning: UNION queries have different number of columns',
  });
});

t.test('uncorrelated subqueries run once and become values', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT v FROM a WHERE k = (SELECT max(k) FROM b WHERE k < 4)'), [['z']]);
  t.same(await rows(env, 'SELECT v FROM a WHERE k IN (SELECT k FROM b) ORDER BY v'), [['y'], ['z']]);
  t.same(await rows(env, 'SELECT v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE w > 100) ORDER BY v'), [
    ['x'],
    ['y'],
    ['z'],
  ]);
});

t.test('correlated subqueries are answered per outer row', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k) ORDER BY v'), [['y'], ['z']]);
  t.same(await rows(env, 'SELECT v, (SELECT max(w) FROM b WHERE b.k <= a.k) FROM a ORDER BY v'), [
    ['x', null],
    ['y', 2.5],
    ['z', 3.5],
  ]);
});

t.test('a scalar subquery with more than one row is an error', async (t) => {
  const env = await setup();
  await t.rejects(run(env, 'SELECT (SELECT k FROM b)'), { code: 3001 });
});

t.test('window functions rank, number and accumulate within partitions', async (t) => {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE t (g STRING, x INT, ts TIMESTAMP TIME INDEX, PRIMARY KEY (g))');
  await run(env, "INSERT INTO t VALUES ('a', 1, 1), ('a', 2, 2), ('b', 3, 3), ('b', 5, 4), ('a', 2, 5)");
  t.same(
    await rows(
      env,
      'SELECT x, row_number() OVER (PARTITION BY g ORDER BY ts), rank() OVER (ORDER BY x), sum(x) OVER (PARTITION BY g ORDER BY ts), lag(x) OVER (ORDER BY ts) FROM t ORDER BY ts',
    ),
    [
      [1, 1n, 1n, 1n, null],
      [2, 2n, 2n, 3n, 1],
      [3, 1n, 4n, 3n, 2],
      [5, 2n, 5n, 8n, 3],
      [2, 3n, 2n, 5n, 5],
    ],
  );
});

t.test('window functions see aggregates of a grouped query', async (t) => {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE t (g STRING, x INT, ts TIMESTAMP TIME INDEX, PRIMARY KEY (g))');
  await run(env, "INSERT INTO t VALUES ('a', 1, 1), ('a', 2, 2), ('b', 3, 3), ('b', 5, 4)");
  t.same(await rows(env, 'SELECT g, sum(x), rank() OVER (ORDER BY sum(x) DESC) FROM t GROUP BY g ORDER BY g'), [
    ['a', 3n, 2n],
    ['b', 8n, 1n],
  ]);
});

t.test('a ROWS frame bounds a window aggregate around the current row', async (t) => {
  const env = TestEnv.memory(1);
  await run(env, 'CREATE TABLE t (x INT, ts TIMESTAMP TIME INDEX)');
  await run(env, 'INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4)');
  t.same(
    await rows(env, 'SELECT sum(x) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER BY ts'),
    [[3n], [6n], [9n], [7n]],
  );
});

t.test('DISTINCT ON keeps the first row of each key in ORDER BY order', async (t) => {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE t (g STRING, x INT, ts TIMESTAMP TIME INDEX, PRIMARY KEY (g))');
  await run(env, "INSERT INTO t VALUES ('a', 1, 1), ('a', 2, 2), ('b', 3, 3), ('b', 5, 4)");
  t.same(await rows(env, 'SELECT DISTINCT ON (g) g, x FROM t ORDER BY g, x DESC'), [
    ['a', 2],
    ['b', 5],
  ]);
  await t.rejects(run(env, 'SELECT DISTINCT ON (g) g, x FROM t ORDER BY x'), {
    message: /SELECT DISTINCT ON expressions must match initial ORDER BY expressions/,
  });
});
