/**
 * The data model shared by the router (catalog, planning, output) and the shards (storage, scans).
 *
 * Logical types carry GreptimeDB's names because clients see them in result schemas. Storage and
 * execution only care about the physical kind: every logical type maps to exactly one kind.
 */

/** `Decimal128(precision, scale)`, named as GreptimeDB prints it: `Decimal(10, 2)`. */
export type DecimalDataType = `Decimal(${number}, ${number})`;

/** A list of values of one item type (query results only): `List<Int64>`. */
export type ListDataType = `List<${string}>`;

/** GreptimeDB's `VECTOR(dim)`: `dim` Float32 values, held as Binary (little-endian words). */
export type VectorDataType = `Vector(${number})`;

/** GreptimeDB's logical type names, as printed in `column_schemas[].data_type`. */
export type DataType =
  | 'Boolean'
  | 'Int8'
  | 'Int16'
  | 'Int32'
  | 'Int64'
  | 'UInt8'
  | 'UInt16'
  | 'UInt32'
  | 'UInt64'
  | 'Float32'
  | 'Float64'
  | 'String'
  | 'Binary'
  | 'Date'
  | 'TimestampSecond'
  | 'TimestampMillisecond'
  | 'TimestampMicrosecond'
  | 'TimestampNanosecond'
  | 'TimeSecond'
  | 'TimeMillisecond'
  | 'TimeMicrosecond'
  | 'TimeNanosecond'
  | 'DurationSecond'
  | 'DurationMillisecond'
  | 'DurationMicrosecond'
  | 'DurationNanosecond'
  | 'IntervalMonthDayNano'
  | 'Json'
  | DecimalDataType
  | ListDataType
  | VectorDataType
  | 'Null';

/**
 * How a value is held in memory and on disk.
 * - `f64`: Float64Array. Also holds Int8..Int32, UInt8..UInt32, Float32 and Date exactly.
 * - `i64`: BigInt64Array. Int64, every Timestamp* type (count of the type's unit since epoch),
 *   every Time* type (count since midnight), Duration* types, and Decimal with precision ≤ 18
 *   (the unscaled integer: `12.30` in `Decimal(10, 2)` is 1230).
 * - `u64`: BigUint64Array. UInt64.
 * - `bool`: Uint8Array of 0/1.
 * - `str`: Array<string | null>. String; Binary and Vector as latin1 strings of their bytes; Json as its
 *   canonical text; Decimal with precision > 18 as the unscaled integer in decimal digits
 *   (`"-1234"`), because it may not fit 64 bits. Lists and intervals are never stored.
 */
export type PhysicalKind = 'f64' | 'i64' | 'u64' | 'bool' | 'str';

/** Largest decimal precision whose unscaled values always fit in an i64 (10^18 - 1 < 2^63). */
export const DECIMAL_I64_PRECISION_MAX = 18;

export function physicalKindOf(type: DataType): PhysicalKind {
  switch (type) {
    case 'Boolean':
      return 'bool';
    case 'Int64':
    case 'TimestampSecond':
    case 'TimestampMillisecond':
    case 'TimestampMicrosecond':
    case 'TimestampNanosecond':
    case 'TimeSecond':
    case 'TimeMillisecond':
    case 'TimeMicrosecond':
    case 'TimeNanosecond':
    case 'DurationSecond':
    case 'DurationMillisecond':
    case 'DurationMicrosecond':
    case 'DurationNanosecond':
      return 'i64';
    case 'UInt64':
      return 'u64';
    case 'String':
    case 'Binary':
    case 'Json':
    case 'IntervalMonthDayNano':
    case 'Null':
      return 'str';
    default: {
      const decimal = decimalPartsOf(type);
      if (decimal) return decimal.precision <= DECIMAL_I64_PRECISION_MAX ? 'i64' : 'str';
      if (listItemTypeOf(type) || vectorDimOf(type) !== null) return 'str';
      return 'f64';
    }
  }
}

/** Precision and scale of a decimal type. */
export interface DecimalParts {
  precision: number;
  scale: number;
}

