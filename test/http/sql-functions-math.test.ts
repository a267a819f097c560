/** DataFusion's and GreptimeDB's math functions over HTTP: results, NULL handling and refused calls. */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  ['SELECT sin(0), cos(0), tan(0), asin(1) * 2 = pi(), acos(1), atan(0)', [[0, 1, 0, true, 0, 0]]],
  ['SELECT sinh(0), cosh(0), tanh(0), asinh(0), acosh(1), atanh(0)', [[0, 1, 0, 0, 0, 0]]],
  [
    'SELECT atan2(1, 1) * 4 = pi(), round(cot(1), 6), cbrt(27), degrees(pi()), radians(180) = pi()',
    [[true, 0.642093, 3, 180, true]],
  ],
  ['SELECT log(100), log(2, 8), log(10, NULL), ln(1)', [[2, 3, null, 0]]],
  ['SELECT signum(-3), signum(0), signum(2.5), signum(NULL)', [[-1, 0, 1, null]]],
  ['SELECT factorial(0), factorial(5), factorial(20), factorial(NULL)', [[1, 120, 2432902008176640000, null]]],
  ['SELECT factorial(21)', { status: 500, code: 3001, message: 'Overflow' }],
  ['SELECT gcd(12, 18), gcd(-12, 18), gcd(0, 0), lcm(4, 6), lcm(0, 5), lcm(NULL, 1)', [[6, 6, 0, 12, 0, null]]],
  ["SELECT nanvl(CAST('NaN' AS DOUBLE), 1), nanvl(2, 1), iszero(0.0), iszero(1)", [[1, 2, true, false]]],
  ['SELECT random() >= 0 AND random() < 1', [[true]]],
  ['SELECT clamp(10, 0, 1), clamp(-1, 0, 1), clamp(0.5, 0, 1), clamp(NULL, 0, 1)', [[1, 0, 0.5, null]]],
  ['SELECT clamp_min(-5, 0), clamp_max(5, 3), clamp_min(2.5, 3)', [[0, 3, 3]]],
  ['SELECT clamp(1, 2, 0)', { status: 400, code: 1004, message: 'less than or equal' }],
  ['SELECT mod(18, 4), mod(-7, 3), mod(5.5, 2), mod(NULL, 2)', [[2, -1, 1.5, null]]],
  ['SELECT mod(1, 0)', { status: 500, code: 3001, message: 'Divide by zero' }],
  ["SELECT sin('a')", NO_SIGNATURE],
  ['SELECT atan2(1)', NO_SIGNATURE],
  ['SELECT pi(1)', NO_SIGNATURE],
  ['SELECT gcd(1.5, 2)', NO_SIGNATURE],
];

t.test('math functions', (t) => checkFunctionCases(t, cases));
