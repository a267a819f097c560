/**
 * OTLP/JSON (the OTLP/HTTP JSON encoding, opentelemetry-proto README "JSON Protobuf Encoding")
 * → the decoded shape of `shared/proto/otlp.ts`, so that the mapping code never knows which encoding came in.
 *
 * The rules are proto3's JSON mapping with OTLP's departures:
 *   - keys are the lowerCamelCase field names; the original snake_case names are accepted too,
 *     as the OpenTelemetry Collector does;
 *   - `traceId`, `spanId` and `parentSpanId` (in spans, links, log records and exemplars) are hex
 *     strings, not base64; other bytes fields (AnyValue's `bytesValue`) are base64;
 *   - 64-bit integers may be decimal strings or JSON numbers; 32-bit integers and doubles may be
 *     numbers or strings; doubles also take "NaN", "Infinity" and "-Infinity";
 *   - enums may be names (`"SPAN_KIND_SERVER"`) or numbers;
 *   - unknown keys are ignored; `null` means "not set".
 * A value of the wrong JSON type is an error naming its path (`resourceSpans[0]...traceId`): the
 * request is rejected as a whole rather than half-read.
 *
 * The converter walks the protobufjs reflection of `shared/proto/otlp.ts`, so it covers every message there
 * (metrics included) without a hand-written case per field.
 */

import type protobuf from 'protobufjs';
import { JSON_TOO_DEEP, nestedTooDeep } from '../../json-depth.js';
import { protobufjs } from '../../proto/protobufjs.js';

/** A JSON body that is not valid OTLP/JSON; `message` names the offending path. */
export class OtlpJsonError extends Error {
  override name = 'OtlpJsonError';
}

/** Fields whose bytes travel as hex in OTLP/JSON (the spec's trace and span id exception). */
const HEX_BYTES_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const DECIMAL_INTEGER = /^-?\d+$/;
const NUMBER_CHARS = /[0-9.eE+-]/;
const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Integers with more digits than this lose precision in `JSON.parse` as doubles. */
const SAFE_INTEGER_DIGITS_MAX = 15;

interface FieldPlan {
  field: protobuf.Field;
  /** Set for fields inside a oneof (including proto3 `optional`): present only when given. */
  oneof: string | null;
}

const keyTables = new WeakMap<protobuf.Type, Map<string, FieldPlan>>();

