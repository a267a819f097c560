/**
 * The three spellings of a type: SQL (`TIMESTAMP(3)`, `INT UNSIGNED`), GreptimeDB's logical name
 * (`TimestampMillisecond`, the `DataType`), and Arrow's (`Timestamp(ms)`, `Utf8`), which DataFusion
 * uses in error messages. Also the type predicates the rest of the engine uses.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import {
  type DataType,
  decimalPartsOf,
  decimalTypeOf,
  durationTypeOf,
  durationUnitOf,
  listItemTypeOf,
  listTypeOf,
  type TimeUnit,
  timeOfDayTypeOf,
  timeOfDayUnitOf,
  timestampTypeOf,
  timeUnitOf,
  vectorDimOf,
  vectorTypeOf,
} from '../../../shared/types.js';

/** A SQL type as written: `TIMESTAMP(3)`, `INT UNSIGNED`, `VARCHAR(20)`. `name` is upper case. */
export interface SqlType {
  name: string;
  args: number[];
  unsigned: boolean;
}

/** Largest precision of Decimal128. */
export const DECIMAL_PRECISION_MAX = 38;

/** `DECIMAL` without arguments, as GreptimeDB (and DataFusion) read it. */
const DECIMAL_DEFAULT = { precision: 38, scale: 10 };

const UNIT_BY_PRECISION: Record<number, TimeUnit> = { 0: 's', 3: 'ms', 6: 'us', 9: 'ns' };

/** The decimal type of a precision and scale, refused as DataFusion refuses bad ones. */
export function checkedDecimalType(precision: number, scale: number): DataType {
  if (!(precision > 0 && precision <= DECIMAL_PRECISION_MAX && scale >= 0 && scale <= precision)) {
    throw new DbError(
      ErrorCode.InvalidArguments,
      `Decimal(precision = ${precision}, scale = ${scale}) should satisfy \`0 < precision <= ${DECIMAL_PRECISION_MAX}\`, and \`scale <= precision\`.`,
    );
  }
  return decimalTypeOf(precision, scale);
}

const TIMESTAMP_BY_PRECISION: Record<number, DataType> = {
  0: 'TimestampSecond',
  3: 'TimestampMillisecond',
  6: 'TimestampMicrosecond',
  9: 'TimestampNanosecond',
};

const SIMPLE_TYPES: Record<string, DataType> = {
  TINYINT: 'Int8',
  SMALLINT: 'Int16',
  INT: 'Int32',
  INTEGER: 'Int32',
  MEDIUMINT: 'Int32',
  BIGINT: 'Int64',
  INT8: 'Int8',
  INT16: 'Int16',
  INT32: 'Int32',
  INT64: 'Int64',
  UINT8: 'UInt8',
  UINT16: 'UInt16',
  UINT32: 'UInt32',
  UINT64: 'UInt64',
  FLOAT: 'Float32',
  REAL: 'Float32',
  FLOAT4: 'Float32',
  FLOAT32: 'Float32',
  DOUBLE: 'Float64',
  FLOAT8: 'Float64',
  FLOAT64: 'Float64',
  STRING: 'String',
  TEXT: 'String',
  VARCHAR: 'String',
  CHAR: 'String',
  NVARCHAR: 'String',
  TINYTEXT: 'String',
  MEDIUMTEXT: 'String',
  LONGTEXT: 'String',
  BOOLEAN: 'Boolean',
  BOOL: 'Boolean',
  DATE: 'Date',
  BINARY: 'Binary',
  VARBINARY: 'Binary',
  BLOB: 'Binary',
  BYTEA: 'Binary',
  DATETIME: 'TimestampMicrosecond',
  TIMESTAMPTZ: 'TimestampMillisecond',
  TIMESTAMP_S: 'TimestampSecond',
  TIMESTAMP_SEC: 'TimestampSecond',
  TIMESTAMPSECOND: 'TimestampSecond',
  TIMESTAMP_SECOND: 'TimestampSecond',
  TIMESTAMP_MS: 'TimestampMillisecond',
  TIMESTAMPMILLISECOND: 'TimestampMillisecond',
  TIMESTAMP_MILLISECOND: 'TimestampMillisecond',
  TIMESTAMP_US: 'TimestampMicrosecond',
  TIMESTAMPMICROSECOND: 'TimestampMicrosecond',
  TIMESTAMP_MICROSECOND: 'TimestampMicrosecond',
  TIMESTAMP_NS: 'TimestampNanosecond',
  TIMESTAMPNANOSECOND: 'TimestampNanosecond',
  TIMESTAMP_NANOSECOND: 'TimestampNanosecond',
  JSON: 'Json',
  INTERVAL: 'IntervalMonthDayNano',
};

const UNSIGNED_OF: Partial<Record<DataType, DataType>> = {
  Int8: 'UInt8',
  Int16: 'UInt16',
  Int32: 'UInt32',
  Int64: 'UInt64',
};

