/**
 * DataFusion's remaining math functions (trigonometry, cbrt, log with a base, signum, factorial,
 * gcd/lcm, nanvl, iszero, pi, random) and GreptimeDB's own clamp, clamp_min, clamp_max and mod.
 * Floating functions compute in Float64; integer ones (factorial, gcd, lcm, integer mod/clamp)
 * stay exact in Int64 and fail on overflow as DataFusion does.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import { isInteger, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { signatureError, typed } from './typed.js';
import { mapRows, type ScalarFunction } from './types.js';

function float1(name: string, fn: (x: number) => number): ScalarFunction {
  return typed(name, ['float'], 0, 'Float64', (x) => fn(x as number));
}

function float2(name: string, fn: (x: number, y: number) => number): ScalarFunction {
  return typed(name, ['float', 'float'], 0, 'Float64', (x, y) => fn(x as number, y as number));
}

const INT64_MAX = (1n << 63n) - 1n;

function overflow(name: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Arrow error: Compute error: Overflow happened on: ${name}`);
}

function factorial(n: Value): Value {
  let result = 1n;
  for (let i = 2n; i <= (n as bigint); i++) {
    result *= i;
    if (result > INT64_MAX) throw overflow(`factorial(${n})`);
  }
  return result;
}

function gcdOf(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

function lcmOf(a: bigint, b: bigint): bigint {
  if (a === 0n || b === 0n) return 0n;
  const g = gcdOf(a, b);
  const out = ((a < 0n ? -a : a) / g) * (b < 0n ? -b : b);
  if (out > INT64_MAX) throw overflow(`lcm(${a}, ${b})`);
  return out;
}

/** Int64 when every argument is an integer, else Float64: the type clamp and mod compute in. */
function integerOrFloat(name: string, argTypes: DataType[], arity: number): DataType {
  if (argTypes.length !== arity || !argTypes.every((t) => t === 'Null' || isNumericOrDecimal(t))) {
    throw signatureError(name, argTypes);
  }
  return argTypes.every((t) => t === 'Null' || isInteger(t)) ? 'Int64' : 'Float64';
}

function lessThan(a: Value, b: Value): boolean {
  return (a as number | bigint) < (b as number | bigint);
}

/** `clamp(x, lower, upper)` and its one-sided forms; a lower bound above the upper one is an error. */
function clamp(name: string, bounds: 'both' | 'min' | 'max'): ScalarFunction {
  const arity = bounds === 'both' ? 3 : 2;
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const t = integerOrFloat(name, argTypes, arity);
      return { argTypes: argTypes.map(() => t), returnType: t };
    },
    evaluate: (args, rowCount) =>
      mapRows(args, rowCount, (x, a, b) => {
        if (bounds === 'min') return lessThan(x, a) ? a : x;
        if (bounds === 'max') return lessThan(a, x) ? a : x;
        if (lessThan(b, a)) {
          throw new DbError(
            ErrorCode.InvalidArguments,
            `Invalid function args: The second arg should be less than or equal to the third arg, have: ${String(a)}, ${String(b)}`,
          );
        }
        return lessThan(x, a) ? a : lessThan(b, x) ? b : x;
      }),
  };
}

/** GreptimeDB's `mod(x, y)`: an integer remainder (sign of x) or a floating one. */
const mod: ScalarFunction = {
  kind: 'scalar',
  name: 'mod',
  bind(argTypes) {
    const t = integerOrFloat('mod', argTypes, 2);
    return { argTypes: [t, t], returnType: t };
  },
  evaluate: (args, rowCount, _ctx, returnType) =>
    mapRows(args, rowCount, (x, y) => {
      if (returnType === 'Float64') return (x as number) % (y as number);
      if ((y as bigint) === 0n) throw new DbError(ErrorCode.EngineExecuteQuery, 'Arrow error: Divide by zero error');
      return (x as bigint) % (y as bigint);
    }),
};

/** `log(x)` is base 10; `log(base, x)` takes the base first, as DataFusion does. */
const log: ScalarFunction = {
  ...typed('log', ['float', 'float'], 1, 'Float64', (a, b) =>
    b === undefined ? Math.log10(a as number) : Math.log(b as number) / Math.log(a as number),
  ),
};

const random: ScalarFunction = {
  kind: 'scalar',
  name: 'random',
  bind(argTypes) {
    if (argTypes.length !== 0) throw signatureError('random', argTypes);
    return { argTypes: [], returnType: 'Float64' };
  },
  evaluate: (_args, rowCount) => Array.from({ length: rowCount }, () => Math.random()),
};

const pi: ScalarFunction = {
  kind: 'scalar',
  name: 'pi',
  bind(argTypes) {
    if (argTypes.length !== 0) throw signatureError('pi', argTypes);
    return { argTypes: [], returnType: 'Float64' };
  },
  evaluate: (_args, rowCount) => new Array<Value>(rowCount).fill(Math.PI),
};

/** The extra math functions by SQL name. */
export const MATH_EXTRA_FUNCTIONS: Record<string, ScalarFunction> = {
  sin: float1('sin', Math.sin),
  cos: float1('cos', Math.cos),
  tan: float1('tan', Math.tan),
  cot: float1('cot', (x) => 1 / Math.tan(x)),
  asin: float1('asin', Math.asin),
  acos: float1('acos', Math.acos),
  atan: float1('atan', Math.atan),
  sinh: float1('sinh', Math.sinh),
  cosh: float1('cosh', Math.cosh),
  tanh: float1('tanh', Math.tanh),
  asinh: float1('asinh', Math.asinh),
  acosh: float1('acosh', Math.acosh),
  atanh: float1('atanh', Math.atanh),
  atan2: float2('atan2', Math.atan2),
  cbrt: float1('cbrt', Math.cbrt),
  degrees: float1('degrees', (x) => (x * 180) / Math.PI),
  radians: float1('radians', (x) => (x * Math.PI) / 180),
  // DataFusion's signum keeps 0 for zero (Rust's signum would give ±1).
  signum: float1('signum', (x) => (x === 0 ? 0 : Math.sign(x))),
  nanvl: float2('nanvl', (x, y) => (Number.isNaN(x) ? y : x)),
  iszero: typed('iszero', ['float'], 0, 'Boolean', (x) => x === 0),
  factorial: typed('factorial', ['integer'], 0, 'Int64', factorial),
  gcd: typed('gcd', ['integer', 'integer'], 0, 'Int64', (a, b) => gcdOf(a as bigint, b as bigint)),
  lcm: typed('lcm', ['integer', 'integer'], 0, 'Int64', (a, b) => lcmOf(a as bigint, b as bigint)),
  log,
  pi,
  random,
  clamp: clamp('clamp', 'both'),
  clamp_min: clamp('clamp_min', 'min'),
  clamp_max: clamp('clamp_max', 'max'),
  mod,
};
