/**
 * The value model of query execution. A value is `null`, `boolean`, `number` (every type of
 * physical kind f64: Float32/64, Int8..Int32, UInt8..UInt32, Date as days), `bigint` (Int64,
 * UInt64, every Timestamp type as a count of its unit, Time as a count since midnight, Duration,
 * Decimal as its unscaled integer, IntervalMonthDayNano packed, see interval.ts), `string`
 * (String; Binary as latin1; Json as canonical text, see src/shared/json-value.ts) or an array (List).
 * These are exactly the row values `StatementResult` hands to the router's output formats.
 *
 * Casting follows Arrow's (DataFusion's) rules and error texts, since those are what GreptimeDB
 * shows; the exceptions GreptimeDB adds at INSERT time live in insert-values.ts.
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { jsonValueOfText } from '../../../shared/json-value.js';
import { ryuFloat, ryuFloat32 } from '../../../shared/ryu.js';
import {
  type DataType,
  decimalPartsOf,
  durationUnitOf,
  isBinaryLike,
  listItemTypeOf,
  NANOS_PER_UNIT,
  timeOfDayUnitOf,
  timeUnitOf,
  vectorDimOf,
} from '../../../shared/types.js';
import {
  castDecimalToDecimal,
  decimalToFloat,
  decimalToInteger,
  floatToDecimal,
  integerToDecimal,
  parseDecimalText,
} from './decimal.js';
import { displayValue, timestampText } from './display.js';
import { packInterval, parseInterval, unpackInterval } from './interval.js';
import { convertTimeOfDay, parseTimeOfDay, timeOfDayOfTimestamp } from './time-of-day.js';
import { convertTimeUnit, formatDate, nanosToUnitFloor, parseDateDays, parseTimestampNanos } from './timestamps.js';
import {
  arrowNameOf,
  integerBits,
  isBigIntType,
  isFloat,
  isInteger,
  isSignedInteger,
  isTimestamp,
} from './type-names.js';
import type { Value } from './value.js';
import { vectorCellOfBinary, vectorCellOfText } from './vector-value.js';

export type { Value };

const NANOS_PER_DAY = 86_400_000_000_000n;

/** Total order used by ORDER BY, MIN/MAX and comparisons: NaN sorts above every number. */
export function compareValues(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a === b) return 0;
    const an = Number.isNaN(a);
    const bn = Number.isNaN(b);
    return an === bn ? 0 : an ? 1 : -1;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) return compareLists(a, b);
  // Same-typed strings or bigints (a number meets a bigint only through mixed literals; JS
  // compares those numerically, which is what SQL means).
  const x = a as string | bigint | number;
  const y = b as string | bigint | number;
  if (x < y) return -1;
  if (x > y) return 1;
  return 0;
}

