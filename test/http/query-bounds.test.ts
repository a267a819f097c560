/**
 * Statements whose size comes from their text, not from the data (a RANGE grid of billions of
 * slots, a subquery of trillions of steps, a two-billion-character string) are estimated before
 * anything is allocated and refused with a clear error in GreptimeDB's shape, while the server
 * keeps answering health checks and writes; the same shapes at a sane size still answer.
 */
import t, { type Test } from 'tap';
import { type SqlBody, sql, startServer, type TestServer, writeLines } from '../helpers/server.js';

/** One row at the epoch, one in 2100, one in between: the FILL grid spans 130 years. */
const ROWS = 'm,host=a v=1 0\nm,host=a v=2 4102444800\nm,host=b v=3 1700000000';

const HEALTH_MS_MAX = 100;
const ANSWER_MS_MAX = 5_000;

interface Outcome<R> {
  answer: R;
  ms: number;
}

let written = 0;

/**
 * Runs `request` while checking that /health answers within HEALTH_MS_MAX and that a
 * line-protocol write is acknowledged, then that the statement itself answered in time.
 */
async function whileRunning<R>(t: Test, server: TestServer, request: () => Promise<R>): Promise<R> {
  const started = performance.now();
  let done = false;
  const running: Promise<Outcome<R>> = request().then((answer) => {
    done = true;
    return { answer, ms: performance.now() - started };
  });
  const write = writeLines(server.url, `w,host=x v=${written} ${written + 1}`, 'db=public&precision=s');
  written++;
  const healthMs: number[] = [];
  do {
    const t0 = performance.now();
    const health = await fetch(`${server.url}/health`);
    await health.text();
    healthMs.push(performance.now() - t0);
    t.equal(health.status, 200, '/health answers');
    await new Promise((resolve) => setTimeout(resolve, 10));
  } while (!done);
  t.equal((await write).status, 204, 'a write during the statement is acknowledged');
  const worst = Math.max(...healthMs);
  t.ok(worst < HEALTH_MS_MAX, `/health answered within ${HEALTH_MS_MAX} ms (worst ${worst.toFixed(0)} ms)`);
  const { answer, ms } = await running;
  t.ok(ms < ANSWER_MS_MAX, `answered in ${ms.toFixed(0)} ms`);
  return answer;
}

/** Asserts GreptimeDB's native error body: exactly code, error and execution_time_ms. */
function isError(t: Test, res: { status: number; body: SqlBody; text: string }, status: number, code: number) {
  t.equal(res.status, status, res.text);
  t.equal(res.body.code, code, res.text);
  t.same(Object.keys(res.body).sort(), ['code', 'error', 'execution_time_ms']);
  t.type(res.body.execution_time_ms, 'number');
}

async function start(t: Test, extraToml = ''): Promise<TestServer> {
  const server = await startServer({ shards: 2, extraToml });
  t.teardown(() => server.stop());
  t.equal((await writeLines(server.url, ROWS, 'db=public&precision=s')).status, 204);
  // Warm up: the first statement of a fresh process compiles the query code.
  await stillServes(t, server);
  return server;
}

async function stillServes(t: Test, server: TestServer): Promise<void> {
  const res = await sql(server.url, 'SELECT host, v FROM m ORDER BY greptime_timestamp');
  t.same(
    res.body.output?.[0]?.records?.rows,
    [
      ['a', 1],
      ['b', 3],
      ['a', 2],
    ],
    'the server still answers queries',
  );
}

t.test('a RANGE grid past query.range_max_rows is refused before it is allocated', async (t) => {
  const server = await start(t);
  for (const fill of ['FILL NULL', 'FILL LINEAR', 'FILL PREV', 'FILL 0']) {
    const statement = `SELECT greptime_timestamp, host, min(v) RANGE '5m' ${fill} FROM m ALIGN '1s' BY (host) LIMIT 5`;
    const res = await whileRunning(t, server, () => sql(server.url, statement));
    isError(t, res, 500, 6000);
    t.match(
      res.body.error,
      /^Resources exhausted: RANGE query would produce 4102445400 rows \(time slots × BY groups\) after FILL, more than the limit of 1000000 \(query\.range_max_rows\)/,
      fill,
    );
  }
  const millis = await whileRunning(t, server, () =>
    sql(server.url, "SELECT max(v) RANGE '1h' FILL PREV FROM m ALIGN '1ms'"),
  );
  isError(t, millis, 500, 6000);
  t.match(millis.body.error, /3600000 rows .* for each stored row .*query\.range_max_rows/);

  const unfilled = await whileRunning(t, server, () => sql(server.url, "SELECT max(v) RANGE '1h' FROM m ALIGN '1ms'"));
  isError(t, unfilled, 500, 6000);
  t.match(unfilled.body.error, /query\.range_max_rows/, 'without FILL the slots of each row are bounded too');

  const plain = await sql(server.url, "SELECT greptime_timestamp, host, min(v) RANGE '5m' FROM m ALIGN '1s' BY (host)");
  t.equal(plain.body.output?.[0]?.records?.total_rows, 900, 'without FILL only slots with rows exist');
  await stillServes(t, server);
});

