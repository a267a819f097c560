import t from 'tap';
import { formatSql } from '../../../src/query/sql/parse/printer.js';
import type { ShardPlan } from '../../../src/query/sql/plan/plan.js';
import { rows, run, TestEnv } from './helpers/test-env.js';

// GROUP BY ROLLUP / CUBE / GROUPING SETS and grouping(), planned and pushed down over three shards.

async function setup(): Promise<TestEnv> {
  const env = TestEnv.memory(3);
  await run(
    env,
    'CREATE TABLE cpu (host STRING, dc STRING, usage DOUBLE, n BIGINT, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host, dc))',
  );
  await run(
    env,
    `INSERT INTO cpu (host, dc, usage, n, ts) VALUES
      ('web-2', 'eu', 0.5, 1, 1000), ('web-1', 'us', 0.25, 2, 2000), ('web-1', 'us', 0.75, 3, 1000),
      ('db-1', 'eu', 1.5, 4, 3000), ('web-2', 'eu', NULL, 5, 2000), ('db-1', 'eu', 2.5, 6, 1000)`,
  );
  return env;
}

t.test('ROLLUP adds subtotals and a grand total, with NULL in the rolled-up columns', async (t) => {
  const env = await setup();
  const result = await run(
    env,
    'SELECT dc, host, count(*), sum(n), grouping(dc), grouping(host), grouping(dc, host) FROM cpu GROUP BY ROLLUP (dc, host) ORDER BY dc, host',
  );
  t.same(result.kind === 'records' ? result.columns : null, [
    { name: 'dc', type: 'String' },
    { name: 'host', type: 'String' },
    { name: 'count(*)', type: 'Int64' },
    { name: 'sum(cpu.n)', type: 'Int64' },
    { name: 'grouping(cpu.dc)', type: 'Int32' },
    { name: 'grouping(cpu.host)', type: 'Int32' },
    { name: 'grouping(cpu.dc,cpu.host)', type: 'Int32' },
  ]);
  t.same(result.kind === 'records' ? result.rows : null, [
    ['eu', 'db-1', 2n, 10n, 0, 0, 0],
    ['eu', 'web-2', 2n, 6n, 0, 0, 0],
    ['eu', null, 4n, 16n, 0, 1, 1],
    ['us', 'web-1', 2n, 5n, 0, 0, 0],
    ['us', null, 2n, 5n, 0, 1, 1],
    [null, null, 6n, 21n, 1, 1, 3],
  ]);
});

t.test('CUBE groups by every subset; grouping() with several arguments is a bitmask', async (t) => {
  const env = await setup();
  t.same(
    await rows(
      env,
      'SELECT dc, host, count(*), max(usage), grouping(dc, host) AS g, grouping(host, dc) FROM cpu GROUP BY CUBE (dc, host) ORDER BY g, dc, host',
    ),
    [
      ['eu', 'db-1', 2n, 2.5, 0, 0],
      ['eu', 'web-2', 2n, 0.5, 0, 0],
      ['us', 'web-1', 2n, 0.75, 0, 0],
      ['eu', null, 4n, 2.5, 1, 2],
      ['us', null, 2n, 0.75, 1, 2],
      [null, 'db-1', 2n, 2.5, 2, 1],
      [null, 'web-1', 2n, 0.75, 2, 1],
      [null, 'web-2', 2n, 0.5, 2, 1],
      [null, null, 6n, 2.5, 3, 3],
    ],
  );
});

t.test('GROUPING SETS groups by exactly the listed sets, () being the grand total', async (t) => {
  const env = await setup();
  t.same(
    await rows(
      env,
      'SELECT dc, host, sum(n), avg(usage), count(DISTINCT host) FROM cpu GROUP BY GROUPING SETS ((dc, host), (dc), ()) ORDER BY dc, host',
    ),
    [
      ['eu', 'db-1', 10n, 2, 1n],
      ['eu', 'web-2', 6n, 0.5, 1n],
      ['eu', null, 16n, 1.5, 2n],
      ['us', 'web-1', 5n, 0.5, 1n],
      ['us', null, 5n, 0.5, 1n],
      [null, null, 21n, 1.1, 3n],
    ],
  );
  // A bare expression is a set of one; a set listed twice gives its rows twice (as PostgreSQL).
  t.same(await rows(env, 'SELECT dc, count(*) FROM cpu GROUP BY GROUPING SETS (dc, (dc)) ORDER BY dc'), [
    ['eu', 4n],
    ['eu', 4n],
    ['us', 2n],
    ['us', 2n],
  ]);
});

