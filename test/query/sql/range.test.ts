import t from 'tap';
import { parseDurationText } from '../../../src/query/sql/plan/plan-range.js';
import { rows, run, session, TestEnv } from './helpers/test-env.js';

// GreptimeDB range queries: SELECT ... agg(x) RANGE r [FILL f] FROM t ALIGN a [TO o] [BY (...)] [FILL f].

async function setup(): Promise<TestEnv> {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE host (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, val BIGINT)');
  await run(
    env,
    "INSERT INTO host VALUES (0, 'h1', 0), (1000, 'h1', 1), (15000, 'h1', 6), (0, 'h2', 6), (16000, 'h2', 12)",
  );
  return env;
}

t.test('durations read PromQL-style units', async (t) => {
  t.equal(parseDurationText('5s'), 5_000_000_000n);
  t.equal(parseDurationText('1h30m'), 5_400_000_000_000n);
  t.equal(parseDurationText('1 day'), null);
});

t.test('rows are grouped by BY keys (default: primary key) and aligned time slots', async (t) => {
  const env = await setup();
  t.same(await rows(env, "SELECT ts, host, min(val) RANGE '5s' FROM host ALIGN '5s' ORDER BY host, ts"), [
    [0n, 'h1', 0n],
    [15000n, 'h1', 6n],
    [0n, 'h2', 6n],
    [15000n, 'h2', 12n],
  ]);
});

t.test('FILL NULL, PREV, LINEAR and constants fill missing slots per key', async (t) => {
  const env = await setup();
  const q = (fill: string) => `SELECT ts, min(val) RANGE '5s' ${fill} FROM host ALIGN '5s' BY (host) ORDER BY host, ts`;
  t.same(
    (await rows(env, q('FILL NULL'))).map((r) => r[1]),
    [0n, null, null, 6n, 6n, null, null, 12n],
  );
  t.same(
    (await rows(env, q('FILL PREV'))).map((r) => r[1]),
    [0n, 0n, 0n, 6n, 6n, 6n, 6n, 12n],
  );
  t.same(
    (await rows(env, q('FILL LINEAR'))).map((r) => r[1]),
    [0, 2, 4, 6, 6, 8, 10, 12],
  );
  t.same(
    (await rows(env, q('FILL 7'))).map((r) => r[1]),
    [0n, 7n, 7n, 6n, 6n, 7n, 7n, 12n],
  );
});

t.test('a RANGE longer than ALIGN counts a row in every slot whose window holds it', async (t) => {
  const env = TestEnv.memory(1);
  await run(env, 'CREATE TABLE m (ts TIMESTAMP(3) TIME INDEX, v BIGINT)');
  await run(env, 'INSERT INTO m VALUES (0, 1), (5000, 2), (10000, 3)');
  t.same(await rows(env, "SELECT ts, sum(v) RANGE '10s' FROM m ALIGN '5s' ORDER BY ts"), [
    [-5000n, 1n],
    [0n, 3n],
    [5000n, 5n],
    [10000n, 3n],
  ]);
});

t.test('ALIGN TO moves the slot origin; the session zone is the default origin', async (t) => {
  const env = await setup();
  t.same(
    await rows(env, "SELECT ts, min(val) RANGE '1d' FROM host ALIGN '1d' TO '1970-01-01T01:00:00Z' BY () ORDER BY ts"),
    [[-82_800_000n, 0n]],
  );
  t.same(
    await rows(
      env,
      "SELECT ts, min(val) RANGE '1d' FROM host ALIGN '1d' BY () ORDER BY ts",
      session('public', '+08:00'),
    ),
    [[-57_600_000n, 0n]],
  );
});

t.test('range aggregates are named with their RANGE and FILL', async (t) => {
  const env = await setup();
  const r = await run(env, "SELECT ts, count(*) RANGE '5s', max(val) RANGE '5s' FROM host ALIGN '5s' FILL PREV");
  t.same(r.kind === 'records' && r.columns.map((c) => c.name), [
    'ts',
    'count(Int64(1)) RANGE 5s FILL PREV',
    'max(host.val) RANGE 5s FILL PREV',
  ]);
});

t.test('month intervals and non-positive durations are refused', async (t) => {
  const env = await setup();
  await t.rejects(run(env, "SELECT ts, min(val) RANGE (INTERVAL '1 month') FROM host ALIGN '1d'"), {
    code: 3000,
    message: /Year or month interval is not allowed in range query/,
  });
  await t.rejects(run(env, "SELECT ts, min(val) RANGE (INTERVAL '1' day - INTERVAL '2' day) FROM host ALIGN '1d'"), {
    code: 3000,
    message: /Illegal argument/,
  });
});

t.test('shards return partial states per slot, not rows', async (t) => {
  const env = await setup();
  await rows(env, "SELECT ts, avg(val) RANGE '5s' FROM host ALIGN '5s'");
  const plan = env.lastPlans[0] as { output: { kind: string } };
  t.equal(plan.output.kind, 'range');
});
