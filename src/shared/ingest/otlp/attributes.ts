/**
 * OTLP attribute values (AnyValue) as stored values. GreptimeDB keeps attribute maps as JSONB
 * objects and flattens single values into typed columns or label strings; these helpers give the
 * same values for both encodings (they read the decoded shape of `shared/proto/otlp.ts`):
 *
 *   AnyValue → JsonNode (`anyValueToJsonNode`) → canonical JSON text (`attributesToJsonText`)
 *   AnyValue → one typed column value (`anyValueToColumnValue`, trace attribute columns)
 *   AnyValue → text (`anyValueToText`: log bodies; `anyValueToLabel`: metric labels)
 *
 * JSON mapping (GreptimeDB `any_value_to_jsonb`): string, bool, int (exact i64), double as
 * themselves; arrays as arrays; kvlists as objects; bytes as lowercase hex strings; an empty
 * AnyValue as null. Objects are JSONB objects: keys sorted, a repeated key keeps its last value.
 */
import { type JsonNode, jsonString, jsonText, objectNode } from '../../json-value.js';
import type { AnyValue, KeyValue } from '../../proto/otlp.js';
import type { DataType } from '../../types.js';

const NULL_NODE: JsonNode = { kind: 'null' };

/** Lowercase hex of bytes, as GreptimeDB prints ids and bytes values. */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** The JSON node of one AnyValue (null for an absent or empty value). */
export function anyValueToJsonNode(value: AnyValue | null | undefined): JsonNode {
  if (!value) return NULL_NODE;
  if (value.stringValue !== undefined) return { kind: 'string', value: value.stringValue };
  if (value.boolValue !== undefined) return { kind: 'bool', value: value.boolValue };
  if (value.intValue !== undefined) return { kind: 'int', value: value.intValue };
  if (value.doubleValue !== undefined) return { kind: 'float', value: value.doubleValue };
  if (value.arrayValue) return { kind: 'array', items: value.arrayValue.values.map(anyValueToJsonNode) };
  if (value.kvlistValue) return attributesToJsonNode(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return { kind: 'string', value: hexOf(value.bytesValue) };
  return NULL_NODE;
}

/** A key/value list as a JSON object: keys in UTF-8 byte order, the last of repeated keys wins. */
export function attributesToJsonNode(attributes: readonly KeyValue[]): JsonNode {
  const byKey = new Map<string, JsonNode>();
  for (const kv of attributes) byKey.set(kv.key, anyValueToJsonNode(kv.value));
  return objectNode(byKey);
}

/** Characters where UTF-16 code unit order and UTF-8 byte order can disagree (surrogates on). */
const NON_BMP_ORDER_RISK = /[\uD800-\uFFFF]/;

/**
 * How one list of keys is written: which entries to emit in which order, each with its escaped
 * `"key":` prefix. Records of one source nearly always repeat the same keys in the same order,
 * so the last shape is kept and reused when the next list has the same keys.
 */
interface KeyShape {
  keys: string[];
  /** Entry indexes to emit, in key order, the last of repeated keys only. */
  order: number[];
  /** `{"key":` or `,"key":` for each emitted entry. */
  prefixes: string[];
}

let lastShape: KeyShape | null = null;

function shapeOf(attributes: readonly KeyValue[]): KeyShape | null {
  const count = attributes.length;
  const previous = lastShape;
  if (previous && previous.keys.length === count) {
    let same = true;
    for (let i = 0; i < count; i++) {
      if (previous.keys[i] !== (attributes[i] as KeyValue).key) {
        same = false;
        break;
      }
    }
    if (same) return previous;
  }
  const keys = attributes.map((kv) => kv.key);
  // Keys with surrogates sort differently in UTF-16 and UTF-8: leave them to the general path.
  if (keys.some((k) => NON_BMP_ORDER_RISK.test(k))) return null;
  // Stable sort by key, then keep the last of each run of equal keys (the last value wins).
  const sorted = keys
    .map((_, i) => i)
    .sort((a, b) => {
      const x = keys[a] as string;
      const y = keys[b] as string;
      return x < y ? -1 : x > y ? 1 : a - b;
    });
  const order = sorted.filter((index, i) => i + 1 === sorted.length || keys[sorted[i + 1] as number] !== keys[index]);
  const prefixes = order.map((index, i) => `${i === 0 ? '{' : ','}${jsonString(keys[index] as string)}:`);
  lastShape = { keys, order, prefixes };
  return lastShape;
}

/**
 * The canonical JSON text (a `Json` column value) of a key/value list: the same text as
 * `jsonText(attributesToJsonNode(...))`, written directly because this runs for every log record
 * on the ingest hot path (no node tree; key order and escaped keys reused across records).
 */
export function attributesToJsonText(attributes: readonly KeyValue[]): string {
  if (attributes.length === 0) return '{}';
  const shape = shapeOf(attributes);
  if (!shape) return jsonText(attributesToJsonNode(attributes));
  let out = '';
  const { order, prefixes } = shape;
  for (let i = 0; i < order.length; i++) {
    out += prefixes[i] as string;
    out += scalarJsonText((attributes[order[i] as number] as KeyValue).value);
  }
  return `${out}}`;
}

/** JSON text of one value; nested arrays and lists go through the node tree. */
function scalarJsonText(value: AnyValue | null): string {
  if (!value) return 'null';
  if (value.stringValue !== undefined) return jsonString(value.stringValue);
  if (value.intValue !== undefined) return value.intValue.toString();
  if (value.boolValue !== undefined) return value.boolValue ? 'true' : 'false';
  const d = value.doubleValue;
  // Whole numbers below 1e15 print as `<digits>.0` in the canonical form; skip the ryu layout.
  if (d !== undefined && Number.isInteger(d) && d !== 0 && Math.abs(d) < 1e15) return `${d}.0`;
  return jsonText(anyValueToJsonNode(value));
}

/** The canonical JSON text of one AnyValue. */
export function anyValueToJsonText(value: AnyValue | null | undefined): string {
  return jsonText(anyValueToJsonNode(value));
}

/**
 * An AnyValue as text: strings as they are, bytes as lowercase hex, everything else as its JSON
 * text (log bodies). Null for an absent or empty value.
 */
export function anyValueToText(value: AnyValue | null | undefined): string | null {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.bytesValue !== undefined) return hexOf(value.bytesValue);
  const node = anyValueToJsonNode(value);
  return node.kind === 'null' ? null : jsonText(node);
}

