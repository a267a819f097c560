/** The regr_* aggregates over HTTP, per group and across shards, beside covar and corr. */
import t from 'tap';
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
  ["SELECT regr_slope('a', x) FROM pts", NO_SIGNATURE],
  ['SELECT regr_count(y) FROM pts', NO_SIGNATURE],
];

t.test('regression aggregates', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE pts (ts TIMESTAMP TIME INDEX, g INT, x DOUBLE, y DOUBLE)',
    'INSERT INTO pts VALUES (1, 1, 1, 3), (2, 1, 2, 5), (3, 1, 3, 7), (4, 2, 5, 1), (5, 3, NULL, 2), (6, 2, NULL, 4)',
  ]),
);
