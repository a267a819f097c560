/**
 * How an INSERT value becomes a column value. Literals follow GreptimeDB's own conversion
 * (`sql_value_to_value`): text into a timestamp column is read in the session time zone, numbers
 * into a timestamp column count the column's unit, a number into a string column is an error.
 * Any other expression (`now()`, `1 + 1`, `CAST(...)`) is evaluated and cast with SQL cast rules.
 * Column defaults are SQL texts kept in the catalog and go through the same path.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { jsonValueOfText } from '../../../shared/json-value.js';
import {
  type ColumnSchema,
  type DataType,
  decimalPartsOf,
  durationUnitOf,
  timeOfDayUnitOf,
  timeUnitOf,
  vectorDimOf,
} from '../../../shared/types.js';
import type { EvalContext } from '../functions/types.js';
import type { Expr } from '../parse/ast.js';
import { parseExpression } from '../parse/parser.js';
import { planError } from '../types/coercion.js';
import { parseDecimalText } from '../types/decimal.js';
import { nanosToUnitFloor, parseDateDays, parseTimestampNanos } from '../types/timestamps.js';
import { isNumeric } from '../types/type-names.js';
import { castValue, type Value } from '../types/values.js';
import { vectorCellOfText } from '../types/vector-value.js';
import { Binder } from './binder.js';
import { evaluateConstant } from './eval.js';
import { numberLiteral } from './naming.js';

/** GreptimeDB's debug spelling of a column type, as its value-parse errors print it. */
export function greptimeTypeDebug(type: DataType): string {
  const unit = timeUnitOf(type);
  if (unit) {
    const name = { s: 'Second', ms: 'Millisecond', us: 'Microsecond', ns: 'Nanosecond' }[unit];
    return `Timestamp(${name}(Timestamp${name}Type))`;
  }
  if (type === 'String') return 'String(StringType { size_type: Utf8 })';
  const decimal = decimalPartsOf(type);
  if (decimal) return `Decimal128(Decimal128Type { precision: ${decimal.precision}, scale: ${decimal.scale} })`;
  if (type === 'Json') return 'Json(JsonType { format: Jsonb })';
  return `${type}(${type}Type)`;
}

function parseValueError(detail: string): DbError {
  return new DbError(ErrorCode.InvalidSyntax, `Failed to parse value: ${detail}`);
}

function unnest(expr: Expr): Expr {
  while (expr.kind === 'nested') expr = expr.expr;
  return expr;
}

/** Text read as a timestamp of `type` in the session zone, or GreptimeDB's parse error. */
export function timestampFromText(text: string, type: DataType, timezone: string): bigint {
  const nanos = parseTimestampNanos(text, timezone);
  if (nanos === null) throw parseValueError(`Failed to parse ${text} to Timestamp value`);
  return nanosToUnitFloor(nanos, timeUnitOf(type) ?? 'ms');
}

function numberInto(text: string, column: ColumnSchema): Value {
  const type = column.type;
  const invalid = (): DbError =>
    parseValueError(`Fail to parse number ${text}, invalid column type: ${greptimeTypeDebug(type)}`);
  if (timeUnitOf(type) || timeOfDayUnitOf(type) || durationUnitOf(type)) {
    if (!/^-?\d+$/.test(text)) throw invalid();
    return BigInt(text);
  }
  // The literal's own digits, so a decimal column gets exactly what was written (no float detour).
  if (decimalPartsOf(type)) return decimalFromText(text, type);
  if (!isNumeric(type) && type !== 'Date') throw invalid();
  const lit = numberLiteral(text);
  try {
    return castValue(lit.value, lit.type, type === 'Date' ? 'Int32' : type);
  } catch {
    throw invalid();
  }
}

function textInto(text: string, column: ColumnSchema, timezone: string): Value {
  const type = column.type;
  if (timeUnitOf(type)) return timestampFromText(text, type, timezone);
  if (type === 'String' || type === 'Binary') return text;
  const dim = vectorDimOf(type);
  if (dim !== null) return vectorCellOfText(text, dim);
  if (type === 'Date') {
    const days = parseDateDays(text);
    if (days === null) throw parseValueError(`Failed to parse ${text} to Date value`);
    return days;
  }
  if (type === 'Json') return jsonValueOfText(text);
  if (decimalPartsOf(type)) return decimalFromText(text, type);
  try {
    return castValue(text, 'String', type);
  } catch {
    throw parseValueError(`Failed to parse ${text} to ${type} value`);
  }
}

/**
 * Number text into a decimal column: exact digits, rounded to the scale, checked against the
 * precision. A value too wide for the column is the writer's mistake, hence InvalidArguments.
 */
function decimalFromText(text: string, type: DataType): Value {
  try {
    if (/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(text)) return parseDecimalText(text, type);
    if (/^\s*[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+\s*$/.test(text)) return castValue(Number(text), 'Float64', type);
  } catch (err) {
    if (err instanceof DbError) throw new DbError(ErrorCode.InvalidArguments, err.message);
    throw err;
  }
  throw parseValueError(`Fail to parse number ${text} to Decimal128 value`);
}

/**
 * The value `expr` gives `column`. `DEFAULT` (and a missing value) is resolved by the caller
 * through `defaultValueOf`.
 */
export function insertValueOf(expr: Expr, column: ColumnSchema, ctx: EvalContext): Value {
  const e = unnest(expr);
  switch (e.kind) {
    case 'null':
      return null;
    case 'number':
      return numberInto(e.text, column);
    case 'unary': {
      const inner = unnest(e.expr);
      if (inner.kind === 'number' && e.op !== 'NOT')
        return numberInto(`${e.op === '-' ? '-' : ''}${inner.text}`, column);
      break;
    }
    case 'string':
      return textInto(e.value, column, ctx.timezone);
    case 'identifier':
      // MySQL-style `"text"` in VALUES is a string, as GreptimeDB reads it.
      if (e.parts.length === 1 && e.parts[0]?.quote === '"') return textInto(e.parts[0].value, column, ctx.timezone);
      break;
    case 'boolean':
      if (column.type === 'Boolean') return e.value;
      if (column.type === 'String') throw parseValueError(`Failed to parse ${e.value} to String value`);
      return castValue(e.value, 'Boolean', column.type);
    case 'default':
      throw new Error('DEFAULT must be resolved by the caller');
    default:
      break;
  }
  const bound = new Binder({
    scope: null,
    timezone: ctx.timezone,
    aggregateError: (name) => planError(`Aggregate function ${name} is not allowed in VALUES`),
  }).bind(e);
  const v = evaluateConstant(bound, ctx);
  if (typeof v === 'string' && timeUnitOf(column.type)) return timestampFromText(v, column.type, ctx.timezone);
  return castValue(v, bound.type, column.type);
}

/** The value a column gets when the INSERT gives none (or says DEFAULT). */
export function defaultValueOf(column: ColumnSchema, ctx: EvalContext): Value {
  if (column.defaultSql === undefined) {
    if (column.semantic === 'TIMESTAMP' || !column.nullable) {
      throw new DbError(
        ErrorCode.InvalidArguments,
        `No valid default value can be built automatically, column: ${column.name}`,
      );
    }
    return null;
  }
  return insertValueOf(parseExpression(column.defaultSql), column, ctx);
}