/**
 * An attribute as a metric label value (reference ingest §3.3): strings as they are, integers in
 * decimal, doubles in their shortest round-trip form (`1.0` → `1`); null for bool, bytes, array,
 * kvlist and empty values, which GreptimeDB drops from labels.
 */
export function anyValueToLabel(value: AnyValue | null | undefined): string | null {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return value.intValue.toString();
  if (value.doubleValue !== undefined) return String(value.doubleValue);
  return null;
}

/** One attribute as a typed column value; `value` is in the column's `Vector` form. */
export type ColumnValue =
  | { type: 'String'; value: string }
  | { type: 'Boolean'; value: boolean }
  | { type: 'Int64'; value: bigint }
  | { type: 'Float64'; value: number }
  | { type: 'Json'; value: string }
  | { type: 'Binary'; value: string };

/**
 * An attribute as the value of its own column (trace tables, reference ingest §3.5): string →
 * String, bool → Boolean, int → Int64, double → Float64, array/kvlist → Json, bytes → Binary
 * (held as a latin1 string, the storage form of Binary). Null for an empty value: no column.
 */
export function anyValueToColumnValue(value: AnyValue | null | undefined): ColumnValue | null {
  if (!value) return null;
  if (value.stringValue !== undefined) return { type: 'String', value: value.stringValue };
  if (value.boolValue !== undefined) return { type: 'Boolean', value: value.boolValue };
  if (value.intValue !== undefined) return { type: 'Int64', value: value.intValue };
  if (value.doubleValue !== undefined) return { type: 'Float64', value: value.doubleValue };
  if (value.arrayValue || value.kvlistValue) return { type: 'Json', value: anyValueToJsonText(value) };
  if (value.bytesValue !== undefined) {
    const b = value.bytesValue;
    return { type: 'Binary', value: Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1') };
  }
  return null;
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/**
 * `value` converted to a column of type `target`, or undefined when it cannot be (GreptimeDB's
 * trace attribute coercions, reference ingest §3.5): int → Float64/String, double → String,
 * bool → String, string → Int64/Float64/Boolean by parsing. Same type: unchanged.
 */
export function coerceColumnValue(value: ColumnValue, target: DataType): ColumnValue['value'] | undefined {
  if (value.type === target) return value.value;
  switch (value.type) {
    case 'Int64':
      if (target === 'Float64') return Number(value.value);
      if (target === 'String') return value.value.toString();
      return undefined;
    case 'Float64':
      return target === 'String' ? String(value.value) : undefined;
    case 'Boolean':
      return target === 'String' ? String(value.value) : undefined;
    case 'String': {
      const text = value.value.trim();
      if (target === 'Int64' && INTEGER_TEXT.test(text)) {
        const n = BigInt(text);
        return n >= I64_MIN && n <= I64_MAX ? n : undefined;
      }
      if (target === 'Float64' && text !== '' && !Number.isNaN(Number(text))) return Number(text);
      if (target === 'Boolean' && (text === 'true' || text === 'false')) return text === 'true';
      return undefined;
    }
    default:
      return undefined;
  }
}