t.test('a plain GROUP BY item multiplies out with ROLLUP (the cross product)', async (t) => {
  const env = await setup();
  t.same(
    await rows(
      env,
      'SELECT dc, host, count(*), grouping(dc), grouping(host) FROM cpu GROUP BY dc, ROLLUP (host) ORDER BY dc, host',
    ),
    [
      ['eu', 'db-1', 2n, 0, 0],
      ['eu', 'web-2', 2n, 0, 0],
      ['eu', null, 4n, 0, 1],
      ['us', 'web-1', 2n, 0, 0],
      ['us', null, 2n, 0, 1],
    ],
  );
  // `ROLLUP (dc), CUBE (host)`: (), (host), (dc), (dc, host).
  t.same(
    await rows(
      env,
      'SELECT dc, host, count(*) FROM cpu GROUP BY ROLLUP (dc), CUBE (host) ORDER BY grouping(dc, host) DESC, dc, host',
    ),
    [
      [null, null, 6n],
      [null, 'db-1', 2n],
      [null, 'web-1', 2n],
      [null, 'web-2', 2n],
      ['eu', null, 4n],
      ['us', null, 2n],
      ['eu', 'db-1', 2n],
      ['eu', 'web-2', 2n],
      ['us', 'web-1', 2n],
    ],
  );
});

t.test('grouping() tells a rolled-up NULL from a NULL in the data', async (t) => {
  const env = await setup();
  await run(env, "INSERT INTO cpu (host, usage, n, ts) VALUES ('lb-1', 9.0, 100, 5000)");
  t.same(
    await rows(env, 'SELECT dc, grouping(dc) AS g, sum(n) FROM cpu GROUP BY ROLLUP (dc) ORDER BY g, dc NULLS FIRST'),
    [
      [null, 0, 100n],
      ['eu', 0, 16n],
      ['us', 0, 5n],
      [null, 1, 121n],
    ],
  );
});

t.test('HAVING, ORDER BY, LIMIT and OFFSET work over grouping-set rows', async (t) => {
  const env = await setup();
  t.same(
    await rows(
      env,
      'SELECT host, sum(n) AS s FROM cpu GROUP BY ROLLUP (host) HAVING grouping(host) = 0 AND sum(n) > 5 ORDER BY s DESC',
    ),
    [
      ['db-1', 10n],
      ['web-2', 6n],
    ],
  );
  t.same(
    await rows(
      env,
      'SELECT dc, host, sum(n) FROM cpu GROUP BY CUBE (dc, host) ORDER BY grouping(dc, host) DESC, 3 LIMIT 2 OFFSET 1',
    ),
    [
      [null, 'web-1', 5n],
      [null, 'web-2', 6n],
    ],
  );
  t.same(await rows(env, 'SELECT DISTINCT grouping(dc) FROM cpu GROUP BY ROLLUP (dc, host) ORDER BY 1'), [[0], [1]]);
});

t.test('ordinals and aliases name group columns inside ROLLUP, as in plain GROUP BY', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT dc AS d, count(*) FROM cpu GROUP BY ROLLUP (d) ORDER BY 1'), [
    ['eu', 4n],
    ['us', 2n],
    [null, 6n],
  ]);
  t.same(await rows(env, 'SELECT upper(dc), count(*) FROM cpu GROUP BY ROLLUP (1) ORDER BY 1'), [
    ['EU', 4n],
    ['US', 2n],
    [null, 6n],
  ]);
});

t.test('an empty input still gives the grand-total rows of empty sets', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT dc, count(*), sum(n) FROM cpu WHERE n > 100 GROUP BY ROLLUP (dc)'), [
    [null, 0n, null],
  ]);
  t.same(await rows(env, 'SELECT dc, count(*) FROM cpu WHERE n > 100 GROUP BY GROUPING SETS ((), (), (dc))'), [
    [null, 0n],
    [null, 0n],
  ]);
  t.same(await rows(env, 'SELECT dc, count(*) FROM cpu WHERE n > 100 GROUP BY GROUPING SETS ((dc))'), []);
});

