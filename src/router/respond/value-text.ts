/**
 * How `/v1/sql` result values become text. GreptimeDB turns every value into a serde_json value
 * first and each output format prints from that, so all text formats share serde_json's rules:
 * Int64/UInt64/timestamps are exact integers (BigInt here), floats print the way Rust's `ryu` does
 * (always with a fraction or an exponent: `1.0`, `1e16`, `1e-7`), NaN and ±Inf become null, and
 * strings are JSON strings. `compareUtf8` gives serde_json's map order (byte order of UTF-8 keys).
 */
import type { DataType } from '../../shared/types.js';

const FLOAT_TYPES: ReadonlySet<DataType> = new Set<DataType>(['Float32', 'Float64']);

/** Whether a column holds floating-point values (printed with a fraction). */
export function isFloatType(type: DataType): boolean {
  return FLOAT_TYPES.has(type);
}

/**
 * A finite float as Rust's `ryu` prints it: the shortest round-trip digits, plain notation while
 * the value has at most 16 integer digits and at most 4 zeros after the point, otherwise
 * `d.ddde<exp>` with no `+`. JavaScript finds the same shortest digits; only the layout differs
 * (JS switches to exponents at 1e21 and 1e-7 and writes `e+`).
 */
export function floatText(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  // toExponential() with no argument yields the shortest digits that read back to `value`.
  const exponential = Math.abs(value).toExponential();
  const at = exponential.indexOf('e');
  const digits = exponential.slice(0, at).replace('.', '');
  const kk = Number(exponential.slice(at + 1)) + 1; // 10^(kk-1) <= |value| < 10^kk
  const length = digits.length;
  const k = kk - length;
  let body: string;
  if (k >= 0 && kk <= 16) body = `${digits}${'0'.repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) body = `0.${'0'.repeat(-kk)}${digits}`;
  else body = `${digits[0]}${length > 1 ? `.${digits.slice(1)}` : ''}e${kk - 1}`;
  return sign + body;
}

/** Nested values (lists, structs) as compact JSON with sorted keys, numbers kept exact. */
function nestedJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) return 'null';
      return Number.isInteger(value) ? String(value) : floatText(value);
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

/** One value as JSON text, rendered for its column type. */
export function jsonValue(value: unknown, type: DataType): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) return 'null';
      return FLOAT_TYPES.has(type) ? floatText(value) : String(value);
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
