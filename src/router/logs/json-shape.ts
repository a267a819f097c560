/**
 * Reading a JSON value the way serde (behind axum's `Json` extractor and `serde_path_to_error`)
 * does, so a wrong shape answers 422 with serde's wording and the path to the bad value:
 * `filters.Single.filters[0]: unknown variant \`Foo\`, expected one of ...` (reference §1.5).
 * Structs ignore unknown keys, `Option` fields may be missing or null, and enums are externally
 * tagged: a unit variant is a string (or `{"V": null}`), any other a single-key object.
 */
import { ClientError } from '../errors/catalogue.js';

/** Where a value sits in the body, as `serde_path_to_error` prints it (`a.b[0].c`). */
export type JsonPath = string;

/** A wrong-shape body: the framework's 422, not a GreptimeDB error body. */
export function shapeError(path: JsonPath, message: string): ClientError {
  const detail = path === '' ? message : `${path}: ${message}`;
  return new ClientError('UnprocessableBody', `Failed to deserialize the JSON body into the target type: ${detail}`);
}

export function fieldPath(path: JsonPath, key: string): JsonPath {
  return path === '' ? key : `${path}.${key}`;
}

export function indexPath(path: JsonPath, index: number): JsonPath {
  return `${path}[${index}]`;
}

/** serde's `Unexpected` text for a value of the wrong type. */
function unexpected(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'number') {
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  }
  return Array.isArray(value) ? 'sequence' : 'map';
}

function invalidType(path: JsonPath, value: unknown, expected: string): ClientError {
  return shapeError(path, `invalid type: ${unexpected(value)}, expected ${expected}`);
}

/** A JSON object standing for a Rust struct named `name`. */
export function readStruct(value: unknown, path: JsonPath, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidType(path, value, `struct ${name}`);
  }
  return value as Record<string, unknown>;
}

/** A field that must be present (an `Option` field is read with `optionalField`). */
export function requiredField(object: Record<string, unknown>, key: string, path: JsonPath): unknown {
  if (!Object.hasOwn(object, key)) throw shapeError(path, `missing field \`${key}\``);
  return object[key];
}

/** An `Option` field: missing and null both mean none. */
export function optionalField(object: Record<string, unknown>, key: string): unknown {
  const value = Object.hasOwn(object, key) ? object[key] : null;
  return value === undefined ? null : value;
}

export function readString(value: unknown, path: JsonPath): string {
  if (typeof value !== 'string') throw invalidType(path, value, 'a string');
  return value;
}

export function readOptionalString(value: unknown, path: JsonPath): string | null {
  return value === null ? null : readString(value, path);
}

export function readBool(value: unknown, path: JsonPath): boolean {
  if (typeof value !== 'boolean') throw invalidType(path, value, 'a boolean');
  return value;
}

/** A non-negative integer that fits a Rust `usize` (u64), as a JS number. */
export function readUsize(value: unknown, path: JsonPath): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidType(path, value, 'usize');
  if (value < 0 || value > 2 ** 64 - 1) throw shapeError(path, `invalid value: integer \`${value}\`, expected usize`);
  return value;
}

/** A signed or unsigned 64-bit integer (`i64` / `u64`). */
export function readInteger(value: unknown, path: JsonPath, type: 'i64' | 'u64'): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidType(path, value, type);
  const [min, max] = type === 'i64' ? [-(2 ** 63), 2 ** 63 - 1] : [0, 2 ** 64 - 1];
  if (value < min || value > max) throw shapeError(path, `invalid value: integer \`${value}\`, expected ${type}`);
  return value;
}

export function readFloat(value: unknown, path: JsonPath): number {
  if (typeof value !== 'number') throw invalidType(path, value, 'f64');
  return value;
}

export function readSequence<T>(value: unknown, path: JsonPath, item: (value: unknown, path: JsonPath) => T): T[] {
  if (!Array.isArray(value)) throw invalidType(path, value, 'a sequence');
  return value.map((v, i) => item(v, indexPath(path, i)));
}

/** A JSON array standing for a Rust tuple (or tuple variant) of exactly `length` elements. */
export function readTuple(value: unknown, path: JsonPath, length: number, what: string): unknown[] {
  if (!Array.isArray(value)) throw invalidType(path, value, what);
  if (value.length !== length) {
    throw shapeError(path, `invalid length ${value.length}, expected ${what} with ${length} elements`);
  }
  return value;
}

/** One externally tagged enum value: the variant name, its content and the content's path. */
export interface Variant {
  tag: string;
  content: unknown;
  path: JsonPath;
}

/**
 * Reads an externally tagged enum. `units` are the variants without content, `others` the rest;
 * both in declaration order, which is the order serde lists them in `unknown variant` errors.
 */
export function readVariant(
  value: unknown,
  path: JsonPath,
  enumName: string,
  units: readonly string[],
  others: readonly string[],
): Variant {
  const all = [...units, ...others];
  const check = (tag: string): void => {
    if (!all.includes(tag)) {
      const expected = all.map((v) => `\`${v}\``).join(', ');
      throw shapeError(path, `unknown variant \`${tag}\`, expected one of ${expected}`);
    }
  };
  if (typeof value === 'string') {
    check(value);
    if (!units.includes(value)) throw shapeError(path, 'invalid type: unit variant, expected newtype variant');
    return { tag: value, content: null, path };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidType(path, value, `enum ${enumName}`);
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) throw shapeError(path, `invalid length ${keys.length}, expected map with a single key`);
  const tag = keys[0] as string;
  check(tag);
  const content = (value as Record<string, unknown>)[tag];
  const contentPath = fieldPath(path, tag);
  if (units.includes(tag) && content !== null) throw invalidType(contentPath, content, 'unit');
  return { tag, content, path: contentPath };
}
