/**
 * Decimal128 values: a value is the unscaled integer as a bigint (`12.30` in `Decimal(10, 2)` is
 * 1230n) and the type carries precision and scale. Arithmetic is exact on those integers.
 *
 * Result types, rounding and error texts follow Arrow (which DataFusion, hence GreptimeDB, runs):
 * `+`/`-` keep the larger scale, `*` adds scales, `/` adds 4 to the dividend's scale; casts to a
 * smaller scale round half away from zero; a value wider than its precision is refused with
 * `… is too large to store in a Decimal128 of precision p. Max is …`.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, type DecimalParts, decimalPartsOf, decimalTypeOf } from '../../../shared/types.js';
import type { ArithmeticOperator } from './operators.js';
import { arrowNameOf, DECIMAL_PRECISION_MAX, integerBits, isSignedInteger } from './type-names.js';

/** Largest scale Arrow allows for Decimal128. */
const DECIMAL_SCALE_MAX = 38;

const I128_MAX = (1n << 127n) - 1n;
const I128_MIN = -(1n << 127n);

const POWERS: bigint[] = [1n];

/** 10^n as a bigint. */
export function pow10(n: number): bigint {
  while (POWERS.length <= n) POWERS.push((POWERS[POWERS.length - 1] as bigint) * 10n);
  return POWERS[n] as bigint;
}

/** Precision and scale of a type the caller knows is decimal. */
export function decimalParts(type: DataType): DecimalParts {
  const parts = decimalPartsOf(type);
  if (!parts) throw new Error(`${type} is not a decimal type`);
  return parts;
}

function invalidArgument(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Invalid argument error: ${message}`);
}

function castError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Cast error: ${message}`);
}

function overflow(a: bigint, op: string, b: bigint): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Arithmetic overflow: Overflow happened on: ${a} ${op} ${b}`);
}

function checkedI128(v: bigint, a: bigint, op: string, b: bigint): bigint {
  if (v > I128_MAX || v < I128_MIN) throw overflow(a, op, b);
  return v;
}

/** An unscaled value as text with exactly `scale` digits after the point (`-0.10`, `100`). */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString();
  const sign = negative ? '-' : '';
  if (scale <= 0) return `${sign}${digits}${'0'.repeat(-scale)}`;
  if (digits.length > scale) return `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return `${sign}0.${digits.padStart(scale, '0')}`;
}

/** Throws Arrow's error when `unscaled` has more digits than `precision`. */
export function validateDecimalPrecision(unscaled: bigint, precision: number, scale: number): bigint {
  const max = pow10(precision) - 1n;
  if (unscaled > max) {
    throw invalidArgument(
      `${formatDecimal(unscaled, scale)} is too large to store in a Decimal128 of precision ${precision}. Max is ${formatDecimal(max, scale)}`,
    );
  }
  if (unscaled < -max) {
    throw invalidArgument(
      `${formatDecimal(unscaled, scale)} is too small to store in a Decimal128 of precision ${precision}. Min is ${formatDecimal(-max, scale)}`,
    );
  }
  return unscaled;
}

