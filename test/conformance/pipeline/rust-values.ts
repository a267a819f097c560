/**
 * Runtime values of the Rust interpreter (rust-eval.ts) and Rust's `==` over them. JSON documents
 * (serde_json, VRL and jsonb values) are wrapped so they are never confused with Rust structs.
 */

export type V =
  | string
  | bigint
  | number
  | boolean
  | undefined
  | V[]
  | { $: 'opt'; some: boolean; v?: V }
  | { $: 'res'; ok: boolean; v: V }
  | { $: 'enum'; name: string; args: V[] }
  | { $: 'json'; v: unknown }
  | { $: 'bytes'; v: unknown }
  | { $: 'map'; m: Map<string, V> }
  | { $: 'tuple'; items: V[] }
  | { $: 'struct'; name: string; fields: Record<string, V> }
  | { $: 'fn'; call: (args: V[]) => Promise<V> }
  /** An error's text as the server gave it (see `equal`). */
  | { $: 'errtext'; msg: string }
  | { $: 'host'; kind: string; data: unknown };

export type Obj = Extract<V, { $: string }>;

export class Panic extends Error {}

export const some = (v: V): V => ({ $: 'opt', some: true, v });
export const NONE: V = { $: 'opt', some: false };
export const ok = (v: V): V => ({ $: 'res', ok: true, v });
export const err = (v: V): V => ({ $: 'res', ok: false, v });
export const json = (v: unknown): V => ({ $: 'json', v });

export function isObj(v: V): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function numEq(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  return Number(a) === Number(b);
}

/** Plain JSON equality with integers and floats of the same value equal (jsonb numbers). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    return numEq(a, b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return (
      jsonEqual(ka, kb) &&
      ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

/**
 * Rust's `==`. Struct names are not compared (`GreptimeValue {..}` is `api::v1::Value {..}`), nor
 * the enum a variant came from. An error text from the server equals a string it contains: over
 * HTTP GreptimeDB's error display is wrapped in the request's context.
 */
export function equal(a: V, b: V): boolean {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return numEq(a, b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  }
  if (isObj(a) && a.$ === 'errtext' && typeof b === 'string') return a.msg.includes(b);
  if (isObj(b) && b.$ === 'errtext' && typeof a === 'string') return b.msg.includes(a);
  if (!isObj(a) || !isObj(b)) return a === b;
  if (a.$ !== b.$) return false;
  switch (a.$) {
    case 'opt': {
      const o = b as typeof a;
      return a.some === o.some && (!a.some || equal(a.v, o.v));
    }
    case 'res': {
      const o = b as typeof a;
      return a.ok === o.ok && equal(a.v, o.v);
    }
    case 'enum': {
      const o = b as typeof a;
      return a.name === o.name && equal(a.args, o.args);
    }
    case 'json':
    case 'bytes':
      return jsonEqual(a.v, (b as typeof a).v);
    case 'tuple':
      return equal(a.items, (b as typeof a).items);
    case 'struct': {
      const o = b as typeof a;
      const keys = new Set([...Object.keys(a.fields), ...Object.keys(o.fields)]);
      return [...keys].every((k) => equal(a.fields[k], o.fields[k]));
    }
    case 'map': {
      const o = b as typeof a;
      return a.m.size === o.m.size && [...a.m].every(([k, v]) => o.m.has(k) && equal(v, o.m.get(k)));
    }
    default:
      return a === b;
  }
}

/** `{:?}`-like text for failure reasons. */
export function show(v: V): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === undefined) return '()';
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  switch (v.$) {
    case 'opt':
      return v.some ? `Some(${show(v.v)})` : 'None';
    case 'res':
      return `${v.ok ? 'Ok' : 'Err'}(${show(v.v)})`;
    case 'enum':
      return v.args.length ? `${v.name}(${v.args.map(show).join(', ')})` : v.name;
    case 'json':
    case 'bytes':
      return `${v.$}(${JSON.stringify(v.v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))})`;
    case 'tuple':
      return `(${v.items.map(show).join(', ')})`;
    case 'struct':
      return `${v.name} { ${Object.entries(v.fields)
        .map(([k, x]) => `${k}: ${show(x)}`)
        .join(', ')} }`;
    case 'map':
      return `{${[...v.m].map(([k, x]) => `${k}: ${show(x)}`).join(', ')}}`;
    case 'errtext':
      return `Error(${JSON.stringify(v.msg)})`;
    default:
      return `<${v.$}>`;
  }
}

/** JSON text with sorted keys and no spaces (jsonb's `to_string`). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return typeof v === 'bigint' ? String(v) : JSON.stringify(v);
}
