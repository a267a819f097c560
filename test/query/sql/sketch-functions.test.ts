import t from 'tap';
import { prng } from '../../helpers/prng.js';
import { rows, run, TestEnv } from './helpers/test-env.js';

// hll / hll_merge / hll_count and uddsketch_state / uddsketch_merge / uddsketch_calc, run over
// three in-process shards whose partial states cross a structured clone, as between workers.

const HOSTS = ['a', 'b', 'c', 'd', 'e', 'f'];

/** Inserts `count` rows of `(host, v, x)`; returns the rows written. */
async function fill(env: TestEnv, count: number, seed: number): Promise<Array<[string, string, number]>> {
  await run(env, 'CREATE TABLE m (host STRING, v STRING, x DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  const next = prng(seed);
  const written: Array<[string, string, number]> = [];
  for (let start = 0; start < count; start += 2000) {
    const values: string[] = [];
    for (let i = start; i < Math.min(count, start + 2000); i++) {
      const host = HOSTS[i % HOSTS.length] as string;
      const v = `user-${Math.floor(next() * count * 0.6)}`;
      const x = Math.round(Math.exp(next() * 9) * 1000) / 1000;
      written.push([host, v, x]);
      values.push(`('${host}', '${v}', ${x}, ${i})`);
    }
    await run(env, `INSERT INTO m (host, v, x, ts) VALUES ${values.join(', ')}`);
  }
  return written;
}

/** The value of rank ⌊n·q⌋+1 (capped at n) in sorted order: the rank uddsketch_calc estimates. */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(Math.floor(sorted.length * q) + 1, sorted.length);
  return sorted[rank - 1] as number;
}

t.test('hll_count(hll(x)) estimates the distinct count within 3% over several shards', async (t) => {
  const env = TestEnv.memory(3);
  const written = await fill(env, 20000, 1);
  const truth = new Set(written.map((r) => r[1])).size;
  const [[estimate]] = (await rows(env, 'SELECT hll_count(hll(v)) FROM m')) as [[bigint]];
  t.equal(typeof estimate, 'bigint');
  t.ok(Math.abs(Number(estimate) - truth) / truth < 0.03, `estimate ${estimate} vs true ${truth}`);
  t.ok(env.scatterCount > 0);
});

t.test('small distinct counts are exact, NULLs are skipped, and an empty input counts 0', async (t) => {
  const env = TestEnv.memory(3);
  await run(env, 'CREATE TABLE s (id INT, v STRING, ts TIMESTAMP TIME INDEX, PRIMARY KEY (id))');
  // GreptimeDB's sqlness case (aggregate/hll.sql): 13 rows, 10 distinct values, then 12.
  await run(
    env,
    `INSERT INTO s (id, v, ts) VALUES (1,'a',1),(2,'b',1),(5,'e',1),(6,'f',1),(7,'g',1),(8,'h',1),(9,'i',1),(10,'j',1),
     (11,'i',1),(12,'j',1),(13,'i',1),(14,'n',1),(15,'o',1),(30,NULL,1)`,
  );
  t.same(await rows(env, 'SELECT hll_count(hll(v)) FROM s'), [[10n]]);
  await run(env, `INSERT INTO s (id, v, ts) VALUES (16,'b',1),(17,'i',1),(18,'j',1),(19,'s',1),(20,'t',1)`);
  t.same(await rows(env, 'SELECT hll_count(hll(v)) FROM s'), [[12n]]);
  t.same(await rows(env, 'SELECT hll_count(hll(v)) FROM s WHERE id > 100'), [[0n]]);
  t.same(await rows(env, 'SELECT hll_count(NULL)'), [[null]]);
  t.same(await rows(env, `SELECT hll_count(CAST('not a state' AS BINARY))`), [[null]]);
  // Integers are hashed as their text.
  t.same(await rows(env, 'SELECT hll_count(hll(id)) FROM s'), [[19n]]);
});

