/**
 * VRL values as the interpreter holds them: pipeline values (records, arrays, strings, numbers,
 * bigints, booleans, null, timestamps) plus compiled regex literals, which may be passed to
 * functions but never stored in the output. Also the errors the subset raises.
 */
import type { RE2JS } from 're2js';
import { isRecord, type PipelineRecord, PipelineTimestamp, type PipelineValue } from '../value.js';

/** A regex literal `r'...'`, compiled once with re2js. */
export class VrlRegex {
  constructor(
    readonly source: string,
    readonly re: RE2JS,
  ) {}
}

export type VrlValue = PipelineValue | VrlRegex;

/** The program uses something outside the subset, or is malformed. */
export class VrlCompileError extends Error {}

/** Evaluation failed for one record (a failed function call, a type error, ...). */
export class VrlRuntimeError extends Error {}

export type Kind = 'string' | 'integer' | 'float' | 'boolean' | 'null' | 'object' | 'array' | 'timestamp' | 'regex';

export function kindOf(v: VrlValue | undefined): Kind {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
  if (v instanceof PipelineTimestamp) return 'timestamp';
  if (v instanceof VrlRegex) return 'regex';
  return Array.isArray(v) ? 'array' : 'object';
}

export function isObject(v: VrlValue | undefined): v is PipelineRecord {
  return isRecord(v) && !(v instanceof VrlRegex);
}

export function isNumber(v: VrlValue | undefined): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

export function isInteger(v: VrlValue | undefined): v is number | bigint {
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
}

/** Storage has value semantics in VRL: every assignment stores its own copy. */
export function deepClone<T extends VrlValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => deepClone(x)) as T;
  if (isObject(v)) {
    const out: PipelineRecord = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepClone(x);
    return out as T;
  }
  return v;
}

export function deepEqual(a: VrlValue | undefined, b: VrlValue | undefined): boolean {
  if (isNumber(a) && isNumber(b)) {
    return typeof a === typeof b ? a === b : Number(a) === Number(b);
  }
  if (a instanceof PipelineTimestamp && b instanceof PipelineTimestamp) return a.nanos === b.nanos;
  if (a instanceof VrlRegex && b instanceof VrlRegex) return a.source === b.source;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return a === b;
}

/** True when a regex hides anywhere in `v` (regexes cannot leave the program). */
export function containsRegex(v: VrlValue): boolean {
  if (v instanceof VrlRegex) return true;
  if (Array.isArray(v)) return v.some(containsRegex);
  if (isObject(v)) return Object.values(v).some(containsRegex);
  return false;
}

/** An integer result as a number when exact, else as a bigint. */
export function normalizeInt(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}