t.test('a small ALIGN still fills its grid', async (t) => {
  const server = await start(t);
  await writeLines(server.url, 'g,host=a v=1 10\ng,host=a v=4 13\ng,host=b v=7 11', 'db=public&precision=s');
  const q = (fill: string) =>
    sql(
      server.url,
      `SELECT greptime_timestamp, host, max(v) RANGE '1s' ${fill} FROM g ALIGN '1s' BY (host) ORDER BY host, greptime_timestamp`,
    );
  const rows = async (fill: string) => (await q(fill)).body.output?.[0]?.records?.rows;
  t.same(await rows('FILL NULL'), [
    [10_000_000_000, 'a', 1],
    [11_000_000_000, 'a', null],
    [12_000_000_000, 'a', null],
    [13_000_000_000, 'a', 4],
    [11_000_000_000, 'b', 7],
  ]);
  t.same(await rows('FILL PREV'), [
    [10_000_000_000, 'a', 1],
    [11_000_000_000, 'a', 1],
    [12_000_000_000, 'a', 1],
    [13_000_000_000, 'a', 4],
    [11_000_000_000, 'b', 7],
  ]);
  t.same(await rows('FILL LINEAR'), [
    [10_000_000_000, 'a', 1],
    [11_000_000_000, 'a', 2],
    [12_000_000_000, 'a', 3],
    [13_000_000_000, 'a', 4],
    [11_000_000_000, 'b', 7],
  ]);
  t.same(await rows('FILL 0'), [
    [10_000_000_000, 'a', 1],
    [11_000_000_000, 'a', 0],
    [12_000_000_000, 'a', 0],
    [13_000_000_000, 'a', 4],
    [11_000_000_000, 'b', 7],
  ]);
});

t.test('a shard refuses more range groups than the limit, and 0 lifts it', async (t) => {
  const server = await start(t, '[query]\nrange_max_rows = 500');
  // Each row falls into 300 one-second slots; host a's two rows make 600 groups in one shard.
  const res = await whileRunning(t, server, () =>
    sql(server.url, "SELECT greptime_timestamp, host, min(v) RANGE '5m' FROM m ALIGN '1s' BY (host)"),
  );
  isError(t, res, 500, 6000);
  t.match(res.body.error, /at least 501 rows .* in a shard, more than the limit of 500 \(query\.range_max_rows\)/);
  await stillServes(t, server);

  // 600 + 300 groups: past 700 in one shard or when the shards' groups meet in the router.
  const merged = await start(t, '[query]\nrange_max_rows = 700');
  const both = await sql(merged.url, "SELECT greptime_timestamp, host, min(v) RANGE '5m' FROM m ALIGN '1s' BY (host)");
  isError(t, both, 500, 6000);
  t.match(both.body.error, /(in a shard|from all shards), more than the limit of 700 \(query\.range_max_rows\)/);

  const unbounded = await start(t, '[query]\nrange_max_rows = 0');
  const all = await sql(
    unbounded.url,
    "SELECT greptime_timestamp, host, min(v) RANGE '5m' FROM m ALIGN '1s' BY (host)",
  );
  t.equal(all.body.output?.[0]?.records?.total_rows, 900);
});

t.test('the FILL grid counts against query.memory_limit', async (t) => {
  const server = await start(t, '[query]\nmemory_limit = "1MiB"');
  // 47,483 daily slots for host a: under range_max_rows, but past 1 MiB at ~100 bytes a row.
  const res = await whileRunning(t, server, () =>
    sql(server.url, "SELECT greptime_timestamp, host, min(v) RANGE '1s' FILL NULL FROM m ALIGN '1d' BY (host)"),
  );
  isError(t, res, 500, 6000);
  t.match(res.body.error, /memory limit of 1MiB \(query\.memory_limit\) while filling range slots/);
  const coarse = await sql(server.url, "SELECT host, min(v) RANGE '3650d' FILL NULL FROM m ALIGN '3650d' BY (host)");
  t.equal(coarse.body.output?.[0]?.records?.total_rows, 15, 'a coarser grid fits');
});

