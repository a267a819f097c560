/**
 * SELECT DISTINCT over window results: the windows are computed first (in the router, over every
 * shard's rows), then repeated output rows dropped, as DataFusion does. Taken as a GROUP BY of the
 * outputs, the shards were asked to group by window values and the query failed internally.
 */
import t from 'tap';
import { run, TestEnv } from './helpers/test-env.js';

async function rowsOf(env: TestEnv, sql: string): Promise<unknown[][]> {
  const result = (await run(env, sql)) as { kind: string; rows?: unknown[][] };
  if (result.kind !== 'records' || result.rows === undefined) throw new Error(`no records for ${sql}`);
  return result.rows;
}

t.test('DISTINCT applies to the rows the windows produced', async (t) => {
  const env = TestEnv.memory(3);
  await run(env, 'CREATE TABLE m (h STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (h))');
  await run(env, "INSERT INTO m VALUES ('a', 1, 1000), ('b', 2, 2000), ('a', 3, 3000), ('c', 2, 4000), ('a', 0, 5000)");
  // Per host: a = 4 (three rows), b = 2, c = 2.
  t.same(await rowsOf(env, 'SELECT DISTINCT sum(v) OVER (PARTITION BY h) AS x FROM m ORDER BY x'), [[2], [4]]);
  t.same(await rowsOf(env, 'SELECT DISTINCT h, sum(v) OVER (PARTITION BY h) * 2 AS x FROM m ORDER BY h'), [
    ['a', 8],
    ['b', 4],
    ['c', 4],
  ]);
  t.same(await rowsOf(env, 'SELECT DISTINCT max(v) OVER () AS x FROM m'), [[3]]);
  t.same(await rowsOf(env, 'SELECT DISTINCT count(v) OVER (PARTITION BY h) AS n FROM m ORDER BY n DESC LIMIT 1'), [
    [3n],
  ]);
  // Rows that differ in a window value stay apart.
  t.same(
    await rowsOf(env, 'SELECT DISTINCT h, row_number() OVER (PARTITION BY h ORDER BY ts) AS r FROM m ORDER BY h, r'),
    [
      ['a', 1n],
      ['a', 2n],
      ['a', 3n],
      ['b', 1n],
      ['c', 1n],
    ],
  );
  await t.rejects(
    run(env, 'SELECT DISTINCT sum(v) OVER (PARTITION BY h) AS x FROM m ORDER BY v'),
    /For SELECT DISTINCT, ORDER BY expressions m\.v must appear in select list/,
  );
});
