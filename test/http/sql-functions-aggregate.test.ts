/**
 * Aggregates over HTTP: the regr_* family per group beside covar/var, and the ordered and
 * DISTINCT forms of string_agg/array_agg (the separator and ORDER BY must survive DISTINCT),
 * nth_value as an aggregate and approx_percentile_cont_with_weight.
 */
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  [
    'SELECT regr_count(y, x), regr_slope(y, x), regr_intercept(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM pts WHERE g = 1',
    [[3, 2, 1, 2, 5]],
  ],
  ['SELECT regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_r2(y, x) FROM pts WHERE g = 1', [[2, 8, 4, 1]]],
  [
    'SELECT g, regr_count(y, x), regr_slope(y, x), regr_r2(y, x), regr_sxx(y, x) FROM pts GROUP BY g ORDER BY g',
    [
      [1, 3, 2, 1, 2],
      [2, 1, null, null, 0],
      [3, 0, null, null, null],
    ],
  ],
  ['SELECT regr_slope(y, x) = covar_pop(y, x) / var_pop(x) FROM pts WHERE g = 1', [[true]]],
  ['SELECT regr_count(y, x), round(regr_slope(y, x), 6) FROM pts', [[4, -0.571429]]],
  [
    "SELECT string_agg(h, ',' ORDER BY h), string_agg(h, '|' ORDER BY ts DESC) FROM pts",
    [['a,b,b,c,d,e', 'e|d|c|b|a|b']],
  ],
  [
    "SELECT string_agg(DISTINCT h, ',' ORDER BY h), string_agg(DISTINCT h, '-' ORDER BY h DESC) FROM pts",
    [['a,b,c,d,e', 'e-d-c-b-a']],
  ],
  [
    "SELECT g, string_agg(h, ';' ORDER BY ts) FROM pts GROUP BY g ORDER BY g",
    [
      [1, 'b;a;b'],
      [2, 'c;e'],
      [3, 'd'],
    ],
  ],
  [
    'SELECT array_agg(DISTINCT h ORDER BY h DESC), array_agg(g ORDER BY ts DESC) FROM pts',
    [
      [
        ['e', 'd', 'c', 'b', 'a'],
        [2, 3, 2, 1, 1, 1],
      ],
    ],
  ],
  ["SELECT string_agg(h, ',') FROM pts WHERE g = 9", [[null]]],
  [
    'SELECT nth_value(h, 2 ORDER BY ts), nth_value(h, -1 ORDER BY ts), nth_value(h, 7 ORDER BY ts), nth_value(x, 5 ORDER BY ts), nth_value(h, 1) FROM pts',
    [['a', 'e', null, null, 'b']],
  ],
  [
    'SELECT g, nth_value(y, 2 ORDER BY y DESC) FROM pts GROUP BY g ORDER BY g',
    [
      [1, 5],
      [2, 1],
      [3, null],
    ],
  ],
  ['SELECT nth_value(h, 0) FROM pts', { status: 400, code: 3000, message: 'nth_value expects n to be non-zero' }],
  ['SELECT nth_value(h, g) FROM pts', { status: 400, code: 3000, message: 'nth_value not supported for n' }],
  ['SELECT nth_value(h) FROM pts', NO_SIGNATURE],
  ['SELECT approx_percentile_cont_with_weight(y, x, 0.5) FROM pts WHERE g = 1', [[6]]],
  [
    'SELECT g, approx_percentile_cont_with_weight(x, y, 0.9), approx_percentile_cont_with_weight(x, y, 0) FROM pts GROUP BY g ORDER BY g',
    [
      [1, 3, 1],
      [2, 5, 5],
      [3, null, null],
    ],
  ],
  [
    'SELECT approx_percentile_cont_with_weight(y, x, 1.5) FROM pts',
    { status: 400, code: 3000, message: 'Percentile value must be between 0.0 and 1.0 inclusive' },
  ],
  ['SELECT approx_percentile_cont_with_weight(y, h, 0.5) FROM pts', NO_SIGNATURE],
  ["SELECT regr_slope('a', x) FROM pts", NO_SIGNATURE],
  ['SELECT regr_count(y) FROM pts', NO_SIGNATURE],
];

t.test('regression, ordered and distinct aggregates', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE pts (ts TIMESTAMP TIME INDEX, g INT, x DOUBLE, y DOUBLE, h STRING)',
    "INSERT INTO pts VALUES (1, 1, 1, 3, 'b'), (2, 1, 2, 5, 'a'), (3, 1, 3, 7, 'b'), (4, 2, 5, 1, 'c'), (5, 3, NULL, 2, 'd'), (6, 2, NULL, 4, 'e')",
  ]),
);

// Partial states from two shards must merge to the answer one shard gives: nth_value keeps each
// value's ordering key, the weighted percentile its (value, weight) pairs.
t.test('nth_value and the weighted percentile merge across shards', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const values: string[] = [];
  for (let h = 0; h < 8; h++) for (let i = 0; i < 5; i++) values.push(`('h${h}', ${i * 1000}, ${h * 10 + i}, 1)`);
  for (const statement of [
    'CREATE TABLE m (host STRING, ts TIMESTAMP TIME INDEX, v BIGINT, w DOUBLE, PRIMARY KEY (host))',
    `INSERT INTO m VALUES ${values.join(', ')}`,
  ]) {
    t.equal((await sql(server.url, statement)).status, 200, statement);
  }
  const whole = await sql(
    server.url,
    'SELECT nth_value(v, 3 ORDER BY v DESC), nth_value(host, -2 ORDER BY ts, host), approx_percentile_cont_with_weight(CAST(v AS DOUBLE), w, 0.5) FROM m',
  );
  t.equal(whole.status, 200, whole.text);
  t.same(rowsOf(whole.body), [[72, 'h6', 38.25]]);
  const grouped = await sql(server.url, 'SELECT host, nth_value(v, 2 ORDER BY ts) FROM m GROUP BY host ORDER BY host');
  t.equal(grouped.status, 200, grouped.text);
  t.same(
    rowsOf(grouped.body),
    Array.from({ length: 8 }, (_, h) => [`h${h}`, h * 10 + 1]),
  );
});