t.test('hll_merge of per-group states counts the union, not the sum', async (t) => {
  const env = TestEnv.memory(3);
  const written = await fill(env, 12000, 2);
  const truth = new Set(written.map((r) => r[1])).size;
  const perHost = HOSTS.map((h) => new Set(written.filter((r) => r[0] === h).map((r) => r[1])).size);
  t.ok(perHost.reduce((a, b) => a + b, 0) > truth * 1.5, 'the groups overlap');
  const [[merged]] = (await rows(
    env,
    'SELECT hll_count(hll_merge(s)) FROM (SELECT host, hll(v) AS s FROM m GROUP BY host)',
  )) as [[bigint]];
  t.ok(Math.abs(Number(merged) - truth) / truth < 0.03, `merged ${merged} vs true ${truth}`);
  const [[direct]] = (await rows(env, 'SELECT hll_count(hll(v)) FROM m')) as [[bigint]];
  t.equal(merged, direct, 'merging is register-wise, so it loses nothing');
  const groups = (await rows(env, 'SELECT host, hll_count(hll(v)) FROM m GROUP BY host ORDER BY host')) as Array<
    [string, bigint]
  >;
  t.equal(groups.length, HOSTS.length);
  for (const [i, [host, count]] of groups.entries()) {
    t.equal(host, HOSTS[i]);
    const exact = perHost[i] as number;
    t.ok(Math.abs(Number(count) - exact) / exact < 0.03, `${host}: ${count} vs ${exact}`);
  }
});

t.test('states stored in a Binary column merge later', async (t) => {
  const env = TestEnv.memory(3);
  const written = await fill(env, 6000, 3);
  await run(env, 'CREATE TABLE st (host STRING, h BINARY, u BINARY, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  await run(
    env,
    'INSERT INTO st (host, h, u, ts) SELECT host, hll(v), uddsketch_state(1024, 0.01, x), 0 FROM m GROUP BY host',
  );
  const truth = new Set(written.map((r) => r[1])).size;
  const [[count, median]] = (await rows(
    env,
    'SELECT hll_count(hll_merge(h)), uddsketch_calc(0.5, uddsketch_merge(1024, 0.01, u)) FROM st',
  )) as [[bigint, number]];
  t.ok(Math.abs(Number(count) - truth) / truth < 0.03, `${count} vs ${truth}`);
  const exact = exactQuantile(
    written.map((r) => r[2]),
    0.5,
  );
  t.ok(Math.abs(median - exact) / exact <= 0.01, `${median} vs ${exact}`);
});

t.test("uddsketch_calc gives GreptimeDB's quantiles for its sqlness case", async (t) => {
  const env = TestEnv.memory(3);
  await run(env, 'CREATE TABLE u (id INT, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (id))');
  await run(
    env,
    'INSERT INTO u (id, v, ts) VALUES (1,10,1),(2,20,1),(3,30,1),(4,40,1),(5,50,1),(6,60,1),(7,70,1),(8,80,1),(9,90,1),(10,100,1)',
  );
  // Expected values are GreptimeDB's own answers (tests/cases/standalone/common/aggregate/uddsketch.result).
  const expected: Array<[number, number]> = [
    [0.1, 19.886670240866184],
    [0.5, 59.745049810145126],
    [0.75, 80.648188221533],
    [0.95, 100.49456770856492],
  ];
  for (const [q, want] of expected) {
    const [[got]] = (await rows(env, `SELECT uddsketch_calc(${q}, uddsketch_state(128, 0.01, v)) FROM u`)) as [
      [number],
    ];
    t.ok(Math.abs(got - want) / want < 1e-12, `q=${q}: ${got} vs ${want}`);
  }
  const result = await run(env, 'SELECT uddsketch_calc(0.1, uddsketch_state(128, 0.01, v)) FROM u');
  t.same(result.kind === 'records' ? result.columns : null, [
    { name: 'uddsketch_calc(Float64(0.1),uddsketch_state(Int64(128),Float64(0.01),u.v))', type: 'Float64' },
  ]);
});

