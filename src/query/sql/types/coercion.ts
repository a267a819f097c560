/**
 * Type coercion: which common type two operands are brought to before an operator runs. These are
 * DataFusion's rules in miniature (its planner is what GreptimeDB runs), including the wording of
 * its plan errors.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import {
  type DataType,
  durationTypeOf,
  durationUnitOf,
  type TimeUnit,
  timeOfDayUnitOf,
  timestampTypeOf,
  timeUnitOf,
} from '../../../shared/types.js';
import { decimalOfInteger, decimalResultType, widerDecimalType } from './decimal.js';
import type { ArithmeticOperator } from './operators.js';
import {
  arrowNameOf,
  integerBits,
  isDecimal,
  isDuration,
  isFloat,
  isInteger,
  isNumeric,
  isNumericOrDecimal,
  isSignedInteger,
  isTimeOfDay,
  isTimestamp,
  isUnsignedInteger,
} from './type-names.js';

/** A DataFusion planning error as GreptimeDB reports it (code 3000). */
export function planError(message: string): DbError {
  return new DbError(ErrorCode.PlanQuery, `Failed to plan SQL: Error during planning: ${message}`);
}

const SIGNED_BY_BITS: Record<number, DataType> = { 8: 'Int8', 16: 'Int16', 32: 'Int32', 64: 'Int64' };
const UNSIGNED_BY_BITS: Record<number, DataType> = { 8: 'UInt8', 16: 'UInt16', 32: 'UInt32', 64: 'UInt64' };

/** The smallest integer type holding both (UInt64 with a signed type falls back to Int64). */
export function commonIntegerType(a: DataType, b: DataType): DataType {
  const ab = integerBits(a);
  const bb = integerBits(b);
  if (isSignedInteger(a) === isSignedInteger(b)) {
    const bits = Math.max(ab, bb);
    return (isSignedInteger(a) ? SIGNED_BY_BITS[bits] : UNSIGNED_BY_BITS[bits]) as DataType;
  }
  const signedBits = isSignedInteger(a) ? ab : bb;
  const unsignedBits = isUnsignedInteger(a) ? ab : bb;
  const bits = unsignedBits < signedBits ? signedBits : Math.min(64, unsignedBits * 2);
  return SIGNED_BY_BITS[bits] as DataType;
}

/** Common type of two numeric types. */
export function commonNumericType(a: DataType, b: DataType): DataType {
  if (isFloat(a) || isFloat(b)) return a === 'Float64' || b === 'Float64' ? 'Float64' : 'Float32';
  return commonIntegerType(a, b);
}

const UNIT_ORDER: TimeUnit[] = ['s', 'ms', 'us', 'ns'];

/** The finer of two time units. */
function finerUnit(a: TimeUnit, b: TimeUnit): TimeUnit {
  return UNIT_ORDER.indexOf(a) >= UNIT_ORDER.indexOf(b) ? a : b;
}

/** Finer of two timestamp types. */
function finerTimestamp(a: DataType, b: DataType): DataType {
  return timestampTypeOf(finerUnit(timeUnitOf(a) ?? 's', timeUnitOf(b) ?? 's'));
}

/**
 * The types an arithmetic operator sees: each operand is cast to its `left`/`right` type (the
 * same type except for decimals, whose scales stay their own) and the result has type `result`.
 */
export interface ArithmeticTypes {
  left: DataType;
  right: DataType;
  result: DataType;
}

function same(t: DataType, result: DataType = t): ArithmeticTypes {
  return { left: t, right: t, result };
}

/** Timestamp, duration and interval arithmetic; null when neither side is temporal. */
function temporalArithmeticTypes(
  op: ArithmeticOperator,
  l: DataType,
  r: DataType,
  shown: string,
): ArithmeticTypes | null {
  const additive = op === '+' || op === '-';
  const lt = timeUnitOf(l);
  const rt = timeUnitOf(r);
  const ld = durationUnitOf(l);
  const rd = durationUnitOf(r);
  if (lt && rt) {
    if (op === '-') {
      const unit = finerUnit(lt, rt);
      return same(timestampTypeOf(unit), durationTypeOf(unit));
    }
    throw planError(
      `Cannot get result type for temporal operation ${shown}: Invalid argument error: Invalid timestamp arithmetic operation: ${shown}`,
    );
  }
  if (additive && ((lt && rd) || (ld && rt && op === '+'))) {
    const unit = finerUnit((lt ?? ld) as TimeUnit, (rt ?? rd) as TimeUnit);
    const ts = timestampTypeOf(unit);
    const duration = durationTypeOf(unit);
    return lt ? { left: ts, right: duration, result: ts } : { left: duration, right: ts, result: ts };
  }
  if (ld && rd && additive) return same(durationTypeOf(finerUnit(ld, rd)));
  const li = l === 'IntervalMonthDayNano';
  const ri = r === 'IntervalMonthDayNano';
  if (li && ri && additive) return same('IntervalMonthDayNano');
  if (li || ri) {
    throw planError(
      `Cannot get result type for temporal operation ${shown}: Invalid argument error: Invalid interval arithmetic operation: Interval(MonthDayNano) ${op} Interval(MonthDayNano)`,
    );
  }
  if (lt || rt || ld || rd || isTimeOfDay(l) || isTimeOfDay(r)) {
    throw planError(`Cannot coerce arithmetic expression ${shown} to valid types`);
  }
  return null;
}

