import t from 'tap';
import { formatNumber } from '../../../src/query/sql/functions/mysql-string.js';
import { formatWithPattern } from '../../../src/query/sql/functions/time-convert.js';
import { addInterval, intervalDisplay, parseInterval } from '../../../src/query/sql/types/interval.js';
import { rows, run, TestEnv } from './helpers/test-env.js';

// Functions and aggregates added with the second SQL slice.

async function value(sql: string): Promise<unknown> {
  const r = await rows(TestEnv.memory(1), sql);
  return r[0]?.[0];
}

t.test('intervals parse into months, days and nanoseconds', async (t) => {
  t.same(parseInterval('1 year 2 months'), { months: 14, days: 0, nanos: 0n });
  t.same(parseInterval('2 days 3 hours'), { months: 0, days: 2, nanos: 10_800_000_000_000n });
  t.same(parseInterval('1.5 seconds'), { months: 0, days: 0, nanos: 1_500_000_000n });
  t.throws(() => parseInterval('one day'), { code: 3001 });
  t.equal(
    intervalDisplay(parseInterval('1 day')),
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 0, days: 1, nanoseconds: 0 }")',
  );
});

t.test('adding a month clamps the day to the target month', async (t) => {
  const jan31 = 1_706_659_200_000_000_000n; // 2024-01-31T00:00:00Z
  const feb29 = 1_709_164_800_000_000_000n; // 2024-02-29T00:00:00Z
  t.equal(addInterval(jan31, { months: 1, days: 0, nanos: 0n }, 1), feb29);
});

t.test('timestamp ± INTERVAL keeps the timestamp type', async (t) => {
  t.equal(await value("SELECT TIMESTAMP '2024-01-31 00:00:00' + INTERVAL '1 month'"), 1_709_164_800_000n);
  t.equal(await value("SELECT TIMESTAMP '2024-01-02 00:00:00' - INTERVAL '1' DAY"), 1_704_067_200_000n);
  await t.rejects(run(TestEnv.memory(1), "SELECT 1 + INTERVAL '1 day'"), { code: 3000 });
});

t.test('MySQL string functions follow MySQL positions and formats', async (t) => {
  t.equal(await value("SELECT LOCATE('o', 'hello world', 6)"), 8n);
  t.equal(await value("SELECT ELT(2, 'a', 'b')"), 'b');
  t.equal(await value("SELECT FIELD('b', 'a', 'b')"), 2n);
  t.equal(await value("SELECT INSERT('Quadratic', 3, 4, 'What')"), 'QuWhattic');
  t.equal(await value('SELECT SPACE(3)'), '   ');
  t.equal(formatNumber(-1234567.891, 2), '-1,234,567.89');
  t.equal(formatNumber(0.5, 0), '1');
});

t.test('regular expression functions and operators use Rust regex syntax', async (t) => {
  t.equal(await value("SELECT regexp_like('a1', '\\d')"), true);
  t.equal(await value("SELECT 'ABC' ~* 'b'"), true);
  t.equal(await value("SELECT 'abc' !~ 'b'"), false);
  t.equal(await value("SELECT regexp_replace('a  b  c', '\\s+', ' ')"), 'a b  c');
  t.equal(await value("SELECT regexp_replace('a  b  c', '\\s+', ' ', 'g')"), 'a b c');
  t.equal(await value("SELECT regexp_extract('v1.2.3', '\\d+\\.\\d+')"), '1.2');
  t.equal(await value("SELECT matches_term('cat dog', 'dog')"), true);
  t.equal(await value("SELECT matches_term('catdog', 'dog')"), false);
});

t.test('time conversions: to_timestamp*, from_unixtime, date_bin, date_format, arrow_cast', async (t) => {
  t.equal(await value("SELECT to_timestamp('1970-01-01T00:00:01Z')"), 1_000_000_000n);
  t.equal(await value('SELECT to_timestamp_millis(1500)'), 1500n);
  t.equal(await value('SELECT from_unixtime(60)'), 60n);
  t.equal(await value("SELECT date_bin(INTERVAL '1 hour', TIMESTAMP '1970-01-01 01:59:00')"), 3_600_000n);
  t.equal(
    await value("SELECT date_format(TIMESTAMP '2024-03-05 06:07:08.009', '%Y/%m/%d %H:%M:%S%.3f')"),
    '2024/03/05 06:07:08.009',
  );
  t.equal(await value("SELECT arrow_cast(1, 'Float64')"), 1);
  t.equal(await value("SELECT split_part('a,b,c', ',', -1)"), 'c');
  t.equal(formatWithPattern(0n, '%a %b %e %j %z', 3600), 'Thu Jan  1 001 +0100');
});

t.test('statistical and bitwise aggregates merge partial states across shards', async (t) => {
  const env = TestEnv.memory(3);
  await run(env, 'CREATE TABLE s (g STRING PRIMARY KEY, v INT, ts TIMESTAMP TIME INDEX)');
  await run(env, "INSERT INTO s VALUES ('a', 42, 1), ('b', 43, 2), ('c', 1000, 3), ('d', 7, 4)");
  const [row] = await rows(
    env,
    'SELECT round(stddev(v), 3), round(var_pop(v), 3), median(v), approx_distinct(v), bit_and(v), bit_or(v), bit_xor(v) FROM s',
  );
  t.same(row, [484.956, 176386.5, 42.5, 4n, 0, 1007, 1006]);
});

t.test('first_value and last_value follow scan order, or their own ORDER BY', async (t) => {
  const env = TestEnv.memory(3);
  await run(env, 'CREATE TABLE f (g STRING PRIMARY KEY, v INT, ts TIMESTAMP TIME INDEX)');
  await run(env, "INSERT INTO f VALUES ('b', 1, 1), ('a', 2, 2), ('c', 3, 3)");
  t.same(await rows(env, 'SELECT first_value(v), last_value(v) FROM f'), [[2, 3]]);
  t.same(await rows(env, 'SELECT first_value(v ORDER BY ts DESC), last_value(g ORDER BY v) FROM f'), [[3, 'c']]);
});
