/**
 * approx_percentile_cont and approx_median over HTTP against the answers of GreptimeDB's sqlness
 * transcripts (aggregate/approx_percentile_cont, approx_quantile, approx_median: DataFusion's
 * t-digest, an integer input's estimate truncated back to it), in both spellings of the call, and
 * its third argument (the digest's size) and argument errors; and a larger table over two shards,
 * whose digests merge in the router, against the exact quantile and against one shard's answer.
 */
import t from 'tap';
import { prng } from '../helpers/prng.js';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const FRACTIONS = [0.01, 0.1, 0.5, 0.9, 0.99];

const cases: FunctionCase[] = [
  ['SELECT approx_percentile_cont(i, 0.5) FROM approx_test', [[499]]],
  ['SELECT approx_percentile_cont(0.5) WITHIN GROUP (ORDER BY i) FROM approx_test', [[499]]],
  ['SELECT approx_percentile_cont(0.25) WITHIN GROUP (ORDER BY i) FROM approx_test', [[249]]],
  ['SELECT approx_percentile_cont(0.75) WITHIN GROUP (ORDER BY i) FROM approx_test', [[749]]],
  ['SELECT approx_percentile_cont(0.95) WITHIN GROUP (ORDER BY i) FROM approx_test', [[949]]],
  ['SELECT approx_percentile_cont(0.25) WITHIN GROUP (ORDER BY i DESC) FROM approx_test', [[749]]],
  ['SELECT approx_percentile_cont(0.95) WITHIN GROUP (ORDER BY i DESC) FROM approx_test', [[49]]],
  ['SELECT approx_percentile_cont(0.0) WITHIN GROUP (ORDER BY i) FROM approx_test', [[0]]],
  ['SELECT approx_percentile_cont(1.0) WITHIN GROUP (ORDER BY i) FROM approx_test', [[999]]],
  ['SELECT approx_percentile_cont(1.0) WITHIN GROUP (ORDER BY i DESC) FROM approx_test', [[0]]],
  // The newer transcript's float answers: the same estimates before the cast back to INT.
  ['SELECT approx_percentile_cont(CAST(i AS DOUBLE), 0.5) FROM approx_test', [[499.25]]],
  ['SELECT approx_percentile_cont(CAST(i AS DOUBLE), 0.25) FROM approx_test', [[249.575]]],
  ['SELECT approx_percentile_cont(CAST(i AS DOUBLE), 0.95) FROM approx_test', [[949.6607142857143]]],
  [
    'SELECT approx_percentile_cont(0.95) WITHIN GROUP (ORDER BY CAST(i AS DOUBLE) DESC) FROM approx_test',
    [[49.50000000000004]],
  ],
  ['SELECT approx_percentile_cont(0.5) WITHIN GROUP (ORDER BY d) FROM approx_double', [[748.875]]],
  ['SELECT approx_percentile_cont(d, 0.9) FROM approx_double', [[1349.25]]],
  [
    'SELECT grp, approx_percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(val AS DOUBLE)) FROM approx_groups GROUP BY grp ORDER BY grp',
    [
      [0, 148.125],
      [1, 149.125],
      [2, 150.125],
    ],
  ],
  ['SELECT approx_median(i) FROM odd_test', [[3]]],
  ['SELECT approx_median(i) FROM even_test', [[3]]],
  ['SELECT approx_median(val) FROM large_test', [[499]]],
  [
    'SELECT grp, approx_median(val) FROM large_test GROUP BY grp ORDER BY grp',
    [
      [0, 498],
      [1, 499],
      [2, 500],
    ],
  ],
  ['SELECT approx_median(d) FROM double_test', [[3.3]]],
  ['SELECT approx_median(val) FROM dup_test', [[2]]],
  ['SELECT approx_median(i) FROM odd_test WHERE i > 100', [[null]]],
  ['SELECT approx_median(i) FROM odd_test WHERE i = 3', [[3]]],
  ['SELECT approx_median(val) FROM neg_test', [[0]]],
  // Up to half the digest's size, every value is its own centroid: 1,000 values in 2,000
  // centroids interpolate between the values around rank 500 (749.25), not as 100 centroids do.
  ['SELECT approx_percentile_cont(d, 0.5, 10) FROM double_test', [[3.3]]],
  ['SELECT approx_percentile_cont(0.5, 2000) WITHIN GROUP (ORDER BY d) FROM approx_double', [[749.25]]],
  [
    'SELECT approx_percentile_cont(d, 0.5, 0) FROM double_test',
    { status: 500, code: 3001, message: "Tdigest max_size value for 'APPROX_PERCENTILE_CONT' must be UInt > 0" },
  ],
  ['SELECT approx_percentile_cont(d, 0.5, 1.5) FROM double_test', NO_SIGNATURE],
  [
    'SELECT approx_percentile_cont(d, 1.5) FROM double_test',
    { status: 400, code: 3000, message: 'Percentile value must be between 0.0 and 1.0 inclusive' },
  ],
  ["SELECT approx_median('a') FROM double_test", NO_SIGNATURE],
];

