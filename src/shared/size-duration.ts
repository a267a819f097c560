/**
 * Human-readable sizes and durations, as GreptimeDB reads and writes them in its TOML files.
 *
 * Sizes follow GreptimeDB's `ReadableSize`: every unit is binary, so `64MB` and `64MiB` both mean
 * 64 × 1024² bytes, a bare number is bytes, and `0` disables whatever the key limits. Durations follow
 * the Rust `humantime` crate: integer components with a unit each, optionally separated by spaces
 * (`1m 30s`, `1h30m`, `500ms`, `0s`); a bare number without a unit is an error there, and here too.
 */

const KIB = 1024;
const MIB = KIB * 1024;
const GIB = MIB * 1024;
const TIB = GIB * 1024;
const PIB = TIB * 1024;

/** Unit suffix → multiplier. Case-sensitive, as in GreptimeDB: `0.5kb` is rejected. */
const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  B: 1,
  K: KIB,
  KB: KIB,
  KiB: KIB,
  M: MIB,
  MB: MIB,
  MiB: MIB,
  G: GIB,
  GB: GIB,
  GiB: GIB,
  T: TIB,
  TB: TIB,
  TiB: TIB,
  P: PIB,
  PB: PIB,
  PiB: PIB,
};

/** Largest byte count we accept; beyond it a JS number no longer holds every integer. */
const SIZE_BYTES_MAX = Number.MAX_SAFE_INTEGER;

/**
 * Parses a size such as `64MiB`, `64MB`, `512KB`, `0.5GB`, `1e6B`, `1024` or `0` into bytes.
 * Fractions are truncated toward zero, as GreptimeDB's `f64 as u64` cast does. Throws a RangeError
 * for anything else (negative, empty, unknown unit, non-ASCII); `trySizeBytes` returns undefined.
 */
export function parseSizeBytes(text: string): number {
  const bytes = trySizeBytes(text);
  if (bytes === undefined) {
    throw new RangeError(
      `invalid size ${JSON.stringify(text)}: expected a number and one of B, KB, KiB, MB, MiB, GB, GiB, TB, TiB, PB, PiB`,
    );
  }
  return bytes;
}

/** `parseSizeBytes` without the exception: `undefined` when the text is not a size. */
export function trySizeBytes(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || !/^[\x20-\x7e]*$/.test(trimmed)) return undefined;
  const match = /^([0-9.eE+-]*)(.*)$/.exec(trimmed);
  if (match === null) return undefined;
  const numberPart = match[1] ?? '';
  const unit = SIZE_UNITS[(match[2] ?? '').trim()];
  if (unit === undefined) return undefined;
  // Rust's f64 parser accepts plain decimal and exponent forms only (no hex, no `Infinity`).
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(numberPart)) return undefined;
  const value = Number(numberPart);
  if (!Number.isFinite(value) || value < 0) return undefined;
  const bytes = Math.trunc(value * unit);
  return bytes <= SIZE_BYTES_MAX ? bytes : undefined;
}

/**
 * Formats bytes the way GreptimeDB serializes a `ReadableSize`: the largest binary unit that divides
 * the value exactly (`64MiB`, `512KiB`), `0KiB` for zero, and `<n>B` when no unit divides it.
 * (GreptimeDB writes that last case as a bare TOML integer; `sizeTomlValue` does the same.)
 */
export function formatSize(bytes: number): string {
  if (bytes === 0) return '0KiB';
  for (const [unit, size] of [
    ['PiB', PIB],
    ['TiB', TIB],
    ['GiB', GIB],
    ['MiB', MIB],
    ['KiB', KIB],
  ] as const) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}

/** The TOML value GreptimeDB would write for a size: a unit string, or an integer when none fits. */
export function sizeTomlValue(bytes: number): string | number {
  return bytes !== 0 && bytes % KIB !== 0 ? bytes : formatSize(bytes);
}

const NS_PER_MS = 1_000_000;

