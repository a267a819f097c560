/**
 * The VRL functions of the subset. Each declares its parameters (for positional and named
 * arguments, checked at compile time), the kind it returns (the default `x` gets in
 * `x, err = f(...)` when the call fails) and an optional compile-time check of literal arguments.
 * Functions never mutate their arguments: the interpreter copies on assignment, not on call.
 */
import { expandTemplate } from '../../query/re2.js';
import { floorDiv } from '../../shared/bigint-math.js';
import { type PipelineRecord, PipelineTimestamp, type PipelineValue } from '../value.js';
import { checkParseArgs, compileFormat, formatTime, parseTime, parseTimezone, rfc3339 } from './time.js';
import {
  deepClone,
  isObject,
  type Kind,
  kindOf,
  normalizeInt,
  VrlRegex,
  VrlRuntimeError,
  type VrlValue,
} from './values.js';

type Arg = VrlValue | undefined;

export interface FunctionDef {
  params: { name: string; required: boolean }[];
  returns: Kind | 'any';
  call(args: Arg[]): VrlValue;
  /** Validates literal arguments (undefined when not literal) at compile time; throws on error. */
  check?(args: Arg[]): void;
}

const fail = (msg: string): never => {
  throw new VrlRuntimeError(msg);
};

function expect<K extends Kind>(v: Arg, ...kinds: K[]): VrlValue {
  const k = kindOf(v);
  if (!kinds.includes(k as K)) fail(`expected ${kinds.join(' or ')}, got ${k}`);
  return v as VrlValue;
}
const str = (v: Arg) => expect(v, 'string') as string;
const bool = (v: Arg, dflt: boolean) => (v === undefined ? dflt : (expect(v, 'boolean') as boolean));
const int = (v: Arg) => Number(expect(v, 'integer'));
const obj = (v: Arg) => expect(v, 'object') as PipelineRecord;
const ts = (v: Arg) => expect(v, 'timestamp') as PipelineTimestamp;
const optStr = (v: Arg) => (v === undefined ? undefined : str(v));
const tzOffset = (v: Arg) => (v === undefined ? 0 : parseTimezone(str(v)));

const p = (spec: string) =>
  spec
    .split(' ')
    .filter((s) => s !== '')
    .map((s) => ({ name: s.replace('?', ''), required: !s.endsWith('?') }));

const FLOAT_TEXT = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i;
const TRUE_TEXT = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE_TEXT = new Set(['false', 'f', 'no', 'n', '0']);

function toText(v: Arg): string {
  const k = kindOf(v);
  if (k === 'string') return v as string;
  if (k === 'null') return '';
  if (k === 'timestamp') return rfc3339((v as PipelineTimestamp).nanos);
  if (k === 'integer' || k === 'float' || k === 'boolean') return String(v);
  return fail(`unable to coerce ${k} into string`);
}

function toInt(v: Arg): number | bigint {
  const k = kindOf(v);
  if (k === 'integer') return v as number | bigint;
  if (k === 'float') return Math.trunc(v as number);
  if (k === 'boolean') return v ? 1 : 0;
  if (k === 'null') return 0;
  if (k === 'timestamp') return normalizeInt(floorDiv((v as PipelineTimestamp).nanos, 1_000_000_000n));
  if (k === 'string' && /^[+-]?\d+$/.test((v as string).trim())) return normalizeInt(BigInt((v as string).trim()));
  return fail(`unable to coerce ${k === 'string' ? JSON.stringify(v) : k} into integer`);
}

function toFloat(v: Arg): number {
  const k = kindOf(v);
  if (k === 'integer' || k === 'float') return Number(v);
  if (k === 'boolean') return v ? 1 : 0;
  if (k === 'null') return 0;
  if (k === 'timestamp') return Number((v as PipelineTimestamp).nanos) / 1e9;
  if (k === 'string' && FLOAT_TEXT.test(v as string)) {
    const s = (v as string).toLowerCase().replace(/^\+/, '');
    if (s.endsWith('nan')) return Number.NaN;
    if (s.endsWith('inf') || s.endsWith('infinity')) return s.startsWith('-') ? -Infinity : Infinity;
    return Number(s);
  }
  return fail(`unable to coerce ${k === 'string' ? JSON.stringify(v) : k} into float`);
}