/** Lists compare item by item (NULL items first), then by length. */
function compareLists(a: Value[], b: Value[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as Value;
    const y = b[i] as Value;
    if (x === null || y === null) {
      if (x !== y) return x === null ? -1 : 1;
      continue;
    }
    const c = compareValues(x, y);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** A string that identifies a value for grouping and DISTINCT (1 and 1n never meet: one type per column). */
export function valueKey(v: Value): string {
  if (Array.isArray(v)) return `l${v.length}[${v.map(valueKey).join('\u0001')}]`;
  switch (typeof v) {
    case 'string':
      return `s${v.length}:${v}`;
    case 'number':
      return `f${v}`;
    case 'bigint':
      return `i${v}`;
    case 'boolean':
      return v ? 'T' : 'F';
    default:
      return 'N';
  }
}

/**
 * `-v` of a constant: intervals negate each part, everything else negates the number (constants
 * are not wrapped: `-(9223372036854775808)` keeps its exact value until a cast checks it).
 */
export function negateValue(v: Value, type: DataType): Value {
  if (v === null) return null;
  if (type === 'IntervalMonthDayNano') {
    const i = unpackInterval(v as bigint);
    return packInterval({ months: -i.months, days: -i.days, nanos: -i.nanos });
  }
  return typeof v === 'bigint' ? -v : -(v as number);
}

/** Wraps an integer result into its type's range the way Rust's wrapping arithmetic does. */
export function wrapInteger(type: DataType, v: number): number {
  switch (type) {
    case 'Int8':
      return (v << 24) >> 24;
    case 'Int16':
      return (v << 16) >> 16;
    case 'Int32':
      return v | 0;
    case 'UInt8':
      return v & 0xff;
    case 'UInt16':
      return v & 0xffff;
    case 'UInt32':
      return v >>> 0;
    default:
      return v;
  }
}

/** Wraps a 64-bit result into Int64 or UInt64 range. */
export function wrapBigInt(type: DataType, v: bigint): bigint {
  return type === 'UInt64' ? BigInt.asUintN(64, v) : BigInt.asIntN(64, v);
}

function integerRange(type: DataType): [bigint, bigint] {
  const bits = BigInt(integerBits(type));
  if (isSignedInteger(type)) return [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
  return [0n, (1n << bits) - 1n];
}

/** Arrow's text of a float: `1.0`, `0.5`, `1e100`, `inf`, `NaN`. */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (Number.isInteger(v) && Math.abs(v) < 1e16) return `${v}.0`;
  return String(v).replace('e+', 'e');
}

/** Rust's `Display` of an f64 (no exponent, shortest digits): used in DataFusion column names. */
export function rustFloatDisplay(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  // JS prints integers below 1e21 with their shortest digits and zeros, as Rust does.
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return String(v);
  const s = String(v);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const digits = (m[2] ?? '') + (m[3] ?? '');
  const exponent = Number(m[4]) - (m[3] ?? '').length;
  if (exponent >= 0) return `${m[1]}${digits}${'0'.repeat(exponent)}`;
  const point = digits.length + exponent;
  if (point > 0) return `${m[1]}${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${m[1]}0.${'0'.repeat(-point)}${digits}`;
}

/** The text a value casts to (`CAST(x AS STRING)`). */
export function valueToText(v: Value, type: DataType): string | null {
  if (v === null) return null;
  const unit = timeUnitOf(type);
  if (unit) return timestampText(v as bigint, unit);
  if (type === 'Date') return formatDate(v as number);
  if (type === 'Float32') return ryuFloat32(v as number);
  if (isFloat(type)) return ryuFloat(v as number);
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return String(v);
  return displayValue(v, type);
}

function castError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Cast error: ${message}`);
}

function parseIntegerText(text: string, to: DataType): bigint {
  if (!/^[+-]?\d+$/.test(text)) throw castError(`Cannot cast string '${text}' to value of ${arrowNameOf(to)} type`);
  return BigInt(text);
}

const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

function parseFloatText(text: string, to: DataType): number {
  if (!FLOAT_TEXT.test(text)) throw castError(`Cannot cast string '${text}' to value of ${arrowNameOf(to)} type`);
  const lower = text.toLowerCase().replace(/^\+/, '');
  if (lower.endsWith('inf') || lower.endsWith('infinity')) return lower.startsWith('-') ? -Infinity : Infinity;
  if (lower.endsWith('nan')) return Number.NaN;
  return Number(text);
}

function toIntegerType(n: bigint, to: DataType, shown: string): Value {
  const [min, max] = integerRange(to);
  if (n < min || n > max) throw castError(`Can't cast value ${shown} to type ${arrowNameOf(to)}`);
  return isBigIntType(to) ? n : Number(n);
}

/** Parses timestamp text for a cast: zone-less text is UTC (DataFusion casts ignore the session zone). */
export function parseTimestampForCast(text: string, to: DataType): bigint {
  const unit = timeUnitOf(to) ?? 'ms';
  const nanos = parseTimestampNanos(text, 'UTC');
  if (nanos === null) throw new DbError(ErrorCode.EngineExecuteQuery, `Parser error: ${timestampParseProblem(text)}`);
  return nanosToUnitFloor(nanos, unit);
}

/** Arrow's explanation of why text is not a timestamp. */
function timestampParseProblem(text: string): string {
  const prefix = `Error parsing timestamp from '${text}'`;
  const date = /^\d{4}-\d{1,2}-\d{1,2}/.exec(text);
  if (!date) return `${prefix}: error parsing date`;
  const rest = text.slice(date[0].length);
  if (rest.length > 0 && !/^[Tt ]/.test(rest)) return `${prefix}: invalid timestamp separator`;
  const time = /^[Tt ]\s*\d{1,2}:\d{1,2}(?::\d{1,2}(?:\.\d+)?)?/.exec(rest);
  if (!time) return rest.length > 0 ? `${prefix}: error parsing time` : `${prefix}: error parsing date`;
  const zone = rest.slice(time[0].length).trim();
  if (zone.length > 0) return `Invalid timezone "${zone}": failed to parse timezone`;
  return `${prefix}: error parsing date`;
}

/** Casts one value between logical types (Arrow semantics). Throws a DbError when it cannot. */
export function castValue(v: Value, from: DataType, to: DataType): Value {
  if (v === null || from === to) return v;
  const dim = vectorDimOf(to);
  if (dim !== null) {
    if (from === 'String') return vectorCellOfText(v as string, dim);
    if (isBinaryLike(from)) return vectorCellOfBinary(v as string, dim);
    throw new DbError(ErrorCode.InvalidArguments, `Invalid Vector: cannot convert ${from} to Vector(${dim})`);
  }
  if (to === 'String' || to === 'Binary') {
    if (isBinaryLike(from) || from === 'String' || from === 'Json') return v;
    return valueToText(v, from);
  }
  if (decimalPartsOf(to)) return castToDecimal(v, from, to);
  if (decimalPartsOf(from)) return castFromDecimal(v as bigint, from, to);
  const special = castTemporalOrJson(v, from, to);
  if (special !== undefined) return special;
  if (to === 'Boolean') {
    if (typeof v === 'string') {
      const lower = v.trim().toLowerCase();
      if (['true', 't', 'yes', 'y', 'on', '1'].includes(lower)) return true;
      if (['false', 'f', 'no', 'n', 'off', '0'].includes(lower)) return false;
      throw castError(`Cannot cast value '${v}' to value of Boolean type`);
    }
    if (typeof v === 'number') return v !== 0;
    if (typeof v === 'bigint') return v !== 0n;
    return v;
  }
  if (Array.isArray(v)) throw unsupportedCast(from, to);
  const toUnit = timeUnitOf(to);
  if (isInteger(to)) {
    if (typeof v === 'string') return toIntegerType(parseIntegerText(v, to), to, v);
    if (typeof v === 'boolean') return isBigIntType(to) ? BigInt(v ? 1 : 0) : v ? 1 : 0;
    if (typeof v === 'bigint') return toIntegerType(v, to, String(v));
    if (!Number.isFinite(v)) throw castError(`Can't cast value ${formatFloat(v)} to type ${arrowNameOf(to)}`);
    return toIntegerType(BigInt(Math.trunc(v)), to, rustFloatDisplay(v));
  }
  if (isFloat(to)) {
    let n: number;
    if (typeof v === 'string') n = parseFloatText(v, to);
    else if (typeof v === 'boolean') n = v ? 1 : 0;
    else n = Number(v);
    return to === 'Float32' ? Math.fround(n) : n;
  }
  if (toUnit) {
    const fromUnit = timeUnitOf(from);
    if (fromUnit) return convertTimeUnit(v as bigint, fromUnit, toUnit);
    if (typeof v === 'string') return parseTimestampForCast(v, to);
    if (from === 'Date') return (BigInt(v as number) * NANOS_PER_DAY) / NANOS_PER_UNIT[toUnit];
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number') return BigInt(Math.trunc(v));
    throw castError(`Unsupported cast from ${arrowNameOf(from)} to ${arrowNameOf(to)}`);
  }
  if (to === 'Date') {
    const fromUnit = timeUnitOf(from);
    if (fromUnit) return Number(floorDiv((v as bigint) * NANOS_PER_UNIT[fromUnit], NANOS_PER_DAY));
    if (typeof v === 'string') {
      const days = parseDateDays(v);
      if (days === null) throw castError(`Cannot cast string '${v}' to value of Date32 type`);
      return days;
    }
    if (typeof v === 'number') return Math.trunc(v);
    if (typeof v === 'bigint') return Number(v);
  }
  if (to === 'Null') return null;
  throw castError(`Unsupported cast from ${arrowNameOf(from)} to ${arrowNameOf(to)}`);
}

function unsupportedCast(from: DataType, to: DataType): DbError {
  return castError(`Unsupported cast from ${arrowNameOf(from)} to ${arrowNameOf(to)}`);
}

/** Rust's debug text of a float of `type`, as Arrow's overflow errors show it. */
function floatShown(v: number, type: DataType): string {
  return type === 'Float32' ? ryuFloat32(v) : ryuFloat(v);
}

function castToDecimal(v: Value, from: DataType, to: DataType): Value {
  if (decimalPartsOf(from)) return castDecimalToDecimal(v as bigint, from, to);
  if (typeof v === 'string') return parseDecimalText(v, to);
  if (typeof v === 'boolean') return integerToDecimal(v ? 1n : 0n, to);
  if (isInteger(from)) return integerToDecimal(BigInt(v as number | bigint), to);
  if (isFloat(from)) return floatToDecimal(v as number, to, floatShown(v as number, from));
  throw unsupportedCast(from, to);
}

function castFromDecimal(v: bigint, from: DataType, to: DataType): Value {
  if (isInteger(to)) {
    const n = decimalToInteger(v, from, to);
    return isBigIntType(to) ? n : Number(n);
  }
  if (isFloat(to)) {
    const f = decimalToFloat(v, from);
    return to === 'Float32' ? Math.fround(f) : f;
  }
  if (to === 'Boolean') return v !== 0n;
  if (to === 'Null') return null;
  throw unsupportedCast(from, to);
}

/**
 * Casts into or out of TIME, Duration, Interval, Json and List types; undefined when neither side
 * is one of them (the caller's general rules apply).
 */
function castTemporalOrJson(v: Value, from: DataType, to: DataType): Value | undefined {
  const toTime = timeOfDayUnitOf(to);
  if (toTime) {
    const fromTime = timeOfDayUnitOf(from);
    if (fromTime) return convertTimeOfDay(v as bigint, fromTime, toTime);
    const fromTimestamp = timeUnitOf(from);
    if (fromTimestamp) return timeOfDayOfTimestamp(v as bigint, fromTimestamp, toTime);
    if (typeof v === 'string') return parseTimeOfDay(v, to, toTime);
    if (isInteger(from)) return BigInt(v as number | bigint);
    throw unsupportedCast(from, to);
  }
  const toDuration = durationUnitOf(to);
  if (toDuration) {
    const fromDuration = durationUnitOf(from);
    if (fromDuration) return floorDiv((v as bigint) * NANOS_PER_UNIT[fromDuration], NANOS_PER_UNIT[toDuration]);
    if (isInteger(from)) return BigInt(v as number | bigint);
    throw unsupportedCast(from, to);
  }
  if (to === 'IntervalMonthDayNano') {
    if (typeof v === 'string') return packInterval(parseInterval(v));
    throw unsupportedCast(from, to);
  }
  if (to === 'Json') {
    if (typeof v === 'string') return jsonValueOfText(v);
    throw unsupportedCast(from, to);
  }
  if (listItemTypeOf(to)) throw unsupportedCast(from, to);
  if (timeOfDayUnitOf(from) || durationUnitOf(from)) {
    // A time of day or a duration reads as its count of the unit.
    if (isInteger(to)) return isBigIntType(to) ? (v as bigint) : Number(v as bigint);
    throw unsupportedCast(from, to);
  }
  if (from === 'IntervalMonthDayNano' || from === 'Json' || listItemTypeOf(from)) {
    if (to === 'Null') return null;
    throw unsupportedCast(from, to);
  }
  return undefined;
}

/** True when a cast between these types can ever succeed (checked at plan time). */
export function canCast(from: DataType, to: DataType): boolean {
  if (from === to || from === 'Null') return true;
  if (to === 'Null') return false;
  if (listItemTypeOf(from) || listItemTypeOf(to)) return to === 'String' && listItemTypeOf(from) !== null;
  if (from === 'Boolean' && isTimestamp(to)) return false;
  if (isTimestamp(from) && to === 'Boolean') return false;
  return true;
}
