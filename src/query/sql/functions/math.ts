/**
 * Numeric scalar functions. Rounding is half away from zero (Rust's `f64::round`, which DataFusion
 * uses), not JavaScript's half-up. On decimals, `abs`, `ceil`, `floor` and `round` stay exact and
 * keep a decimal type (`round(d, n)` has scale `n` clamped to the argument's); the other functions
 * read decimals as Float64.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, decimalPartsOf, decimalTypeOf } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { pow10, rescaleDecimal } from '../types/decimal.js';
import { arrowNameOf, DECIMAL_PRECISION_MAX, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { mapRows, type ScalarFunction, type Signature } from './types.js';

function requireNumeric(name: string, argTypes: DataType[], arity: number[]): void {
  const ok = arity.includes(argTypes.length) && argTypes.every((t) => t === 'Null' || isNumericOrDecimal(t));
  if (!ok) {
    throw planError(
      `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
    );
  }
}

/** Float32 stays Float32; everything else computes in Float64. */
function floatOf(t: DataType): DataType {
  return t === 'Float32' ? 'Float32' : 'Float64';
}

function roundHalfAway(v: number): number {
  return v < 0 ? -Math.round(-v) : Math.round(v);
}

function unaryFloat(name: string, fn: (v: number) => number): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes): Signature {
      requireNumeric(name, argTypes, [1]);
      const t = floatOf(argTypes[0] as DataType);
      return { argTypes: [t], returnType: t };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, (v) => fn(v as number)),
  };
}

/** Integer division of unscaled decimals rounding toward -∞ (`floor`) or +∞ (`ceil`). */
function divideToward(v: bigint, divisor: bigint, up: boolean): bigint {
  const q = v / divisor;
  const r = v % divisor;
  if (r === 0n) return q;
  return up ? (r > 0n ? q + 1n : q) : r < 0n ? q - 1n : q;
}

/** `ceil`/`floor`: Float64 as before; a decimal keeps its type, refused if the result outgrows it. */
function ceilOrFloor(name: 'ceil' | 'floor', fn: (v: number) => number): ScalarFunction {
  const float = unaryFloat(name, fn);
  return {
    ...float,
    bind(argTypes) {
      const t = argTypes[0] as DataType;
      if (argTypes.length === 1 && decimalPartsOf(t)) return { argTypes: [t], returnType: t };
      return float.bind(argTypes);
    },
    evaluate(args, rowCount, ctx, returnType) {
      const decimal = decimalPartsOf(returnType);
      if (!decimal) return float.evaluate(args, rowCount, ctx, returnType);
      const factor = pow10(decimal.scale);
      const max = pow10(decimal.precision) - 1n;
      return mapRows(args, rowCount, (v) => {
        const out = divideToward(v as bigint, factor, name === 'ceil') * factor;
        if (out > max || out < -max) {
          throw new DbError(ErrorCode.EngineExecuteQuery, `Compute error: Decimal overflow while applying ${name}`);
        }
        return out;
      });
    },
  };
}

const abs: ScalarFunction = {
  kind: 'scalar',
  name: 'abs',
  bind(argTypes) {
    requireNumeric('abs', argTypes, [1]);
    const t = argTypes[0] === 'Null' ? 'Int64' : (argTypes[0] as DataType);
    return { argTypes: [t], returnType: t };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (v): Value => (typeof v === 'bigint' ? (v < 0n ? -v : v) : Math.abs(v as number))),
};

/** `round(decimal, digits)` on the unscaled value: half away from zero, at scale `max(digits, 0)`. */
function roundDecimal(v: bigint, scale: number, digits: number, resultScale: number): bigint {
  if (digits >= scale) return rescaleDecimal(v, scale, resultScale);
  if (digits >= 0) return rescaleDecimal(v, scale, digits);
  // Negative digits round to tens, hundreds, ...: drop `scale - digits` digits, then pad zeros.
  const dropped = scale - digits;
  if (dropped > DECIMAL_PRECISION_MAX + 1) return 0n;
  return rescaleDecimal(v, dropped, 0) * pow10(-digits);
}

const round: ScalarFunction = {
  kind: 'scalar',
  name: 'round',
  bind(argTypes, literals = []) {
    requireNumeric('round', argTypes, [1, 2]);
    const decimal = decimalPartsOf(argTypes[0] as DataType);
    const digits = argTypes.length === 1 ? 0n : literals[1];
    if (decimal && (typeof digits === 'bigint' || digits === null)) {
      const scale = digits === null ? decimal.scale : Math.max(0, Math.min(Number(digits), decimal.scale));
      const precision = Math.min(DECIMAL_PRECISION_MAX, decimal.precision - decimal.scale + scale + 1);
      const args: DataType[] = argTypes.length === 2 ? [argTypes[0] as DataType, 'Int64'] : [argTypes[0] as DataType];
      return { argTypes: args, returnType: decimalTypeOf(precision, scale) };
    }
    const t = floatOf(argTypes[0] as DataType);
    return { argTypes: argTypes.length === 2 ? [t, 'Int64'] : [t], returnType: t };
  },
  evaluate(args, rowCount, _ctx, returnType, argTypes = []) {
    const target = decimalPartsOf(returnType);
    const source = decimalPartsOf(argTypes[0] ?? 'Null');
    if (target && source) {
      return mapRows(args, rowCount, (v, digits) =>
        roundDecimal(v as bigint, source.scale, digits === undefined ? 0 : Number(digits), target.scale),
      );
    }
    return mapRows(args, rowCount, (v, digits) => {
      if (digits === undefined) return roundHalfAway(v as number);
      const scale = 10 ** Number(digits);
      return roundHalfAway((v as number) * scale) / scale;
    });
  },
};

const power: ScalarFunction = {
  kind: 'scalar',
  name: 'power',
  bind(argTypes) {
    requireNumeric('power', argTypes, [2]);
    return { argTypes: ['Float64', 'Float64'], returnType: 'Float64' };
  },
  evaluate: (args, rowCount) => mapRows(args, rowCount, (a, b) => (a as number) ** (b as number)),
};

/** `isnan(x)`: true for NaN (any payload, the stale marker included), false otherwise. */
const isnan: ScalarFunction = {
  kind: 'scalar',
  name: 'isnan',
  bind(argTypes) {
    requireNumeric('isnan', argTypes, [1]);
    return { argTypes: ['Float64'], returnType: 'Boolean' };
  },
  evaluate: (args, rowCount) => mapRows(args, rowCount, (v) => Number.isNaN(v as number)),
};

/** Math functions by SQL name. */
export const MATH_FUNCTIONS: Record<string, ScalarFunction> = {
  abs,
  ceil: ceilOrFloor('ceil', Math.ceil),
  floor: ceilOrFloor('floor', Math.floor),
  trunc: unaryFloat('trunc', Math.trunc),
  round,
  sqrt: unaryFloat('sqrt', Math.sqrt),
  ln: unaryFloat('ln', Math.log),
  log10: unaryFloat('log10', Math.log10),
  log2: unaryFloat('log2', Math.log2),
  exp: unaryFloat('exp', Math.exp),
  isnan,
  power,
  pow: { ...power, name: 'power' },
};
