/**
 * The values a pipeline works on: what JSON gives (null, booleans, numbers, strings, arrays,
 * objects) plus timestamps made by `date`, `epoch` or VRL. A record is a plain object; processors
 * read and write its keys in place.
 *
 * Integers and floats are both JS numbers: a number is an integer when `Number.isInteger` says so
 * (so JSON `1.0` infers as an integer, unlike GreptimeDB; see docs/pipelines.md). A bigint is an
 * integer outside the safe range (epoch input, int64/uint64 transforms).
 */

export type TimeUnit = 's' | 'ms' | 'us' | 'ns';

/** A point in time as a count of `unit` since the Unix epoch. */
export class PipelineTimestamp {
  constructor(
    readonly value: bigint,
    readonly unit: TimeUnit,
  ) {}

  /** The same instant in nanoseconds. */
  get nanos(): bigint {
    return this.value * NANOS_PER[this.unit];
  }

  /** The instant in `unit`, truncated toward zero. */
  in(unit: TimeUnit): bigint {
    return (this.value * NANOS_PER[this.unit]) / NANOS_PER[unit];
  }
}

export const NANOS_PER: Record<TimeUnit, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

export type PipelineValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | PipelineTimestamp
  | PipelineValue[]
  | PipelineRecord;

export interface PipelineRecord {
  [key: string]: PipelineValue;
}

export function isRecord(v: unknown): v is PipelineRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PipelineTimestamp);
}

/** Name of a value's type in error messages. */
export function typeNameOf(v: PipelineValue | undefined): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
  if (typeof v === 'bigint') return 'integer';
  if (v instanceof PipelineTimestamp) return 'timestamp';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Orders strings by code point, which is UTF-8 byte order (GreptimeDB sorts keys as bytes). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800..DFFF) stand for code points above U+FFFF, so they sort after U+E000..FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** RFC 3339 in UTC with as many fraction digits as needed (0, 3, 6 or 9), like chrono's `to_rfc3339`. */
export function rfc3339(ts: PipelineTimestamp): string {
  const ns = ts.nanos;
  let secs = ns / 1_000_000_000n;
  let frac = ns % 1_000_000_000n;
  if (frac < 0n) {
    frac += 1_000_000_000n;
    secs -= 1n;
  }
  const iso = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  let fraction = '';
  if (frac !== 0n) {
    const digits = frac.toString().padStart(9, '0');
    fraction = `.${frac % 1_000_000n === 0n ? digits.slice(0, 3) : frac % 1_000n === 0n ? digits.slice(0, 6) : digits}`;
  }
  return `${iso}${fraction}+00:00`;
}

/**
 * Canonical JSON text of a value: object keys in code-point order (GreptimeDB's maps are sorted),
 * no whitespace, timestamps as RFC 3339 strings, non-finite floats as null.
 */
export function toJsonText(v: PipelineValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'bigint':
      return v.toString();
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof PipelineTimestamp) return JSON.stringify(rfc3339(v));
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`;
  const keys = Object.keys(v).sort(compareCodePoints);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${toJsonText(v[k] ?? null)}`).join(',')}}`;
}
