/**
 * How `/v1/sql` result values become text. GreptimeDB turns every value into a serde_json value
 * first and each output format prints from that, so all text formats share serde_json's rules:
 * Int64/UInt64/timestamps are exact integers (BigInt here), floats print the way Rust's `ryu` does
 * (always with a fraction or an exponent: `1.0`, `1e16`, `1e-7`), NaN and ±Inf become null,
 * strings are JSON strings, Binary values arrays of their bytes, decimals are strings, JSON documents are inlined and lists are arrays.
 * `compareUtf8` gives serde_json's map order (byte order of UTF-8 keys).
 */
import { formatDecimal } from '../../query/sql/types/decimal.js';
import { ryuFloat } from '../../shared/ryu.js';
import { type DataType, decimalPartsOf, isBinaryLike, listItemTypeOf } from '../../shared/types.js';

const FLOAT_TYPES: ReadonlySet<DataType> = new Set<DataType>(['Float32', 'Float64']);

/** Whether a column holds floating-point values (printed with a fraction). */
export function isFloatType(type: DataType): boolean {
  return FLOAT_TYPES.has(type);
}

/** Nested values (lists, structs) as compact JSON with sorted keys, numbers kept exact. */
function nestedJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) return 'null';
      return Number.isInteger(value) ? String(value) : ryuFloat(value);
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      if (Array.isArray(value)) return `[${value.map(nestedJson).join(',')}]`;
      if (value instanceof Uint8Array) return `[${Array.from(value).join(',')}]`;
      return `{${Object.keys(value as object)
        .sort(compareUtf8)
        .map((k) => `${JSON.stringify(k)}:${nestedJson((value as Record<string, unknown>)[k])}`)
        .join(',')}}`;
  }
}

/**
 * One value as JSON text, rendered for its column type. Decimals are strings with exactly `scale`
 * fraction digits (`"12.30"`), Json values are the document itself, lists are arrays of their
 * items' renderings; times, durations and packed intervals are integers.
 */
export function jsonValue(value: unknown, type: DataType): string {
  if (value === null || value === undefined) return 'null';
  if (type === 'Json' && typeof value === 'string') return value;
  // serde_json writes bytes as an array of their values; Binary is held as a latin1 string.
  if (isBinaryLike(type) && typeof value === 'string') return nestedJson(Buffer.from(value, 'latin1'));
  const decimal = decimalPartsOf(type);
  if (decimal && typeof value === 'bigint') return JSON.stringify(formatDecimal(value, decimal.scale));
  const item = listItemTypeOf(type);
  if (item && Array.isArray(value)) return `[${value.map((v) => jsonValue(v, item)).join(',')}]`;
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) return 'null';
      // A finite float as Rust's `ryu` prints it (`1.0`, `1e16`, `1e-7`), as serde_json does.
      return FLOAT_TYPES.has(type) ? ryuFloat(value) : String(value);
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return nestedJson(value);
  }
}

/** Byte order of the UTF-8 encodings, which is how Rust orders `String` map keys. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