const thousand = (row: (i: number) => string): string => Array.from({ length: 1000 }, (_, i) => row(i)).join(', ');

t.test('approx_percentile_cont and approx_median give GreptimeDB’s answers', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE approx_test (i INT, ts TIMESTAMP TIME INDEX)',
    `INSERT INTO approx_test VALUES ${thousand((i) => `(${i}, ${i * 1000})`)}, (NULL, 1001000)`,
    'CREATE TABLE approx_double (d DOUBLE, ts TIMESTAMP TIME INDEX)',
    `INSERT INTO approx_double VALUES ${thousand((i) => `(${i * 1.5}, ${i * 1000})`)}`,
    'CREATE TABLE approx_groups (grp INT, val INT, ts TIMESTAMP TIME INDEX)',
    `INSERT INTO approx_groups VALUES ${Array.from({ length: 300 }, (_, i) => `(${i % 3}, ${i}, ${i * 1000})`).join(', ')}`,
    'CREATE TABLE large_test (val INT, grp INT, ts TIMESTAMP TIME INDEX)',
    `INSERT INTO large_test VALUES ${thousand((i) => `(${i}, ${i % 3}, ${i * 1000})`)}`,
    'CREATE TABLE odd_test (i INT, ts TIMESTAMP TIME INDEX)',
    'INSERT INTO odd_test VALUES (1, 1000), (2, 2000), (3, 3000), (4, 4000), (5, 5000)',
    'CREATE TABLE even_test (i INT, ts TIMESTAMP TIME INDEX)',
    'INSERT INTO even_test VALUES (1, 1000), (2, 2000), (4, 3000), (5, 4000)',
    'CREATE TABLE double_test (d DOUBLE, ts TIMESTAMP TIME INDEX)',
    'INSERT INTO double_test VALUES (1.1, 1000), (2.2, 2000), (3.3, 3000), (4.4, 4000), (5.5, 5000), (NULL, 6000)',
    'CREATE TABLE dup_test (val INT, ts TIMESTAMP TIME INDEX)',
    'INSERT INTO dup_test VALUES (1, 1000), (1, 2000), (2, 3000), (2, 4000), (3, 5000), (3, 6000), (4, 7000), (4, 8000)',
    'CREATE TABLE neg_test (val INT, ts TIMESTAMP TIME INDEX)',
    'INSERT INTO neg_test VALUES (-5, 1000), (-2, 2000), (0, 3000), (3, 4000), (7, 5000)',
  ]),
);

/** The fraction of `sorted` below `x`, ties counted half. */
function rankOf(sorted: Float64Array, x: number): number {
  let below = 0;
  let equal = 0;
  for (const v of sorted) {
    if (v < x) below++;
    else if (v === x) equal++;
  }
  return (below + equal / 2) / sorted.length;
}

// 60,000 values, more than a batch: the estimate comes from digests merged across the shards.
t.test('over two shards the estimate stays within 0.5% rank of the exact quantile and of one shard’s', async (t) => {
  const rand = prng(21);
  const lines: string[] = [];
  const values: number[] = [];
  for (let h = 0; h < 60; h++) {
    for (let i = 0; i < 1000; i++) {
      const v = Math.round(Math.exp(rand() * 8) * 1000) / 1000;
      values.push(v);
      lines.push(`m,host=h${h} v=${v} ${1_700_000_000_000 + i * 1000}`);
    }
  }
  const sorted = Float64Array.from(values).sort();
  const answers: number[][] = [];
  for (const shards of [1, 2]) {
    const server = await startServer({ shards });
    try {
      for (let from = 0; from < lines.length; from += 10_000) {
        const res = await writeLines(server.url, lines.slice(from, from + 10_000).join('\n'));
        t.equal(res.status, 204);
      }
      const r = await sql(
        server.url,
        `SELECT ${FRACTIONS.map((q) => `approx_percentile_cont(v, ${q})`).join(', ')} FROM m`,
      );
      t.equal(r.status, 200, r.text);
      answers.push(rowsOf(r.body)[0] as number[]);
    } finally {
      await server.stop();
    }
  }
  const [one, two] = answers as [number[], number[]];
  FRACTIONS.forEach((q, i) => {
    const rankOne = rankOf(sorted, one[i] as number);
    const rankTwo = rankOf(sorted, two[i] as number);
    t.ok(Math.abs(rankOne - q) <= 0.005, `one shard q=${q}: rank ${rankOne}`);
    t.ok(Math.abs(rankTwo - q) <= 0.005, `two shards q=${q}: rank ${rankTwo}`);
    t.ok(Math.abs(rankOne - rankTwo) <= 0.005, `q=${q}: one shard ${one[i]}, two ${two[i]}`);
  });
});