/** Maps a SQL type to GreptimeDB's logical type, as `CREATE TABLE` and `CAST` do. */
export function dataTypeOfSql(type: SqlType): DataType {
  let out: DataType | undefined;
  if (type.name === 'TIMESTAMP') {
    const precision = type.args[0] ?? 3;
    out = TIMESTAMP_BY_PRECISION[precision];
    if (!out) throw new DbError(ErrorCode.InvalidArguments, `Invalid timestamp precision: ${precision}`);
  } else if (type.name === 'DECIMAL' || type.name === 'NUMERIC' || type.name === 'DEC') {
    // `DECIMAL(p)` means `DECIMAL(p, 0)`, as in standard SQL.
    out =
      type.args.length === 0
        ? decimalTypeOf(DECIMAL_DEFAULT.precision, DECIMAL_DEFAULT.scale)
        : checkedDecimalType(type.args[0] as number, type.args[1] ?? 0);
  } else if (type.name === 'VECTOR') {
    const dim = type.args[0];
    if (dim === undefined || !(dim > 0)) {
      throw new DbError(
        ErrorCode.InvalidArguments,
        'Invalid Vector: the dimension of VECTOR must be a positive integer',
      );
    }
    out = vectorTypeOf(dim);
  } else if (type.name === 'TIME') {
    // DataFusion reads a bare TIME as nanoseconds (`Time64(ns)`).
    const precision = type.args[0] ?? 9;
    const unit = UNIT_BY_PRECISION[precision];
    if (!unit) throw new DbError(ErrorCode.InvalidArguments, `Invalid time precision: ${precision}`);
    out = timeOfDayTypeOf(unit);
  } else {
    out = SIMPLE_TYPES[type.name];
  }
  if (!out) throw new DbError(ErrorCode.Unsupported, `Unsupported SQL data type: ${type.name}`);
  if (type.unsigned) {
    const u = UNSIGNED_OF[out];
    if (!u) throw new DbError(ErrorCode.Unsupported, `Unsupported SQL data type: ${type.name} UNSIGNED`);
    out = u;
  }
  return out;
}

const SQL_NAMES: Partial<Record<DataType, string>> = {
  Boolean: 'BOOLEAN',
  Int8: 'TINYINT',
  Int16: 'SMALLINT',
  Int32: 'INT',
  Int64: 'BIGINT',
  UInt8: 'TINYINT UNSIGNED',
  UInt16: 'SMALLINT UNSIGNED',
  UInt32: 'INT UNSIGNED',
  UInt64: 'BIGINT UNSIGNED',
  Float32: 'FLOAT',
  Float64: 'DOUBLE',
  String: 'STRING',
  Binary: 'VARBINARY',
  Date: 'DATE',
  TimestampSecond: 'TIMESTAMP(0)',
  TimestampMillisecond: 'TIMESTAMP(3)',
  TimestampMicrosecond: 'TIMESTAMP(6)',
  TimestampNanosecond: 'TIMESTAMP(9)',
  TimeSecond: 'TIME(0)',
  TimeMillisecond: 'TIME(3)',
  TimeMicrosecond: 'TIME(6)',
  TimeNanosecond: 'TIME(9)',
  IntervalMonthDayNano: 'INTERVAL',
  Json: 'JSON',
  Null: 'NULL',
};

/** The SQL spelling GreptimeDB prints in `SHOW CREATE TABLE` (sqlparser's `DECIMAL(10,2)`). */
export function sqlNameOf(type: DataType): string {
  const decimal = decimalPartsOf(type);
  if (decimal) return `DECIMAL(${decimal.precision},${decimal.scale})`;
  const dim = vectorDimOf(type);
  if (dim !== null) return `VECTOR(${dim})`;
  return SQL_NAMES[type] ?? type;
}

const ARROW_UNIT: Record<TimeUnit, string> = { s: 's', ms: 'ms', us: 'µs', ns: 'ns' };

/**
 * Arrow's name of a type (`Int64`, `Utf8`, `Timestamp(ms)`, `Date32`, `Decimal128(10, 2)`), used in
 * DataFusion errors and by `arrow_typeof`.
 */
export function arrowNameOf(type: DataType): string {
  const unit = timeUnitOf(type);
  if (unit) return `Timestamp(${ARROW_UNIT[unit]})`;
  const timeUnit = timeOfDayUnitOf(type);
  if (timeUnit) return `${timeUnit === 's' || timeUnit === 'ms' ? 'Time32' : 'Time64'}(${ARROW_UNIT[timeUnit]})`;
  const durationUnit = durationUnitOf(type);
  if (durationUnit) return `Duration(${ARROW_UNIT[durationUnit]})`;
  const decimal = decimalPartsOf(type);
  if (decimal) return `Decimal128(${decimal.precision}, ${decimal.scale})`;
  const item = listItemTypeOf(type);
  if (item) return `List(${arrowNameOf(item)})`;
  if (vectorDimOf(type) !== null) return 'Binary';
  switch (type) {
    case 'String':
      return 'Utf8';
    case 'Date':
      return 'Date32';
    case 'IntervalMonthDayNano':
      return 'Interval(MonthDayNano)';
    // GreptimeDB keeps JSON as JSONB bytes, which DataFusion sees as binary.
    case 'Json':
      return 'Binary';
    case 'Null':
      return 'Null';
    default:
      return type;
  }
}