const DECIMAL_NAME = /^Decimal\((\d+), (-?\d+)\)$/;

/** The decimal type of this precision and scale. */
export function decimalTypeOf(precision: number, scale: number): DecimalDataType {
  return `Decimal(${precision}, ${scale})`;
}

/** Precision and scale when `type` is a decimal type, else null. */
export function decimalPartsOf(type: DataType): DecimalParts | null {
  if (!type.startsWith('Decimal(')) return null;
  const m = DECIMAL_NAME.exec(type);
  return m ? { precision: Number(m[1]), scale: Number(m[2]) } : null;
}

/** The list type of an item type. */
export function listTypeOf(item: DataType): ListDataType {
  return `List<${item}>`;
}

/** The item type when `type` is a list type, else null. */
export function listItemTypeOf(type: DataType): DataType | null {
  return type.startsWith('List<') && type.endsWith('>') ? (type.slice(5, -1) as DataType) : null;
}

/** The vector type of a dimension. */
export function vectorTypeOf(dim: number): VectorDataType {
  return `Vector(${dim})`;
}

/** The dimension when `type` is a vector type, else null. */
export function vectorDimOf(type: DataType): number | null {
  if (!type.startsWith('Vector(')) return null;
  const dim = Number(type.slice(7, -1));
  return Number.isInteger(dim) ? dim : null;
}

/** Binary or a vector type: values held as latin1 strings of their bytes. */
export function isBinaryLike(type: DataType): boolean {
  return type === 'Binary' || vectorDimOf(type) !== null;
}

export type TimeUnit = 's' | 'ms' | 'us' | 'ns';

export function timestampTypeOf(unit: TimeUnit): DataType {
  switch (unit) {
    case 's':
      return 'TimestampSecond';
    case 'ms':
      return 'TimestampMillisecond';
    case 'us':
      return 'TimestampMicrosecond';
    case 'ns':
      return 'TimestampNanosecond';
  }
}

/** The Time type (time of day) of a unit. */
export function timeOfDayTypeOf(unit: TimeUnit): DataType {
  return TIME_OF_DAY_TYPES[unit];
}

/** The Duration type of a unit. */
export function durationTypeOf(unit: TimeUnit): DataType {
  return DURATION_TYPES[unit];
}

const TIME_OF_DAY_TYPES: Record<TimeUnit, DataType> = {
  s: 'TimeSecond',
  ms: 'TimeMillisecond',
  us: 'TimeMicrosecond',
  ns: 'TimeNanosecond',
};

const DURATION_TYPES: Record<TimeUnit, DataType> = {
  s: 'DurationSecond',
  ms: 'DurationMillisecond',
  us: 'DurationMicrosecond',
  ns: 'DurationNanosecond',
};

/** The unit of a Time (time of day) type, else null. */
export function timeOfDayUnitOf(type: DataType): TimeUnit | null {
  switch (type) {
    case 'TimeSecond':
      return 's';
    case 'TimeMillisecond':
      return 'ms';
    case 'TimeMicrosecond':
      return 'us';
    case 'TimeNanosecond':
      return 'ns';
    default:
      return null;
  }
}

/** The unit of a Duration type, else null. */
export function durationUnitOf(type: DataType): TimeUnit | null {
  switch (type) {
    case 'DurationSecond':
      return 's';
    case 'DurationMillisecond':
      return 'ms';
    case 'DurationMicrosecond':
      return 'us';
    case 'DurationNanosecond':
      return 'ns';
    default:
      return null;
  }
}

/** The unit of a Timestamp type, else null. */
export function timeUnitOf(type: DataType): TimeUnit | null {
  switch (type) {
    case 'TimestampSecond':
      return 's';
    case 'TimestampMillisecond':
      return 'ms';
    case 'TimestampMicrosecond':
      return 'us';
    case 'TimestampNanosecond':
      return 'ns';
    default:
      return null;
  }
}

/** Nanoseconds in one unit, as a BigInt for exact scaling. */
export const NANOS_PER_UNIT: Record<TimeUnit, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

