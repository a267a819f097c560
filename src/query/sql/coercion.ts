/**
 * Type coercion: which common type two operands are brought to before an operator runs. These are
 * DataFusion's rules in miniature (its planner is what GreptimeDB runs), including the wording of
 * its plan errors.
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import { type DataType, timeUnitOf } from '../../shared/types.js';
import type { ArithmeticOperator } from './plan.js';
import {
  arrowNameOf,
  integerBits,
  isFloat,
  isInteger,
  isNumeric,
  isSignedInteger,
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

/** Finer of two timestamp types. */
function finerTimestamp(a: DataType, b: DataType): DataType {
  const order = ['s', 'ms', 'us', 'ns'];
  return order.indexOf(timeUnitOf(a) ?? 's') >= order.indexOf(timeUnitOf(b) ?? 's') ? a : b;
}

/**
 * The operand type and result type of an arithmetic operator. Throws DataFusion's plan errors for
 * operand types that do not combine.
 */
export function arithmeticTypes(
  op: ArithmeticOperator,
  left: DataType,
  right: DataType,
): { operand: DataType; result: DataType } {
  if (op === '||') return { operand: 'String', result: 'String' };
  if (left === 'Null' && right === 'Null') return { operand: 'Int64', result: 'Int64' };
  const l = left === 'Null' ? right : left;
  const r = right === 'Null' ? left : right;
  if (isTimestamp(l) && isTimestamp(r)) {
    const shown = `${arrowNameOf(left)} ${op} ${arrowNameOf(right)}`;
    if (op === '-')
      throw new DbError(ErrorCode.Unsupported, `This feature is not implemented: Duration results (${shown})`);
    throw planError(
      `Cannot get result type for temporal operation ${shown}: Invalid argument error: Invalid timestamp arithmetic operation: ${shown}`,
    );
  }
  if (op === '&' || op === '|' || op === '^') {
    if (isInteger(l) && isInteger(r)) {
      const t = commonIntegerType(l, r);
      return { operand: t, result: t };
    }
  } else if (isNumeric(l) && isNumeric(r)) {
    const t = commonNumericType(l, r);
    return { operand: t, result: t };
  }
  throw planError(
    `Cannot coerce arithmetic expression ${arrowNameOf(left)} ${op} ${arrowNameOf(right)} to valid types`,
  );
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
  if (isTimestamp(left) && isTimestamp(right)) return finerTimestamp(left, right);
  for (const [a, b] of [
    [left, right],
    [right, left],
  ] as const) {
    if (isTimestamp(a) && (b === 'String' || isInteger(b) || b === 'Date')) return a;
    if (a === 'Date' && b === 'String') return 'Date';
    if (a === 'String' && (isNumeric(b) || b === 'Binary')) return 'String';
    if (a === 'Boolean' && b === 'String') return 'Boolean';
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