const ARROW_UNIT_NAMES: Record<string, TimeUnit> = {
  s: 's',
  second: 's',
  ms: 'ms',
  millisecond: 'ms',
  µs: 'us',
  us: 'us',
  microsecond: 'us',
  ns: 'ns',
  nanosecond: 'ns',
};

const ARROW_SIMPLE: Record<string, DataType> = {
  null: 'Null',
  boolean: 'Boolean',
  int8: 'Int8',
  int16: 'Int16',
  int32: 'Int32',
  int64: 'Int64',
  uint8: 'UInt8',
  uint16: 'UInt16',
  uint32: 'UInt32',
  uint64: 'UInt64',
  float32: 'Float32',
  float64: 'Float64',
  utf8: 'String',
  largeutf8: 'String',
  utf8view: 'String',
  binary: 'Binary',
  largebinary: 'Binary',
  date32: 'Date',
  'interval(monthdaynano)': 'IntervalMonthDayNano',
};

/**
 * The type an Arrow type name spells (`Int64`, `Utf8`, `Timestamp(Millisecond, None)`,
 * `Timestamp(ms)`, `Decimal128(10, 2)`, `Time64(ns)`, `Duration(ms)`).
 */
export function dataTypeOfArrowName(name: string): DataType {
  const text = name.trim();
  const simple = ARROW_SIMPLE[text.toLowerCase()];
  if (simple) return simple;
  const m = /^(Timestamp|Time32|Time64|Duration)\(\s*([A-Za-zµ]+)\s*(?:,\s*None\s*)?\)$/.exec(text);
  const unit = m ? ARROW_UNIT_NAMES[(m[2] as string).toLowerCase()] : undefined;
  if (m && unit) {
    if (m[1] === 'Timestamp') return timestampTypeOf(unit);
    if (m[1] === 'Duration') return durationTypeOf(unit);
    if ((m[1] === 'Time32') === (unit === 's' || unit === 'ms')) return timeOfDayTypeOf(unit);
  }
  const d = /^Decimal128\(\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(text);
  if (d) return checkedDecimalType(Number(d[1]), Number(d[2]));
  throw new DbError(ErrorCode.EngineExecuteQuery, `Error during planning: Unsupported type '${name}'`);
}

/** Int8..Int64. */
export function isSignedInteger(t: DataType): boolean {
  return t === 'Int8' || t === 'Int16' || t === 'Int32' || t === 'Int64';
}

/** UInt8..UInt64. */
export function isUnsignedInteger(t: DataType): boolean {
  return t === 'UInt8' || t === 'UInt16' || t === 'UInt32' || t === 'UInt64';
}

/** Any integer type. */
export function isInteger(t: DataType): boolean {
  return isSignedInteger(t) || isUnsignedInteger(t);
}

/** Float32 or Float64. */
export function isFloat(t: DataType): boolean {
  return t === 'Float32' || t === 'Float64';
}

/** Integers and floats. */
export function isNumeric(t: DataType): boolean {
  return isInteger(t) || isFloat(t);
}

/** Any Timestamp type. */
export function isTimestamp(t: DataType): boolean {
  return timeUnitOf(t) !== null;
}

/** String. */
export function isStringType(t: DataType): boolean {
  return t === 'String';
}

/** Bit width of an integer type. */
export function integerBits(t: DataType): number {
  switch (t) {
    case 'Int8':
    case 'UInt8':
      return 8;
    case 'Int16':
    case 'UInt16':
      return 16;
    case 'Int32':
    case 'UInt32':
      return 32;
    default:
      return 64;
  }
}

/** Any Decimal128 type. */
export function isDecimal(t: DataType): boolean {
  return decimalPartsOf(t) !== null;
}

/** Integers, floats and decimals: what arithmetic accepts. */
export function isNumericOrDecimal(t: DataType): boolean {
  return isNumeric(t) || isDecimal(t);
}

/** Any Time (time of day) type. */
export function isTimeOfDay(t: DataType): boolean {
  return timeOfDayUnitOf(t) !== null;
}

/** Any Duration type. */
export function isDuration(t: DataType): boolean {
  return durationUnitOf(t) !== null;
}

/** Any List type. */
export function isList(t: DataType): boolean {
  return listItemTypeOf(t) !== null;
}

/** The list type of items of `item`, re-exported for callers of this module. */
export { listItemTypeOf, listTypeOf };

/**
 * True when values of this type are held as JS bigint: Int64, UInt64, timestamps, times of day,
 * durations, decimals (the unscaled integer) and intervals (packed, see interval.ts).
 */
export function isBigIntType(t: DataType): boolean {
  return (
    t === 'Int64' ||
    t === 'UInt64' ||
    t === 'IntervalMonthDayNano' ||
    isTimestamp(t) ||
    isTimeOfDay(t) ||
    isDuration(t) ||
    isDecimal(t)
  );
}