export type ValuesOf<K extends PhysicalKind> = K extends 'f64'
  ? Float64Array
  : K extends 'i64'
    ? BigInt64Array
    : K extends 'u64'
      ? BigUint64Array
      : K extends 'bool'
        ? Uint8Array
        : Array<string | null>;

/**
 * A column of values of one physical kind. `valid[i] === 0` means row i is NULL; `valid` is
 * undefined when no row is NULL. For `str`, a null entry in `values` also means NULL.
 */
export interface Vector<K extends PhysicalKind = PhysicalKind> {
  kind: K;
  values: ValuesOf<K>;
  valid?: Uint8Array | undefined;
}

/** The role a column plays, as GreptimeDB's DESCRIBE shows it. */
export type SemanticType = 'TAG' | 'FIELD' | 'TIMESTAMP';

export interface ColumnSchema {
  /** Stable id inside its table: storage keys columns by id, so renames and drop+re-add are safe. */
  id: number;
  name: string;
  type: DataType;
  semantic: SemanticType;
  nullable: boolean;
  /** SQL text of the default expression, as written in CREATE TABLE; absent when none. */
  defaultSql?: string | undefined;
  /**
   * Types the column had before `ALTER TABLE ... MODIFY COLUMN` changed its physical kind, one per
   * kind: storage still holds the older rows under (id, that kind), and reads cast them.
   */
  priorTypes?: DataType[] | undefined;
  /** A secondary index segments build for this column (see docs/storage.md, Indexes). */
  index?: ColumnIndex | undefined;
}

/**
 * A column's index as GreptimeDB declares it: `FULLTEXT INDEX`, `INVERTED INDEX` or `SKIPPING
 * INDEX`, with its `WITH(...)` options spelled as SHOW CREATE TABLE prints them.
 */
export interface ColumnIndex {
  kind: 'fulltext' | 'inverted' | 'skipping';
  options: Record<string, string>;
}

export interface TableSchema {
  /** Unique for the life of the data directory; never reused, so a re-created table starts empty. */
  id: number;
  db: string;
  name: string;
  columns: ColumnSchema[];
  /** Name of the TIME INDEX column. */
  timeIndex: string;
  /** Names of the PRIMARY KEY (tag) columns in key order. */
  primaryKey: string[];
  /** Table options (`ttl`, `append_mode`, `merge_mode`, `comment`, ...), as strings. */
  options: Record<string, string>;
  /** Next column id to hand out. */
  nextColumnId: number;
  createdAtMs: number;
}

export interface DatabaseSchema {
  name: string;
  options: Record<string, string>;
  createdAtMs: number;
}

/** Bytes one value of a typed kind takes (strings are not typed arrays). */
export const TYPED_VALUE_BYTES: Record<Exclude<PhysicalKind, 'str'>, number> = { f64: 8, i64: 8, u64: 8, bool: 1 };

/** The typed array of `kind` over `n` values of `buffer` from `byteOffset` (no copy). */
export function typedValuesOver(
  kind: Exclude<PhysicalKind, 'str'>,
  buffer: ArrayBufferLike,
  byteOffset: number,
  n: number,
): Vector['values'] {
  switch (kind) {
    case 'f64':
      return new Float64Array(buffer, byteOffset, n);
    case 'i64':
      return new BigInt64Array(buffer, byteOffset, n);
    case 'u64':
      return new BigUint64Array(buffer, byteOffset, n);
    case 'bool':
      return new Uint8Array(buffer, byteOffset, n);
  }
}

/** Physical-kind constructors used where arrays are built by kind. */
export function allocValues(kind: PhysicalKind, length: number): Vector['values'] {
  switch (kind) {
    case 'f64':
      return new Float64Array(length);
    case 'i64':
      return new BigInt64Array(length);
    case 'u64':
      return new BigUint64Array(length);
    case 'bool':
      return new Uint8Array(length);
    case 'str':
      return new Array<string | null>(length).fill(null);
  }
}