function toBool(v: Arg): boolean {
  const k = kindOf(v);
  if (k === 'boolean') return v as boolean;
  if (k === 'integer' || k === 'float') return Number(v) !== 0;
  if (k === 'null') return false;
  if (k === 'string') {
    const s = (v as string).toLowerCase();
    if (TRUE_TEXT.has(s)) return true;
    if (FALSE_TEXT.has(s)) return false;
  }
  return fail(`unable to coerce ${k === 'string' ? JSON.stringify(v) : k} into boolean`);
}

/** JSON text of a value; timestamps as RFC 3339 strings, as VRL encodes them. */
export function encodeJson(v: Arg, pretty = false, indent = ''): string {
  const k = kindOf(v);
  if (k === 'null') return 'null';
  if (k === 'timestamp') return JSON.stringify(rfc3339((v as PipelineTimestamp).nanos));
  if (k === 'regex') return JSON.stringify((v as VrlRegex).source);
  if (k === 'integer' || k === 'float') return Number.isFinite(Number(v)) ? String(v) : 'null';
  if (k !== 'array' && k !== 'object') return JSON.stringify(v);
  const inner = pretty ? `${indent}  ` : '';
  const items = Array.isArray(v)
    ? v.map((x) => encodeJson(x, pretty, inner))
    : Object.entries(v as PipelineRecord).map(
        ([key, x]) => `${JSON.stringify(key)}:${pretty ? ' ' : ''}${encodeJson(x, pretty, inner)}`,
      );
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  if (!pretty) return `${open}${items.join(',')}${close}`;
  return `${open}\n${items.map((x) => inner + x).join(',\n')}\n${indent}${close}`;
}

function decodeJson(text: string, maxDepth: number | undefined): VrlValue {
  let parsed: PipelineValue;
  try {
    parsed = JSON.parse(text) as PipelineValue;
  } catch (err) {
    return fail(`unable to parse json: ${(err as Error).message}`);
  }
  if (maxDepth === undefined) return parsed;
  if (maxDepth < 1 || maxDepth > 128) fail('max_depth must be between 1 and 128');
  // Containers below max_depth stay as their JSON text, as VRL's bounded parser leaves them.
  const cut = (v: PipelineValue, depth: number): PipelineValue => {
    if (v === null || typeof v !== 'object') return v;
    if (depth > maxDepth) return JSON.stringify(v);
    if (Array.isArray(v)) return v.map((x) => cut(x, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x, depth + 1)]));
  };
  return cut(parsed, 1);
}

function matchText(v: Arg, sub: Arg, caseSensitive: Arg, test: (s: string, sub: string) => boolean): boolean {
  const cs = bool(caseSensitive, true);
  const s = str(v);
  const t = str(sub);
  return cs ? test(s, t) : test(s.toLowerCase(), t.toLowerCase());
}

function replace(v: Arg, pattern: Arg, withArg: Arg, countArg: Arg): string {
  const s = str(v);
  const replacement = str(withArg);
  let count = countArg === undefined ? -1 : int(countArg);
  if (typeof pattern === 'string') {
    if (pattern === '') return s;
    const parts = s.split(pattern);
    let out = parts[0] as string;
    for (let i = 1; i < parts.length; i++) out += (count-- !== 0 ? replacement : pattern) + parts[i];
    return out;
  }
  if (!(pattern instanceof VrlRegex)) return fail(`expected string or regex, got ${kindOf(pattern)}`);
  let out = '';
  let last = 0;
  for (const m of pattern.re.matchAll(s)) {
    if (count-- === 0) break;
    const at = m.index as number;
    out += s.slice(last, at) + expandTemplate(replacement, m);
    last = at + m[0].length;
  }
  return out + s.slice(last);
}