t.test('uddsketch_calc stays within the error bound of the exact percentile across shards', async (t) => {
  const env = TestEnv.memory(3);
  const written = await fill(env, 20000, 4);
  const values = written.map((r) => r[2]);
  for (const q of [0.01, 0.5, 0.9, 0.99]) {
    const [[got]] = (await rows(env, `SELECT uddsketch_calc(${q}, uddsketch_state(1024, 0.01, x)) FROM m`)) as [
      [number],
    ];
    const exact = exactQuantile(values, q);
    t.ok(Math.abs(got - exact) / exact <= 0.01, `q=${q}: ${got} vs ${exact}`);
  }
  // 16 buckets cannot hold 1..8100 at 1%: the sketch compacts and its bound widens to what the
  // compactions give (α ← 2α/(1+α²) each), never past it.
  let alpha = 0.01;
  const bounds = [alpha];
  for (let i = 0; i < 8; i++) bounds.push((alpha = (2 * alpha) / (1 + alpha * alpha)));
  const [[coarse]] = (await rows(env, 'SELECT uddsketch_calc(0.5, uddsketch_state(16, 0.01, x)) FROM m')) as [[number]];
  const exact = exactQuantile(values, 0.5);
  const error = Math.abs(coarse - exact) / exact;
  t.ok(error > 0.01 && error <= (bounds[8] as number), `coarse median ${coarse} vs ${exact}`);
});

t.test('uddsketch: NULLs, empty input, quantiles out of range and per-group states', async (t) => {
  const env = TestEnv.memory(3);
  const written = await fill(env, 3000, 5);
  t.same(await rows(env, 'SELECT uddsketch_calc(0.5, uddsketch_state(128, 0.01, x)) FROM m WHERE x < 0'), [[null]]);
  t.same(await rows(env, 'SELECT uddsketch_state(128, 0.01, x) IS NULL FROM m WHERE x < 0'), [[false]]);
  t.same(await rows(env, 'SELECT uddsketch_calc(1.5, uddsketch_state(128, 0.01, x)) FROM m'), [[null]]);
  t.same(await rows(env, 'SELECT uddsketch_calc(NULL, uddsketch_state(128, 0.01, x)) FROM m'), [[null]]);
  t.same(await rows(env, 'SELECT uddsketch_calc(0.5, NULL)'), [[null]]);
  const groups = (await rows(
    env,
    'SELECT host, uddsketch_calc(0.99, uddsketch_state(2048, 0.001, x)) FROM m GROUP BY host ORDER BY host',
  )) as Array<[string, number]>;
  for (const [host, got] of groups) {
    const exact = exactQuantile(
      written.filter((r) => r[0] === host).map((r) => r[2]),
      0.99,
    );
    t.ok(Math.abs(got - exact) / exact <= 0.001, `${host}: ${got} vs ${exact}`);
  }
  t.same(await rows(env, 'SELECT uddsketch_calc(1, uddsketch_merge(128, 0.01, NULL))'), [[null]]);
});

