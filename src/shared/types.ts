/**
 * The data model shared by the router (catalog, planning, output) and the shards (storage, scans).
 *
 * Logical types carry GreptimeDB's names because clients see them in result schemas. Storage and
 * execution only care about the physical kind: every logical type maps to exactly one kind.
 */

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
  | 'Null';

/**
 * How a value is held in memory and on disk.
 * - `f64`: Float64Array. Also holds Int8..Int32, UInt8..UInt32, Float32 and Date exactly.
 * - `i64`: BigInt64Array. Int64 and every Timestamp* type (count of the type's unit since epoch).
 * - `u64`: BigUint64Array. UInt64.
 * - `bool`: Uint8Array of 0/1.
 * - `str`: Array<string | null> (Binary is held as a latin1 string of its bytes).
 */
export type PhysicalKind = 'f64' | 'i64' | 'u64' | 'bool' | 'str';

export function physicalKindOf(type: DataType): PhysicalKind {
  switch (type) {
    case 'Boolean':
      return 'bool';
    case 'Int64':
    case 'TimestampSecond':
    case 'TimestampMillisecond':
    case 'TimestampMicrosecond':
    case 'TimestampNanosecond':
      return 'i64';
    case 'UInt64':
      return 'u64';
    case 'String':
    case 'Binary':
    case 'Null':
      return 'str';
    default:
      return 'f64';
  }
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
