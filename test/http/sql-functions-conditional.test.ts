/** nvl, ifnull, nvl2, GreptimeDB's isnull and IS [NOT] DISTINCT FROM over HTTP, beside coalesce and nullif. */
import t from 'tap';
import { checkFunctionCases, type FunctionCase } from '../helpers/sql-function-cases.js';

const PLAN = { status: 400, code: 3000 };

const cases: FunctionCase[] = [
  ["SELECT nvl(NULL, 2), nvl(1, 2), nvl(NULL, NULL), nvl('a', 'b')", [[2, 1, null, 'a']]],
  ['SELECT ifnull(NULL, 3.5), ifnull(1, 2)', [[3.5, 1]]],
  ["SELECT nvl2(NULL, 1, 2), nvl2('x', 1, 2), nvl2(0, NULL, 2)", [[2, 1, null]]],
  ["SELECT isnull(NULL), isnull(1), isnull('')", [[true, false, false]]],
  ['SELECT coalesce(NULL, NULL, 3), nullif(1, 1), greatest(1, 3, 2), least(1, NULL)', [[3, null, 3, 1]]],
  [
    'SELECT v, nvl(v, -1), nvl2(v, 1, 0), isnull(v) FROM t ORDER BY ts',
    [
      [1, 1, 1, false],
      [null, -1, 0, true],
    ],
  ],
  [
    'SELECT 1 IS DISTINCT FROM NULL, NULL IS DISTINCT FROM NULL, 1 IS DISTINCT FROM 1, 1 IS DISTINCT FROM 2.0, NULL IS NOT DISTINCT FROM NULL, 1 IS NOT DISTINCT FROM 2',
    [[true, false, false, true, true, false]],
  ],
  [
    'SELECT ts, v IS DISTINCT FROM 1, v IS NOT DISTINCT FROM NULL FROM t WHERE v IS DISTINCT FROM 5 ORDER BY ts',
    [
      [1, false, false],
      [2, true, true],
    ],
  ],
  ['SELECT nvl(1)', { ...PLAN, message: 'nvl expects 2 arguments' }],
  ['SELECT nvl2(1, 2)', { ...PLAN, message: 'nvl2 expects 3 arguments' }],
  ["SELECT nvl(1, 'a', 2)", PLAN],
  ['SELECT isnull()', PLAN],
];

t.test('conditional functions', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE t (ts TIMESTAMP TIME INDEX, v BIGINT)',
    'INSERT INTO t VALUES (1, 1), (2, NULL)',
  ]),
);