t.test("uddsketch errors use GreptimeDB's texts", async (t) => {
  const env = TestEnv.memory(3);
  await fill(env, 100, 6);
  await run(env, 'CREATE TABLE st (host STRING, u BINARY, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  await run(env, 'INSERT INTO st (host, u, ts) SELECT host, uddsketch_state(128, 0.01, x), 0 FROM m GROUP BY host');
  await t.rejects(run(env, 'SELECT uddsketch_calc(0.1, uddsketch_merge(128, 0.1, u)) FROM st'), {
    code: 3001,
    message:
      'Error during planning: Merging UDDSketch with different parameters: arguments=(128, 0.1) vs actual input=(128, 0.01)',
  });
  await t.rejects(run(env, 'SELECT uddsketch_calc(0.1, uddsketch_merge(64, 0.01, u)) FROM st'), {
    message:
      'Error during planning: Merging UDDSketch with different parameters: arguments=(64, 0.01) vs actual input=(128, 0.01)',
  });
  await t.rejects(run(env, `SELECT uddsketch_merge(128, 0.01, CAST('junk' AS BINARY))`), {
    message: 'Error during planning: Failed to deserialize UDDSketch from binary',
  });
  await t.rejects(run(env, 'SELECT uddsketch_state(0, 0.01, x) FROM m'), {
    message: 'This feature is not implemented: uddsketch_state bucket size must be positive, got 0',
  });
  await t.rejects(run(env, 'SELECT uddsketch_state(10, 1.5, x) FROM m'), {
    message: 'This feature is not implemented: uddsketch_state error rate must be in [1e-12, 1.0), got 1.5',
  });
  // GreptimeDB formats the rate with Rust's `{}`: an integral 1 prints as `1`.
  await t.rejects(run(env, 'SELECT uddsketch_state(10, 1, x) FROM m'), {
    message: 'This feature is not implemented: uddsketch_state error rate must be in [1e-12, 1.0), got 1',
  });
  await t.rejects(run(env, 'SELECT uddsketch_state(10, 0.01, v) FROM m'), { code: 3000 });
  await t.rejects(run(env, 'SELECT hll_count(1)'), { code: 3000 });
  // hll_merge skips what it cannot read, as GreptimeDB does.
  t.same(await rows(env, `SELECT hll_count(hll_merge(CAST('junk' AS BINARY)))`), [[0n]]);
});

t.test('sketches work under OVER, with DISTINCT and in range queries', async (t) => {
  const env = TestEnv.memory(3);
  const written = await fill(env, 600, 8);
  const perHost = new Map<string, number[]>();
  for (const [host, , x] of written) perHost.set(host, [...(perHost.get(host) ?? []), x]);
  const perRow = (await rows(
    env,
    'SELECT host, uddsketch_calc(0.5, uddsketch_state(1024, 0.01, x) OVER (PARTITION BY host)) FROM m ORDER BY host',
  )) as Array<[string, number]>;
  t.equal(perRow.length, written.length);
  const windowed = [...new Map(perRow).entries()];
  t.equal(windowed.length, HOSTS.length);
  for (const [host, got] of windowed) {
    const exact = exactQuantile(perHost.get(host) as number[], 0.5);
    t.ok(Math.abs(got - exact) / exact <= 0.01, `${host}: ${got} vs ${exact}`);
  }
  const truth = new Set(written.map((r) => r[1])).size;
  const [[distinct]] = (await rows(env, 'SELECT hll_count(hll(DISTINCT v)) FROM m')) as [[bigint]];
  t.ok(Math.abs(Number(distinct) - truth) / truth < 0.03, `${distinct} vs ${truth}`);
  // One ALIGN slot covering every row, per series (a range query groups by the primary key).
  const ranged = (await rows(
    env,
    "SELECT host, hll_count(hll(v) RANGE '1h'), uddsketch_calc(0.5, uddsketch_state(1024, 0.01, x) RANGE '1h') FROM m ALIGN '1h' ORDER BY host",
  )) as Array<[string, bigint, number]>;
  t.equal(ranged.length, HOSTS.length);
  for (const [host, count, median] of ranged) {
    const hostRows = written.filter((r) => r[0] === host);
    const users = new Set(hostRows.map((r) => r[1])).size;
    t.ok(Math.abs(Number(count) - users) / users < 0.03, `${host}: range count ${count} vs ${users}`);
    const exact = exactQuantile(
      hostRows.map((r) => r[2]),
      0.5,
    );
    t.ok(Math.abs(median - exact) / exact <= 0.01, `${host}: range median ${median} vs ${exact}`);
  }
});

t.test('constant arguments reach aggregates under OVER, as they do outside it', async (t) => {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE w (host STRING, x DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  await run(env, "INSERT INTO w VALUES ('a', 1, 1), ('a', 2, 2), ('a', 4, 3), ('b', 3, 3)");
  t.same(await rows(env, 'SELECT host, approx_percentile_cont(x, 0.5) OVER (PARTITION BY host) FROM w ORDER BY host'), [
    ['a', 2],
    ['a', 2],
    ['a', 2],
    ['b', 3],
  ]);
});