function snakeCase(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Both accepted JSON keys of every field of `type`, computed once per type. */
function keyTableOf(type: protobuf.Type): Map<string, FieldPlan> {
  let table = keyTables.get(type);
  if (table) return table;
  table = new Map();
  for (const field of type.fieldsArray) {
    const plan: FieldPlan = { field, oneof: field.partOf ? field.partOf.name : null };
    table.set(field.name, plan);
    table.set(snakeCase(field.name), plan);
  }
  keyTables.set(type, table);
  return table;
}

/**
 * Parses an OTLP/JSON body text as message `type` into the decoded shape. Throws `OtlpJsonError`
 * on invalid JSON or on a value that does not fit its field.
 */
export function decodeOtlpJson<T>(type: protobuf.Type, text: string): T {
  let parsed: unknown;
  try {
    if (nestedTooDeep(text)) throw new Error(JSON_TOO_DEEP);
    parsed = JSON.parse(quoteLargeIntegers(text));
  } catch (err) {
    throw new OtlpJsonError(`invalid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new OtlpJsonError(`expected a JSON object for ${type.name}`);
  }
  return convertMessage(type, parsed as Record<string, unknown>, '') as T;
}

/**
 * `JSON.parse` reads every number as a double, which would round nanosecond timestamps sent as
 * bare numbers (`1700000000123456789` → ...456768). Integer literals too long to be exact are
 * quoted first, outside strings; int64 fields accept strings, so they then arrive exactly.
 */
export function quoteLargeIntegers(text: string): string {
  if (!/\d{16}/.test(text)) return text;
  let out = '';
  let copiedUpTo = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    const startsNumber = c === 0x2d || (c >= 0x30 && c <= 0x39);
    if (!startsNumber) continue;
    // The whole number token, fraction and exponent included, so digits after a '.' are not
    // mistaken for an integer of their own.
    let end = i + 1;
    while (end < text.length && NUMBER_CHARS.test(text[end] as string)) end++;
    const token = text.slice(i, end);
    if (DECIMAL_INTEGER.test(token) && token.replace('-', '').length > SAFE_INTEGER_DIGITS_MAX) {
      out += `${text.slice(copiedUpTo, i)}"${token}"`;
      copiedUpTo = end;
    }
    i = end - 1;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

function convertMessage(type: protobuf.Type, json: Record<string, unknown>, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const table = keyTableOf(type);
  const oneofSet = new Map<string, string>();
  for (const [key, value] of Object.entries(json)) {
    const plan = table.get(key);
    if (!plan || value === null) continue;
    const { field, oneof } = plan;
    const fieldPath = path === '' ? field.name : `${path}.${field.name}`;
    if (oneof !== null) {
      const other = oneofSet.get(oneof);
      if (other !== undefined && other !== field.name) {
        throw new OtlpJsonError(`${fieldPath}: only one of ${other} and ${field.name} may be set`);
      }
      oneofSet.set(oneof, field.name);
    }
    if (field.repeated) {
      if (!Array.isArray(value)) throw new OtlpJsonError(`${fieldPath}: expected an array`);
      out[field.name] = value.map((item, i) => convertValue(field, item, `${fieldPath}[${i}]`));
    } else {
      out[field.name] = convertValue(field, value, fieldPath);
    }
  }
  // Defaults for what was not given, exactly as protobufjs' toObject({ defaults: true }) fills them.
  for (const field of type.fieldsArray) {
    if (field.name in out || field.partOf) continue;
    out[field.name] = defaultOf(field);
  }
  return out;
}

function defaultOf(field: protobuf.Field): unknown {
  if (field.repeated) return [];
  if (field.resolvedType instanceof protobufjs().Type) return null;
  if (field.resolvedType instanceof protobufjs().Enum) return 0;
  switch (field.type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return Buffer.alloc(0);
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return 0n;
    default:
      return 0;
  }
}

function convertValue(field: protobuf.Field, value: unknown, path: string): unknown {
  if (value === null) return defaultOf(field);
  const resolved = field.resolvedType;
  if (resolved instanceof protobufjs().Type) {
    if (typeof value !== 'object' || Array.isArray(value)) throw new OtlpJsonError(`${path}: expected an object`);
    return convertMessage(resolved, value as Record<string, unknown>, path);
  }
  if (resolved instanceof protobufjs().Enum) return convertEnum(resolved, value, path);
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') throw new OtlpJsonError(`${path}: expected a string`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new OtlpJsonError(`${path}: expected true or false`);
      return value;
    case 'bytes':
      return HEX_BYTES_FIELDS.has(field.name) ? convertHex(value, path) : convertBase64(value, path);
    case 'double':
    case 'float':
      return convertDouble(value, path);
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return convertInt64(value, path, INT64_MIN, INT64_MAX);
    case 'uint64':
    case 'fixed64':
      return convertInt64(value, path, 0n, UINT64_MAX);
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return convertInt32(value, path, -(2 ** 31), 2 ** 31 - 1);
    case 'uint32':
    case 'fixed32':
      return convertInt32(value, path, 0, 2 ** 32 - 1);
    default:
      throw new OtlpJsonError(`${path}: unsupported field type ${field.type}`);
  }
}

function convertEnum(type: protobuf.Enum, value: unknown, path: string): number {
  if (typeof value === 'string') {
    const number = type.values[value];
    if (number === undefined) throw new OtlpJsonError(`${path}: unknown ${type.name} value "${value}"`);
    return number;
  }
  // Numbers not named in the enum are kept: proto3 enums are open, as the binary decoder keeps them.
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new OtlpJsonError(`${path}: expected a ${type.name} name or number`);
}

function convertHex(value: unknown, path: string): Buffer {
  if (typeof value !== 'string' || value.length % 2 !== 0 || !HEX.test(value)) {
    throw new OtlpJsonError(`${path}: expected a hex string`);
  }
  return Buffer.from(value, 'hex');
}

function convertBase64(value: unknown, path: string): Buffer {
  if (typeof value !== 'string' || !BASE64.test(value)) throw new OtlpJsonError(`${path}: expected a base64 string`);
  return Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
}

function convertDouble(value: unknown, path: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    if (value === 'NaN') return Number.NaN;
    if (value === 'Infinity') return Number.POSITIVE_INFINITY;
    if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
    const n = Number(value);
    if (value.trim() !== '' && Number.isFinite(n)) return n;
  }
  throw new OtlpJsonError(`${path}: expected a number`);
}

function convertInt64(value: unknown, path: string, min: bigint, max: bigint): bigint {
  let n: bigint | null = null;
  if (typeof value === 'string' && DECIMAL_INTEGER.test(value)) n = BigInt(value);
  else if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
  if (n === null) throw new OtlpJsonError(`${path}: expected an integer (number or decimal string)`);
  if (n < min || n > max) throw new OtlpJsonError(`${path}: integer ${n} out of range`);
  return n;
}

function convertInt32(value: unknown, path: string, min: number, max: number): number {
  const n = typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw new OtlpJsonError(`${path}: expected an integer`);
  if (n < min || n > max) throw new OtlpJsonError(`${path}: integer ${n} out of range`);
  return n;
}

/**
 * The OTLP/JSON text of a message in the decoded shape (responses and tests): lowerCamelCase
 * keys, 64-bit integers as decimal strings, ids as hex, other bytes as base64, enums as numbers,
 * default values left out (proto3 JSON omits them).
 */
export function encodeOtlpJson(type: protobuf.Type, value: Record<string, unknown>): string {
  return JSON.stringify(toJsonValue(type, value));
}

function toJsonValue(type: protobuf.Type, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const v = value[field.name];
    if (v === undefined || v === null) continue;
    if (field.repeated) {
      const items = v as unknown[];
      if (items.length > 0) out[field.name] = items.map((item) => scalarOrMessageToJson(field, item));
      continue;
    }
    if (!field.partOf && isDefault(v)) continue;
    out[field.name] = scalarOrMessageToJson(field, v);
  }
  return out;
}

function isDefault(v: unknown): boolean {
  return v === 0 || v === 0n || v === '' || v === false || (v instanceof Uint8Array && v.length === 0);
}

function scalarOrMessageToJson(field: protobuf.Field, v: unknown): unknown {
  if (field.resolvedType instanceof protobufjs().Type)
    return toJsonValue(field.resolvedType, v as Record<string, unknown>);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) {
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString(
      HEX_BYTES_FIELDS.has(field.name) ? 'hex' : 'base64',
    );
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  return v;
}