t.test('string functions refuse results past the string size bound', async (t) => {
  const server = await start(t);
  for (const [statement, name] of [
    ["SELECT repeat('x', 2000000000)", 'repeat'],
    ["SELECT lpad('x', 2000000000, 'ab')", 'lpad'],
    ["SELECT rpad('x', 9223372036854775807)", 'rpad'],
    ['SELECT space(2000000000)', 'space'],
    ["SELECT replace(repeat('a', 1000000), 'a', repeat('b', 1000))", 'replace'],
  ] as const) {
    const res = await whileRunning(t, server, () => sql(server.url, statement));
    isError(t, res, 500, 6000);
    t.match(
      res.body.error,
      new RegExp(`^Resources exhausted: string size overflow on ${name}, max size is \\d+ characters`),
    );
  }
  // Concatenation is bounded by V8 itself; its RangeError must not come back as a masked 1003.
  const concat = await whileRunning(t, server, () =>
    sql(server.url, "SELECT repeat('ab', 100000000) || repeat('ab', 100000000) || repeat('ab', 100000000)"),
  );
  isError(t, concat, 500, 6000);
  t.equal(concat.body.error, 'Resources exhausted: Invalid string length');
  const small = await sql(
    server.url,
    "SELECT repeat('ab', 3), lpad('7', 3, '0'), rpad('ab', 5, '😀z'), space(2) || '|'",
  );
  t.same(small.body.output?.[0]?.records?.rows, [['ababab', '007', 'ab😀z😀', '  |']]);
  await stillServes(t, server);
});

t.test('a PromQL subquery grid past the sample limit fails as Prometheus fails it', async (t) => {
  const server = await start(t);
  const promQuery = (path: string, params: Record<string, string>) =>
    fetch(`${server.url}/v1/metricsapi/api/v1/${path}?${new URLSearchParams(params)}`).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
    }));
  for (const time of ['4102444800', '1700000000']) {
    const res = await whileRunning(t, server, () => promQuery('query', { query: 'max_over_time(m[100y:1ms])', time }));
    t.equal(res.status, 422);
    t.same(res.body, {
      status: 'error',
      errorType: 'execution',
      error: 'query processing would load too many samples into memory in query execution',
    });
  }
  const range = await whileRunning(t, server, () =>
    promQuery('query_range', { query: 'm', start: '0', end: '4102444800', step: '0.001' }),
  );
  t.equal(range.status, 400, 'query_range is bounded by its 11,000 points');
  t.equal(range.body.errorType, 'bad_data');

  const tql = await whileRunning(t, server, () => sql(server.url, "TQL EVAL (0, 10, '1s') max_over_time(m[100y:1ms])"));
  isError(t, tql, 500, 6000);
  t.equal(tql.body.error, 'query processing would load too many samples into memory in query execution');

  const fine = await promQuery('query', { query: 'max_over_time(m[1d:1m])', time: '1700000100' });
  t.same(fine.body.data, { resultType: 'vector', result: [{ metric: { host: 'b' }, value: [1700000100, '3'] }] });
  await stillServes(t, server);
});

t.test('absurd LIMIT and OFFSET values answer with GreptimeDB planning errors', async (t) => {
  const server = await start(t);
  // DataFusion reads a literal past u64 as Float64; GreptimeDB answers these planning errors as
  // 3001 (shared/conformance/sql/common/order/limit.result).
  const huge = await whileRunning(t, server, () => sql(server.url, 'SELECT * FROM m LIMIT 18446744073709551616'));
  isError(t, huge, 500, 3001);
  t.equal(huge.body.error, 'Error during planning: Expected LIMIT to be an integer or null, but got Float64');
  const negative = await sql(server.url, 'SELECT * FROM m LIMIT -9223372036854775808');
  isError(t, negative, 500, 3001);
  t.equal(negative.body.error, "Error during planning: LIMIT must be >= 0, '-9223372036854775808' was provided.");
  const offset = await sql(server.url, 'SELECT * FROM m OFFSET -1');
  t.equal(offset.body.error, "Error during planning: OFFSET must be >= 0, '-1' was provided.");
  const far = await sql(server.url, 'SELECT * FROM m ORDER BY v LIMIT 9223372036854775807 OFFSET 9223372036854775807');
  t.same(far.body.output?.[0]?.records?.rows, [], 'an offset past the data is an empty answer');
  await stillServes(t, server);
});
