/**
 * Time for VRL: parsing (`parse_timestamp`) reuses ../strftime.ts, the chrono-compatible parser
 * of the `date` processor, with IANA zones or fixed offsets; formatting (`format_timestamp`,
 * `to_string`) is here, with the chrono directives
 * `%Y %m %d %e %H %M %S %f %.f %.3f %.6f %.9f %3f %6f %9f %z %:z %Z %s %F %T %b %h %B %a %A %%`
 * and UTC or fixed offsets only. Times are nanoseconds since the epoch (bigint); offsets are
 * minutes east of UTC.
 */
import { compileStrftime, type LocalOffset, parseStrftime, type StrftimeFormat, timeZoneOffset } from '../strftime.js';
import { VrlRuntimeError } from './values.js';

// Formats usually are literals: keep the last few compiled rather than compiling per record.
const parseFormats = new Map<string, StrftimeFormat>();

function parseFormat(format: string): StrftimeFormat {
  let compiled = parseFormats.get(format);
  if (compiled === undefined) {
    try {
      compiled = compileStrftime(format);
    } catch (err) {
      throw new VrlRuntimeError(`invalid format ${JSON.stringify(format)}: ${(err as Error).message}`);
    }
    if (parseFormats.size >= 64) parseFormats.clear();
    parseFormats.set(format, compiled);
  }
  return compiled;
}

function zoneOf(name: string | undefined): LocalOffset | undefined {
  if (name === undefined) return undefined;
  // A fixed offset is a zone too; IANA names go through Intl.
  if (/^[+-]\d{2}:?\d{2}$/.test(name)) {
    const seconds = parseTimezone(name) * 60;
    return () => seconds;
  }
  try {
    return timeZoneOffset(name);
  } catch {
    throw new VrlRuntimeError(`unknown timezone: ${name}`);
  }
}

/** Nanoseconds since the epoch of `text` read with `format`, wall time in `tz` (default UTC). */
export function parseTime(text: string, format: string, tz: string | undefined): bigint {
  const nanos = parseStrftime(parseFormat(format), text, zoneOf(tz));
  if (nanos === undefined) {
    throw new VrlRuntimeError(`unable to parse ${JSON.stringify(text)} with format ${JSON.stringify(format)}`);
  }
  return nanos;
}

/** Compile-time check of a literal parse format and timezone. */
export function checkParseArgs(format: string | undefined, tz: string | undefined): void {
  if (format !== undefined) parseFormat(format);
  zoneOf(tz);
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DIRECTIVES = new Set(['Y', 'm', 'd', 'e', 'H', 'M', 'S', 'f', '.f', '.3f', '.6f', '.9f', '3f', '6f', '9f']);
for (const d of ['z', ':z', 'Z', 's', 'F', 'T', 'b', 'h', 'B', 'a', 'A', '%']) DIRECTIVES.add(d);
const NS = 1_000_000_000n;

type Item = { lit: string } | { dir: string };

/** Splits a format into literals and directives; throws on directives outside the subset. */
export function compileFormat(format: string): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') {
      items.push({ lit: format[i] as string });
      continue;
    }
    const m = /^(\.?[369]?f|:z|.)/s.exec(format.slice(i + 1));
    const dir = m?.[0] ?? '';
    if (!DIRECTIVES.has(dir)) {
      throw new VrlRuntimeError(`unsupported strftime directive %${dir} in ${JSON.stringify(format)}`);
    }
    items.push({ dir });
    i += dir.length;
  }
  return items;
}

/** Formats nanoseconds since the epoch with `format`, shifted by `offset` minutes. */
export function formatTime(nanos: bigint, format: string, offset: number): string {
  const local = nanos + BigInt(offset) * 60n * NS;
  let secs = local / NS;
  let frac = local - secs * NS;
  if (frac < 0n) {
    secs -= 1n;
    frac += NS;
  }
  const date = new Date(Number(secs) * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const fracDigits = (n: number) => pad(Number(frac), 9).slice(0, n);
  let out = '';
  for (const item of compileFormat(format)) {
    if ('lit' in item) {
      out += item.lit;
      continue;
    }
    const d = item.dir;
    if (d === 'Y')
      out += date.getUTCFullYear() < 0 ? `-${pad(-date.getUTCFullYear(), 4)}` : pad(date.getUTCFullYear(), 4);
    else if (d === 'm') out += pad(date.getUTCMonth() + 1);
    else if (d === 'd') out += pad(date.getUTCDate());
    else if (d === 'e') out += String(date.getUTCDate()).padStart(2, ' ');
    else if (d === 'H') out += pad(date.getUTCHours());
    else if (d === 'M') out += pad(date.getUTCMinutes());
    else if (d === 'S') out += pad(date.getUTCSeconds());
    else if (d === 'F') out += `${formatTime(nanos, '%Y-%m-%d', offset)}`;
    else if (d === 'T') out += `${formatTime(nanos, '%H:%M:%S', offset)}`;
    else if (d === 'f' || d === '9f') out += fracDigits(9);
    else if (d === '3f' || d === '6f') out += fracDigits(Number(d[0]));
    else if (d === '.3f' || d === '.6f' || d === '.9f') out += `.${fracDigits(Number(d[1]))}`;
    else if (d === '.f') out += autoFraction(frac);
    else if (d === 'z' || d === ':z') out += offsetText(offset, d === ':z' ? ':' : '');
    else if (d === 'Z') out += offset === 0 ? 'UTC' : offsetText(offset, ':');
    else if (d === 's') out += (nanos >= 0n ? nanos / NS : (nanos - NS + 1n) / NS).toString();
    else if (d === 'b' || d === 'h') out += (MONTH_NAMES[date.getUTCMonth()] as string).slice(0, 3);
    else if (d === 'B') out += MONTH_NAMES[date.getUTCMonth()];
    else if (d === 'a') out += (DAY_NAMES[date.getUTCDay()] as string).slice(0, 3);
    else if (d === 'A') out += DAY_NAMES[date.getUTCDay()];
    else if (d === '%') out += '%';
  }
  return out;
}

/** `.123`, `.123456` or `.123456789`, the shortest that is exact; nothing for whole seconds. */
export function autoFraction(frac: bigint): string {
  if (frac === 0n) return '';
  const s = frac.toString().padStart(9, '0');
  if (s.endsWith('000000')) return `.${s.slice(0, 3)}`;
  if (s.endsWith('000')) return `.${s.slice(0, 6)}`;
  return `.${s}`;
}

function offsetText(offset: number, sep: string): string {
  const a = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}${sep}${String(a % 60).padStart(2, '0')}`;
}

/** `UTC`/`Z` or a fixed offset `+08:00` / `-0530`; named zones other than UTC are not supported. */
export function parseTimezone(tz: string): number {
  if (/^(utc|z|gmt|etc\/utc)$/i.test(tz)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
  if (m === null) throw new VrlRuntimeError(`unsupported timezone: ${tz} (only UTC and fixed offsets like +08:00)`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** RFC 3339 in UTC with the shortest exact fraction, as VRL prints timestamps. */
export function rfc3339(nanos: bigint): string {
  return formatTime(nanos, '%Y-%m-%dT%H:%M:%S%.fZ', 0);
}