/** Rust's `{:?}` of a string: double quotes, with `"` and `\` escaped. */
function debugString(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * Decimal text (`'-12.345'`, surrounding spaces allowed, no exponent) as an unscaled value of
 * `type`: extra fraction digits round half away from zero, as Arrow's string cast does.
 */
export function parseDecimalText(text: string, type: DataType): bigint {
  const { precision, scale } = decimalParts(type);
  const trimmed = text.trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(trimmed);
  if (!m || ((m[2] ?? '') === '' && (m[3] ?? '') === '')) {
    throw castError(
      `Cannot cast string '${text}' to value of ${arrowNameOf(type)} type: Invalid argument error: Invalid decimal format: ${debugString(trimmed)}`,
    );
  }
  const negative = m[1] === '-';
  const whole = m[2] ?? '';
  const fraction = m[3] ?? '';
  let unscaled = BigInt(`${whole}${fraction.slice(0, scale).padEnd(scale, '0')}` || '0');
  if (fraction.length > scale && Number(fraction[scale]) >= 5) unscaled += 1n;
  if (negative) unscaled = -unscaled;
  if (unscaled > I128_MAX || unscaled < I128_MIN) {
    throw castError(
      `Cannot cast string '${text}' to value of ${arrowNameOf(type)} type: Invalid argument error: Cannot convert ${trimmed} to Decimal128: Overflow`,
    );
  }
  return validateDecimalPrecision(unscaled, precision, scale);
}

/** An unscaled value moved from one scale to another (rounding half away from zero when cut). */
export function rescaleDecimal(unscaled: bigint, fromScale: number, toScale: number): bigint {
  if (toScale === fromScale) return unscaled;
  if (toScale > fromScale) {
    const factor = pow10(toScale - fromScale);
    return checkedI128(unscaled * factor, unscaled, '*', factor);
  }
  const divisor = pow10(fromScale - toScale);
  const quotient = unscaled / divisor;
  const remainder = unscaled % divisor;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  if (twice >= divisor) return unscaled < 0n ? quotient - 1n : quotient + 1n;
  return quotient;
}

/** A decimal of one type as a value of another decimal type. */
export function castDecimalToDecimal(unscaled: bigint, from: DataType, to: DataType): bigint {
  const source = decimalParts(from);
  const target = decimalParts(to);
  return validateDecimalPrecision(rescaleDecimal(unscaled, source.scale, target.scale), target.precision, target.scale);
}

/** An integer as a decimal of `type`. */
export function integerToDecimal(n: bigint, type: DataType): bigint {
  const { precision, scale } = decimalParts(type);
  const factor = pow10(scale);
  return validateDecimalPrecision(checkedI128(n * factor, n, '*', factor), precision, scale);
}

/** A float as a decimal of `type` (`value × 10^scale`, rounded half away from zero). */
export function floatToDecimal(value: number, type: DataType, shown: string): bigint {
  const { precision, scale } = decimalParts(type);
  const scaled = value * 10 ** scale;
  const rounded = scaled < 0 ? -Math.round(-scaled) : Math.round(scaled);
  // i128 holds [-2^127, 2^127); 2^127 itself is exactly representable as a double.
  if (!Number.isFinite(rounded) || rounded >= 2 ** 127 || rounded < -(2 ** 127)) {
    throw castError(`Cannot cast to ${arrowNameOf(type)}. Overflowing on ${shown}`);
  }
  return validateDecimalPrecision(BigInt(rounded), precision, scale);
}

/** A decimal as a float: the unscaled value divided by 10^scale. */
export function decimalToFloat(unscaled: bigint, type: DataType): number {
  return Number(unscaled) / 10 ** decimalParts(type).scale;
}

/** A decimal truncated toward zero to an integer type; refused when out of its range. */
export function decimalToInteger(unscaled: bigint, from: DataType, to: DataType): bigint {
  const n = unscaled / pow10(decimalParts(from).scale);
  const bits = BigInt(integerBits(to));
  const [min, max] = isSignedInteger(to) ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
  if (n < min || n > max) throw castError(`value of ${n} is out of range ${arrowNameOf(to)}`);
  return n;
}

/** The decimal type an integer type widens to when it meets a decimal (DataFusion's choice). */
export function decimalOfInteger(type: DataType): DataType {
  switch (integerBits(type)) {
    case 8:
      return decimalTypeOf(3, 0);
    case 16:
      return decimalTypeOf(5, 0);
    case 32:
      return decimalTypeOf(10, 0);
    default:
      return decimalTypeOf(20, 0);
  }
}

/** The narrowest decimal type holding both: the larger scale and the larger integer part. */
export function widerDecimalType(a: DataType, b: DataType): DataType {
  const x = decimalParts(a);
  const y = decimalParts(b);
  const scale = Math.max(x.scale, y.scale);
  const range = Math.max(x.precision - x.scale, y.precision - y.scale);
  return decimalTypeOf(Math.min(DECIMAL_PRECISION_MAX, range + scale), scale);
}

/**
 * The result type of `left op right` over decimals (Arrow's rules). Throws Arrow's error when a
 * product's scale exceeds 38; the caller words it as DataFusion's plan error.
 */
export function decimalResultType(op: ArithmeticOperator, left: DataType, right: DataType): DataType {
  const { precision: p1, scale: s1 } = decimalParts(left);
  const { precision: p2, scale: s2 } = decimalParts(right);
  switch (op) {
    case '+':
    case '-': {
      const scale = Math.max(s1, s2);
      const precision = Math.min(DECIMAL_PRECISION_MAX, scale + Math.max(p1 - s1, p2 - s2) + 1);
      return decimalTypeOf(precision, scale);
    }
    case '*': {
      const scale = s1 + s2;
      if (scale > DECIMAL_SCALE_MAX) {
        throw new DbError(
          ErrorCode.EngineExecuteQuery,
          `Invalid argument error: Output scale of ${arrowNameOf(left)} ${op} ${arrowNameOf(right)} would exceed max scale of ${DECIMAL_SCALE_MAX}`,
        );
      }
      return decimalTypeOf(Math.min(DECIMAL_PRECISION_MAX, p1 + p2 + 1), scale);
    }
    case '/': {
      const scale = Math.min(DECIMAL_SCALE_MAX, s1 + 4);
      return decimalTypeOf(Math.min(DECIMAL_PRECISION_MAX, scale - s1 + s2 + p1), scale);
    }
    case '%': {
      const scale = Math.max(s1, s2);
      return decimalTypeOf(Math.min(DECIMAL_PRECISION_MAX, scale + Math.min(p1 - s1, p2 - s2)), scale);
    }
    default:
      throw new Error(`operator ${op} is not decimal arithmetic`);
  }
}

function divideByZero(): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, 'Arrow error: Divide by zero error');
}

/** `x op y` on unscaled values of types `left` and `right`, giving a value of `result`. */
export function decimalArithmetic(
  op: ArithmeticOperator,
  x: bigint,
  y: bigint,
  left: DataType,
  right: DataType,
  result: DataType,
): bigint {
  const s1 = decimalParts(left).scale;
  const s2 = decimalParts(right).scale;
  const scale = decimalParts(result).scale;
  switch (op) {
    case '+':
    case '-': {
      const a = rescaleDecimal(x, s1, scale);
      const b = rescaleDecimal(y, s2, scale);
      return op === '+' ? checkedI128(a + b, a, '+', b) : checkedI128(a - b, a, '-', b);
    }
    case '*':
      return checkedI128(x * y, x, '*', y);
    case '/': {
      if (y === 0n) throw divideByZero();
      const shift = scale - s1 + s2;
      const a = shift >= 0 ? checkedI128(x * pow10(shift), x, '*', pow10(shift)) : x;
      const b = shift < 0 ? checkedI128(y * pow10(-shift), y, '*', pow10(-shift)) : y;
      return a / b;
    }
    case '%': {
      if (y === 0n) throw divideByZero();
      return rescaleDecimal(x, s1, scale) % rescaleDecimal(y, s2, scale);
    }
    default:
      throw new Error(`operator ${op} is not decimal arithmetic`);
  }
}