function split(v: Arg, pattern: Arg, limitArg: Arg): string[] {
  const s = str(v);
  const limit = limitArg === undefined ? Infinity : int(limitArg);
  if (limit <= 0) return [];
  // Pieces end where a separator starts; the last piece keeps the unsplit rest (Rust's splitn).
  const bounds: [number, number][] = [];
  if (typeof pattern === 'string') {
    if (pattern === '') return [...s].slice(0, limit);
    for (let at = s.indexOf(pattern); at >= 0; at = s.indexOf(pattern, at + pattern.length)) {
      bounds.push([at, at + pattern.length]);
    }
  } else if (pattern instanceof VrlRegex) {
    for (const m of pattern.re.matchAll(s)) bounds.push([m.index as number, (m.index as number) + m[0].length]);
  } else return fail(`expected string or regex, got ${kindOf(pattern)}`);
  const out: string[] = [];
  let last = 0;
  for (const [from, to] of bounds) {
    if (out.length === limit - 1) break;
    out.push(s.slice(last, from));
    last = to;
  }
  out.push(s.slice(last));
  return out;
}

function slice(v: Arg, startArg: Arg, endArg: Arg): VrlValue {
  const value = expect(v, 'string', 'array') as string | PipelineValue[];
  const len = value.length;
  const norm = (i: number) => (i < 0 ? Math.max(len + i, 0) : Math.min(i, len));
  const start = norm(int(startArg));
  const end = endArg === undefined ? len : norm(int(endArg));
  if (start > end) fail(`"start" must be less than or equal to "end"`);
  return value.slice(start, end);
}

function parseRegex(v: Arg, pattern: Arg, numeric: Arg): PipelineRecord {
  const s = str(v);
  if (!(pattern instanceof VrlRegex)) return fail(`expected regex, got ${kindOf(pattern)}`);
  const m = pattern.re.matcher(s);
  if (!m.find()) return fail('could not find any pattern matches');
  const out: PipelineRecord = {};
  if (bool(numeric, false)) for (let i = 0; i <= m.groupCount(); i++) out[String(i)] = m.group(i);
  for (const [name, index] of Object.entries(pattern.re.namedGroups())) out[name] = m.group(index);
  return out;
}

function merge(to: Arg, from: Arg, deep: boolean): PipelineRecord {
  const out: PipelineRecord = { ...obj(to) };
  for (const [k, v] of Object.entries(obj(from))) {
    const cur = out[k];
    out[k] = deep && isObject(cur) && isObject(v) ? merge(cur, v, true) : v;
  }
  return out;
}

const UNITS: Record<string, bigint> = {
  seconds: 1_000_000_000n,
  milliseconds: 1_000_000n,
  microseconds: 1_000n,
  nanoseconds: 1n,
};

const checkFormat = (args: Arg[]) => {
  if (typeof args[1] === 'string') compileFormat(args[1]);
  if (typeof args[2] === 'string') parseTimezone(args[2]);
};

const is = (kind: Kind): FunctionDef => ({ params: p('value'), returns: 'boolean', call: ([v]) => kindOf(v) === kind });
const assertKind = (kind: Kind): FunctionDef => ({ params: p('value'), returns: kind, call: ([v]) => expect(v, kind) });