/** Duration unit → nanoseconds, exactly humantime's table (`M` is a month, `m` a minute). */
const DURATION_UNITS_NS: Readonly<Record<string, number>> = {
  nanos: 1,
  nsec: 1,
  ns: 1,
  usec: 1_000,
  us: 1_000,
  µs: 1_000,
  millis: NS_PER_MS,
  msec: NS_PER_MS,
  ms: NS_PER_MS,
  seconds: 1e9,
  second: 1e9,
  secs: 1e9,
  sec: 1e9,
  s: 1e9,
  minutes: 60e9,
  minute: 60e9,
  min: 60e9,
  mins: 60e9,
  m: 60e9,
  hours: 3600e9,
  hour: 3600e9,
  hr: 3600e9,
  hrs: 3600e9,
  h: 3600e9,
  days: 86_400e9,
  day: 86_400e9,
  d: 86_400e9,
  weeks: 604_800e9,
  week: 604_800e9,
  w: 604_800e9,
  months: 2_630_016e9,
  month: 2_630_016e9,
  M: 2_630_016e9,
  years: 31_557_600e9,
  year: 31_557_600e9,
  y: 31_557_600e9,
};

/**
 * Parses a humantime duration (`0s`, `30s`, `500ms`, `1m 30s`, `2h 15min`) into milliseconds.
 * Sub-millisecond parts survive as a fraction (`1500us` → 1.5). Throws a RangeError for an empty
 * string, a number without a unit, an unknown unit, a sign or a decimal point, or an absurdly large
 * value (past about 285 000 years); `tryDurationMs` returns undefined instead.
 */
export function parseDurationMs(text: string): number {
  const ms = tryDurationMs(text);
  if (ms === undefined) {
    throw new RangeError(
      `invalid duration ${JSON.stringify(text)}: expected numbers with units such as "30s", "500ms" or "1m 30s"`,
    );
  }
  return ms;
}

/** `parseDurationMs` without the exception: `undefined` when the text is not a duration. */
export function tryDurationMs(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const component = /\s*(\d+)\s*([A-Za-zµ]+)\s*/y;
  let totalNs = 0;
  let offset = 0;
  while (offset < text.length) {
    component.lastIndex = offset;
    const match = component.exec(text);
    if (match === null) return undefined;
    const unitNs = DURATION_UNITS_NS[match[2] ?? ''];
    if (unitNs === undefined) return undefined;
    totalNs += Number(match[1]) * unitNs;
    offset = component.lastIndex;
  }
  const ms = totalNs / NS_PER_MS;
  return Number.isFinite(ms) && ms <= Number.MAX_SAFE_INTEGER ? ms : undefined;
}

/**
 * Formats milliseconds as humantime does: `0s` for zero, else space-separated components from
 * years down to nanoseconds (`1m 30s`, `500ms`, `1day 2h`). `parseDurationMs` reads it back exactly.
 */
export function formatDuration(ms: number): string {
  const totalNs = Math.round(ms * NS_PER_MS);
  if (totalNs <= 0) return '0s';
  let secs = Math.floor(totalNs / 1e9);
  const nanos = totalNs - secs * 1e9;
  const parts: string[] = [];
  const plural = (value: number, name: string): void => {
    if (value > 0) parts.push(`${value}${name}${value > 1 ? 's' : ''}`);
  };
  const single = (value: number, name: string): void => {
    if (value > 0) parts.push(`${value}${name}`);
  };
  plural(Math.floor(secs / 31_557_600), 'year');
  secs %= 31_557_600;
  plural(Math.floor(secs / 2_630_016), 'month');
  secs %= 2_630_016;
  plural(Math.floor(secs / 86_400), 'day');
  secs %= 86_400;
  single(Math.floor(secs / 3600), 'h');
  single(Math.floor((secs % 3600) / 60), 'm');
  single(secs % 60, 's');
  single(Math.floor(nanos / NS_PER_MS), 'ms');
  single(Math.floor(nanos / 1000) % 1000, 'us');
  single(nanos % 1000, 'ns');
  return parts.join(' ');
}