t.test('grouping() is 0 under a plain GROUP BY', async (t) => {
  const env = await setup();
  t.same(await rows(env, 'SELECT dc, grouping(dc) FROM cpu GROUP BY dc ORDER BY dc'), [
    ['eu', 0],
    ['us', 0],
  ]);
});

t.test('every shard groups by (set, keys) and the router merges the partial groups', async (t) => {
  const env = await setup();
  await rows(env, 'SELECT dc, host, sum(n) FROM cpu GROUP BY ROLLUP (dc, host)');
  t.equal(env.lastPlans.length, 3);
  for (const plan of env.lastPlans as ShardPlan[]) {
    t.equal(plan.output.kind, 'aggregate');
    if (plan.output.kind === 'aggregate') t.same(plan.output.groupingSets, [[], [0], [0, 1]]);
  }
});

t.test('grouping sets work over a materialised relation (CTE) in the router', async (t) => {
  const env = await setup();
  t.same(
    await rows(
      env,
      'WITH c AS (SELECT dc, n FROM cpu WHERE n > 1) SELECT dc, sum(n), grouping(dc) FROM c GROUP BY ROLLUP (dc) ORDER BY dc',
    ),
    [
      ['eu', 15n, 0],
      ['us', 5n, 0],
      [null, 20n, 1],
    ],
  );
});

t.test('bad uses of grouping sets and grouping() fail with planning errors', async (t) => {
  const env = await setup();
  await t.rejects(run(env, 'SELECT grouping(host) FROM cpu GROUP BY ROLLUP (dc)'), {
    code: 3000,
    message:
      'Failed to plan SQL: Error during planning: Argument cpu.host to grouping function is not in grouping columns cpu.dc',
  });
  await t.rejects(run(env, 'SELECT grouping(host) FROM cpu'), {
    code: 3000,
    message:
      'Failed to plan SQL: Error during planning: Argument cpu.host to grouping function is not in grouping columns ',
  });
  await t.rejects(run(env, 'SELECT dc, grouping(host) FROM cpu GROUP BY dc'), {
    message: /Argument cpu\.host to grouping function is not in grouping columns cpu\.dc$/,
  });
  await t.rejects(run(env, 'SELECT host FROM cpu GROUP BY ROLLUP (dc)'), {
    message: /Column "cpu.host" must appear in the GROUP BY clause .* currently only "ROLLUP \(cpu.dc\)" appears/,
  });
  await t.rejects(run(env, 'SELECT count(*) FROM cpu GROUP BY ROLLUP ((dc, host))'), {
    message: 'Failed to plan SQL: Error during planning: Tuple expressions are not supported for Rollup expressions',
  });
  await t.rejects(run(env, 'SELECT count(*) FROM cpu WHERE grouping(dc) = 0'), { code: 3000 });
  await t.rejects(run(env, 'SELECT grouping(dc) OVER () FROM cpu'), {
    code: 1001,
    message: 'This feature is not implemented: physical plan is not yet implemented for GROUPING aggregate function',
  });
  await t.rejects(run(env, 'SELECT grouping() FROM cpu GROUP BY dc'), {
    message: 'Failed to plan SQL: Error during planning: grouping does not support zero arguments.',
  });
  const thirteen = Array.from({ length: 13 }, (_, i) => `n + ${i}`).join(', ');
  await t.rejects(run(env, `SELECT count(*) FROM cpu GROUP BY CUBE (${thirteen})`), {
    message:
      'Failed to plan SQL: Error during planning: The number of grouping_set in grouping_sets exceeds the maximum limit 4096, found 8192',
  });
  await t.rejects(run(env, 'SELECT count(*) FROM cpu GROUP BY GROUPING SETS ((dc), ((host))'), { code: 2000 });
});

t.test('the grouping-set forms print back as they parse', async (t) => {
  t.equal(
    formatSql('select count(*) from t group by rollup(a, b), cube(c), grouping sets ((a, b), c, ())'),
    'SELECT count(*) FROM t GROUP BY ROLLUP (a, b), CUBE (c), GROUPING SETS ((a, b), (c), ());',
  );
  // Outside GROUP BY the words name ordinary (unknown) functions.
  const env = await setup();
  await t.rejects(run(env, 'SELECT rollup(dc) FROM cpu'), { message: /Invalid function 'rollup'/ });
});