export const FUNCTIONS: Record<string, FunctionDef> = {
  to_string: { params: p('value'), returns: 'string', call: ([v]) => toText(v) },
  to_int: { params: p('value'), returns: 'integer', call: ([v]) => toInt(v) },
  to_float: { params: p('value'), returns: 'float', call: ([v]) => toFloat(v) },
  to_bool: { params: p('value'), returns: 'boolean', call: ([v]) => toBool(v) },
  string: assertKind('string'),
  int: assertKind('integer'),
  float: assertKind('float'),
  bool: assertKind('boolean'),
  object: assertKind('object'),
  array: assertKind('array'),
  timestamp: assertKind('timestamp'),
  downcase: { params: p('value'), returns: 'string', call: ([v]) => str(v).toLowerCase() },
  upcase: { params: p('value'), returns: 'string', call: ([v]) => str(v).toUpperCase() },
  strip_whitespace: { params: p('value'), returns: 'string', call: ([v]) => str(v).trim() },
  contains: {
    params: p('value substring case_sensitive?'),
    returns: 'boolean',
    call: ([v, s, cs]) => matchText(v, s, cs, (a, b) => a.includes(b)),
  },
  starts_with: {
    params: p('value substring case_sensitive?'),
    returns: 'boolean',
    call: ([v, s, cs]) => matchText(v, s, cs, (a, b) => a.startsWith(b)),
  },
  ends_with: {
    params: p('value substring case_sensitive?'),
    returns: 'boolean',
    call: ([v, s, cs]) => matchText(v, s, cs, (a, b) => a.endsWith(b)),
  },
  replace: { params: p('value pattern with count?'), returns: 'string', call: ([v, pt, w, c]) => replace(v, pt, w, c) },
  split: { params: p('value pattern limit?'), returns: 'array', call: ([v, pt, l]) => split(v, pt, l) },
  join: {
    params: p('value separator?'),
    returns: 'string',
    call: ([v, sep]) =>
      (expect(v, 'array') as PipelineValue[]).map((x) => str(x)).join(sep === undefined ? '' : str(sep)),
  },
  length: {
    params: p('value'),
    returns: 'integer',
    call: ([v]) => {
      const x = expect(v, 'string', 'array', 'object');
      if (typeof x === 'string') return Buffer.byteLength(x);
      return Array.isArray(x) ? x.length : Object.keys(x as PipelineRecord).length;
    },
  },
  slice: { params: p('value start end?'), returns: 'any', call: ([v, s, e]) => slice(v, s, e) },
  parse_json: {
    params: p('value max_depth?'),
    returns: 'any',
    call: ([v, d]) => decodeJson(str(v), d === undefined ? undefined : int(d)),
  },
  encode_json: {
    params: p('value pretty?'),
    returns: 'string',
    call: ([v, pretty]) => encodeJson(v, bool(pretty, false)),
  },
  parse_regex: {
    params: p('value pattern numeric_groups?'),
    returns: 'object',
    call: ([v, pt, n]) => parseRegex(v, pt, n),
    check: ([, pt]) => {
      if (pt !== undefined && !(pt instanceof VrlRegex)) fail("parse_regex needs a regex literal pattern like r'...'");
    },
  },
  parse_timestamp: {
    params: p('value format timezone?'),
    returns: 'timestamp',
    call: ([v, f, tz]) =>
      v instanceof PipelineTimestamp ? v : new PipelineTimestamp(parseTime(str(v), str(f), optStr(tz)), 'ns'),
    check: ([, f, tz]) =>
      checkParseArgs(typeof f === 'string' ? f : undefined, typeof tz === 'string' ? tz : undefined),
  },
  format_timestamp: {
    params: p('value format timezone?'),
    returns: 'string',
    call: ([v, f, tz]) => formatTime(ts(v).nanos, str(f), tzOffset(tz)),
    check: checkFormat,
  },
  now: { params: [], returns: 'timestamp', call: () => new PipelineTimestamp(BigInt(Date.now()) * 1_000_000n, 'ns') },
  to_unix_timestamp: {
    params: p('value unit?'),
    returns: 'integer',
    call: ([v, u]) => {
      const unit = u === undefined ? 'seconds' : str(u);
      const per = UNITS[unit] ?? fail(`invalid unit: ${unit}, expected one of ${Object.keys(UNITS).join(', ')}`);
      return normalizeInt(floorDiv(ts(v).nanos, per));
    },
  },
  is_null: is('null'),
  is_string: is('string'),
  is_integer: is('integer'),
  is_float: is('float'),
  is_boolean: is('boolean'),
  is_object: is('object'),
  is_array: is('array'),
  is_timestamp: is('timestamp'),
  merge: { params: p('to from deep?'), returns: 'object', call: ([t, f, d]) => merge(t, f, bool(d, false)) },
  keys: { params: p('value'), returns: 'array', call: ([v]) => Object.keys(obj(v)) },
  values: { params: p('value'), returns: 'array', call: ([v]) => Object.values(obj(v)).map((x) => deepClone(x)) },
};

/** What `x` holds after `x, err = f(...)` when `f` failed. */
export function defaultOf(kind: Kind | 'any'): VrlValue {
  const defaults: Partial<Record<Kind | 'any', () => VrlValue>> = {
    string: () => '',
    integer: () => 0,
    float: () => 0,
    boolean: () => false,
    object: () => ({}),
    array: () => [],
  };
  return defaults[kind]?.() ?? null;
}