/**
 * Decimal arithmetic: an integer operand widens to a decimal (Int64 → Decimal128(20, 0)), a float
 * operand turns the whole operation into Float64. Null when neither side is a decimal.
 */
function decimalArithmeticTypes(
  op: ArithmeticOperator,
  l: DataType,
  r: DataType,
  shown: string,
): ArithmeticTypes | null {
  if (!(isDecimal(l) || isDecimal(r)) || !isNumericOrDecimal(l) || !isNumericOrDecimal(r)) return null;
  if (!['+', '-', '*', '/', '%'].includes(op)) return null;
  if (isFloat(l) || isFloat(r)) return same('Float64');
  const left = isDecimal(l) ? l : decimalOfInteger(l);
  const right = isDecimal(r) ? r : decimalOfInteger(r);
  try {
    return { left, right, result: decimalResultType(op, left, right) };
  } catch (err) {
    if (err instanceof DbError)
      throw planError(`Cannot get result type for decimal operation ${shown}: ${err.message}`);
    throw err;
  }
}

/**
 * The operand types and result type of an arithmetic operator. Throws DataFusion's plan errors
 * for operand types that do not combine.
 */
export function arithmeticTypes(op: ArithmeticOperator, left: DataType, right: DataType): ArithmeticTypes {
  if (op === '||') return same('String');
  if (left === 'Null' && right === 'Null') return same('Int64');
  const l = left === 'Null' ? right : left;
  const r = right === 'Null' ? left : right;
  const shown = `${arrowNameOf(left)} ${op} ${arrowNameOf(right)}`;
  const temporal = temporalArithmeticTypes(op, l, r, shown);
  if (temporal) return temporal;
  const decimal = decimalArithmeticTypes(op, l, r, shown);
  if (decimal) return decimal;
  if (op === '&' || op === '|' || op === '^') {
    if (isInteger(l) && isInteger(r)) return same(commonIntegerType(l, r));
  } else if (isNumeric(l) && isNumeric(r)) {
    return same(commonNumericType(l, r));
  }
  throw planError(`Cannot coerce arithmetic expression ${shown} to valid types`);
}

/** The common type of a decimal and another numeric type, or null when there is none. */
function decimalComparisonType(left: DataType, right: DataType): DataType | null {
  if (!isNumericOrDecimal(left) || !isNumericOrDecimal(right)) return null;
  if (isFloat(left) || isFloat(right)) return 'Float64';
  const a = isDecimal(left) ? left : decimalOfInteger(left);
  const b = isDecimal(right) ? right : decimalOfInteger(right);
  return widerDecimalType(a, b);
}

/**
 * The type both sides of a comparison are cast to, or null when they cannot be compared.
 * String against number compares as strings (DataFusion); timestamps against text or integers
 * compare as timestamps (the literal forms are rewritten by the binder, as GreptimeDB does).
 */
export function comparisonType(left: DataType, right: DataType): DataType | null {
  if (left === right) return left;
  if (left === 'Null') return right;
  if (right === 'Null') return left;
  if (isNumeric(left) && isNumeric(right)) return commonNumericType(left, right);
  if (isDecimal(left) || isDecimal(right)) {
    const t = decimalComparisonType(left, right);
    if (t) return t;
  }
  if (isTimestamp(left) && isTimestamp(right)) return finerTimestamp(left, right);
  const lt = timeOfDayUnitOf(left);
  const rt = timeOfDayUnitOf(right);
  if (lt && rt) return lt === finerUnit(lt, rt) ? left : right;
  const ld = durationUnitOf(left);
  const rd = durationUnitOf(right);
  if (ld && rd) return durationTypeOf(finerUnit(ld, rd));
  for (const [a, b] of [
    [left, right],
    [right, left],
  ] as const) {
    if (isTimestamp(a) && (b === 'String' || isInteger(b) || b === 'Date')) return a;
    if (a === 'Date' && b === 'String') return 'Date';
    if (a === 'String' && (isNumeric(b) || b === 'Binary')) return 'String';
    if (a === 'Boolean' && b === 'String') return 'Boolean';
    if ((isTimeOfDay(a) || a === 'Json' || a === 'IntervalMonthDayNano' || isDecimal(a)) && b === 'String') return a;
    if (isDuration(a) && isInteger(b)) return a;
  }
  return null;
}

/** The common type of several values (IN lists, CASE branches, COALESCE arguments). */
export function commonType(types: DataType[]): DataType | null {
  let out: DataType = 'Null';
  for (const t of types) {
    const next = comparisonType(out, t);
    if (next === null) return null;
    out = next;
  }
  return out;
}
