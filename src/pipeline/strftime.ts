/**
 * Parsing dates with strftime patterns the way Rust's chrono does (GreptimeDB's `date` processor
 * and `custom_time_index=...;datestr;...` use it), so that patterns written for GreptimeDB accept
 * and refuse the same inputs:
 * - numbers take 1..width digits after optional whitespace (`%m` reads `7` or `07`);
 * - `%.f`, `%.3f`, `%.6f`, `%.9f` all read an optional `.` and any number of digits;
 *   `%f` reads up to 9 digits as a count of nanoseconds; `%3f`/`%6f`/`%9f` exactly that many;
 * - whitespace in the pattern matches any run of whitespace, literals match exactly;
 * - the whole input must be consumed, and a date plus hour and minute are required.
 * A pattern is compiled once; parsing is a loop over its items.
 */
import { MONTH_NAMES, WEEKDAY_NAMES } from '../shared/calendar-names.js';

type NumField = 'year' | 'yy' | 'month' | 'day' | 'ordinal' | 'hour' | 'hour12' | 'minute' | 'second' | 'nanos' | 'ts';
type Item =
  | { kind: 'lit'; text: string }
  | { kind: 'space' }
  | { kind: 'num'; field: NumField; width: number }
  | { kind: 'frac'; digits: number } // 0: optional dot, any digits; else exactly `digits` digits, no dot
  | { kind: 'month'; long: boolean }
  | { kind: 'weekday'; long: boolean }
  | { kind: 'ampm' }
  | { kind: 'offset'; permissive: boolean }
  | { kind: 'zonename' };

const NUMERIC: Record<string, [NumField, number]> = {
  Y: ['year', 4],
  y: ['yy', 2],
  m: ['month', 2],
  d: ['day', 2],
  e: ['day', 2],
  j: ['ordinal', 3],
  H: ['hour', 2],
  k: ['hour', 2],
  I: ['hour12', 2],
  l: ['hour12', 2],
  M: ['minute', 2],
  S: ['second', 2],
  f: ['nanos', 9],
  s: ['ts', 20],
};
const EXPANSIONS: Record<string, string> = { T: '%H:%M:%S', D: '%m/%d/%y', F: '%Y-%m-%d', R: '%H:%M', h: '%b' };

/** A compiled pattern. */
export interface StrftimeFormat {
  readonly source: string;
  readonly items: readonly Item[];
}

/** Compiles a pattern; throws Error naming an unsupported specifier. */
export function compileStrftime(source: string): StrftimeFormat {
  const items: Item[] = [];
  compileInto(source, items);
  return { source, items };
}

function compileInto(src: string, items: Item[]): void {
  let i = 0;
  let lit = '';
  const flush = () => {
    if (lit !== '') items.push({ kind: 'lit', text: lit });
    lit = '';
  };
  while (i < src.length) {
    const ch = src[i] as string;
    if (ch !== '%') {
      if (/\s/.test(ch)) {
        flush();
        if (items[items.length - 1]?.kind !== 'space') items.push({ kind: 'space' });
      } else lit += ch;
      i++;
      continue;
    }
    let spec = src.slice(i + 1, i + 2);
    let len = 2;
    // Padding modifiers (`%-d`, `%_d`, `%0d`) change formatting only; parsing ignores them.
    if ((spec === '-' || spec === '_' || spec === '0') && i + 2 < src.length) {
      spec = src.slice(i + 2, i + 3);
      len = 3;
    }
    if (spec === '.' || spec === ':' || spec === '#' || /[369]/.test(spec)) {
      const m = /^(\.[369]?f|\.f|[369]f|:z|#z)/.exec(src.slice(i + 1));
      if (m === null) throw new Error(`unsupported date format specifier: %${spec}`);
      spec = m[1] as string;
      len = 1 + spec.length;
    }
    flush();
    i += len;
    const numeric = NUMERIC[spec];
    if (numeric !== undefined) {
      items.push({ kind: 'num', field: numeric[0], width: numeric[1] });
      continue;
    }
    const expansion = EXPANSIONS[spec];
    if (expansion !== undefined) {
      compileInto(expansion, items);
      continue;
    }
    switch (spec) {
      case '%':
        items.push({ kind: 'lit', text: '%' });
        break;
      case 'n':
      case 't':
        items.push({ kind: 'space' });
        break;
      case 'b':
      case 'B':
        items.push({ kind: 'month', long: spec === 'B' });
        break;
      case 'a':
      case 'A':
        items.push({ kind: 'weekday', long: spec === 'A' });
        break;
      case 'p':
      case 'P':
        items.push({ kind: 'ampm' });
        break;
      case 'z':
      case ':z':
        items.push({ kind: 'offset', permissive: false });
        break;
      case '#z':
        items.push({ kind: 'offset', permissive: true });
        break;
      case 'Z':
        items.push({ kind: 'zonename' });
        break;
      case '.f':
      case '.3f':
      case '.6f':
      case '.9f':
        items.push({ kind: 'frac', digits: 0 });
        break;
      case '3f':
      case '6f':
      case '9f':
        items.push({ kind: 'frac', digits: Number(spec[0]) });
        break;
      default:
        throw new Error(`unsupported date format specifier: %${spec}`);
    }
  }
  flush();
}

interface Parsed {
  year?: number;
  yy?: number;
  month?: number;
  day?: number;
  ordinal?: number;
  hour?: number;
  hour12?: number;
  pm?: boolean;
  minute?: number;
  second?: number;
  nanos?: number;
  ts?: number;
  weekday?: number;
  offset?: number;
}

function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** Reads the digits at [start, end) as a number without allocating a substring. */
function digitsValue(s: string, start: number, end: number): number {
  let v = 0;
  for (let i = start; i < end; i++) v = v * 10 + (s.charCodeAt(i) - 48);
  return v;
}

/** Local wall-clock seconds (as if UTC) → seconds to subtract to get UTC. */
export type LocalOffset = (localSeconds: number) => number;

/**
 * Parses `input` with `format` into nanoseconds since the epoch, or undefined when it does not
 * match. A parse without an offset is wall-clock time in `zone` (UTC when omitted).
 */
export function parseStrftime(format: StrftimeFormat, input: string, zone?: LocalOffset): bigint | undefined {
  const p: Parsed = {};
  let pos = 0;
  for (const item of format.items) {
    switch (item.kind) {
      case 'lit':
        if (!input.startsWith(item.text, pos)) return undefined;
        pos += item.text.length;
        break;
      case 'space':
        while (pos < input.length && /\s/.test(input[pos] as string)) pos++;
        break;
      case 'num': {
        while (input[pos] === ' ' || input[pos] === '\t') pos++;
        let negative = false;
        let width = item.width;
        if (item.field === 'year' && (input[pos] === '-' || input[pos] === '+')) {
          negative = input[pos] === '-';
          pos++;
          width = 20;
        }
        const start = pos;
        while (pos < input.length && pos - start < width && isDigit(input, pos)) pos++;
        if (pos === start) return undefined;
        const v = digitsValue(input, start, pos);
        if (p[item.field] !== undefined && p[item.field] !== v) return undefined;
        p[item.field] = negative ? -v : v;
        break;
      }
      case 'frac': {
        let start = pos;
        if (item.digits === 0) {
          if (input[pos] !== '.') break;
          start = ++pos;
          while (pos < input.length && isDigit(input, pos)) pos++;
          if (pos === start) return undefined;
        } else {
          while (pos < input.length && pos - start < item.digits && isDigit(input, pos)) pos++;
          if (pos - start !== item.digits) return undefined;
        }
        const end = Math.min(pos, start + 9);
        p.nanos = digitsValue(input, start, end) * 10 ** (9 - (end - start));
        break;
      }
      case 'month': {
        const m = matchName(input, pos, MONTH_NAMES, item.long);
        if (m === undefined) return undefined;
        p.month = m[0] + 1;
        pos = m[1];
        break;
      }
      case 'weekday': {
        const m = matchName(input, pos, WEEKDAY_NAMES, item.long);
        if (m === undefined) return undefined;
        p.weekday = m[0];
        pos = m[1];
        break;
      }
      case 'ampm': {
        const s = input.slice(pos, pos + 2).toLowerCase();
        if (s !== 'am' && s !== 'pm') return undefined;
        p.pm = s === 'pm';
        pos += 2;
        break;
      }
      case 'offset': {
        const m = matchOffset(input, pos, item.permissive);
        if (m === undefined) return undefined;
        p.offset = m[0];
        pos = m[1];
        break;
      }
      case 'zonename': {
        const m = /^(UTC|GMT|Z)/i.exec(input.slice(pos));
        if (m === null) return undefined;
        p.offset = 0;
        pos += (m[1] as string).length;
        break;
      }
    }
  }
  if (pos !== input.length) return undefined;
  return resolve(p, zone);
}

/** A month or weekday name at `pos`: the 3-letter form, or (long) the full name or the 3-letter form. */
function matchName(input: string, pos: number, names: readonly string[], long: boolean): [number, number] | undefined {
  const rest = input.slice(pos, pos + 9).toLowerCase();
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (long && rest.startsWith(name)) return [i, pos + name.length];
    if (rest.startsWith(name.slice(0, 3))) return [i, pos + 3];
  }
  return undefined;
}

/** `+hhmm`, `+hh:mm` (and with `permissive`: `Z`, `+hh`), as seconds east of UTC. */
function matchOffset(input: string, pos: number, permissive: boolean): [number, number] | undefined {
  const rest = input.slice(pos);
  if (permissive && (rest[0] === 'Z' || rest[0] === 'z')) return [0, pos + 1];
  const m = (permissive ? /^([+-])(\d\d)(?:[: ]?(\d\d))?/ : /^([+-])(\d\d)[: ]?(\d\d)/).exec(rest);
  if (m === null) return undefined;
  const secs = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60;
  return [m[1] === '-' ? -secs : secs, pos + m[0].length];
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1-based). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function resolve(p: Parsed, zone: LocalOffset | undefined): bigint | undefined {
  const nanos = p.nanos ?? 0;
  if (nanos > 999_999_999) return undefined;
  if (p.ts !== undefined) return BigInt(p.ts) * 1_000_000_000n + BigInt(nanos);
  let year = p.year;
  if (year === undefined && p.yy !== undefined) year = p.yy < 70 ? 2000 + p.yy : 1900 + p.yy;
  if (year === undefined) return undefined;
  let days: number;
  if (p.month !== undefined && p.day !== undefined) {
    const dim = p.month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[p.month - 1];
    if (dim === undefined || p.day < 1 || p.day > dim) return undefined;
    days = daysFromCivil(year, p.month, p.day);
  } else if (p.ordinal !== undefined && p.month === undefined && p.day === undefined) {
    if (p.ordinal < 1 || p.ordinal > (isLeap(year) ? 366 : 365)) return undefined;
    days = daysFromCivil(year, 1, 1) + p.ordinal - 1;
  } else return undefined;
  // 1970-01-01 was a Thursday (index 3 from Monday).
  if (p.weekday !== undefined && ((days % 7) + 7 + 3) % 7 !== p.weekday) return undefined;
  let hour = p.hour;
  if (p.hour12 !== undefined) {
    if (p.pm === undefined || p.hour12 < 1 || p.hour12 > 12) return undefined;
    const h = (p.hour12 % 12) + (p.pm ? 12 : 0);
    if (hour !== undefined && hour !== h) return undefined;
    hour = h;
  } else if (hour !== undefined && p.pm !== undefined && hour >= 12 !== p.pm) return undefined;
  const minute = p.minute;
  const second = p.second ?? 0;
  if (hour === undefined || minute === undefined || hour > 23 || minute > 59 || second > 59) return undefined;
  const local = days * 86400 + hour * 3600 + minute * 60 + second;
  const offset = p.offset ?? (zone === undefined ? 0 : zone(local));
  return BigInt(local - offset) * 1_000_000_000n + BigInt(nanos);
}

/** Resolves an IANA zone name to a local→UTC offset function; throws RangeError for unknown names. */
export function timeZoneOffset(name: string): LocalOffset | undefined {
  if (/^(utc|z|etc\/utc|gmt)$/i.test(name)) return undefined;
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const cache = new Map<number, number>();
  // Offset (seconds east) in force at a UTC instant; zones change offsets only on quarter hours.
  const offsetAt = (utc: number): number => {
    const bucket = Math.floor(utc / 900);
    const hit = cache.get(bucket);
    if (hit !== undefined) return hit;
    const parts: Record<string, number> = {};
    for (const part of fmt.formatToParts(new Date(bucket * 900_000))) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    const wall =
      daysFromCivil(parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1) * 86400 +
      (parts.hour ?? 0) * 3600 +
      (parts.minute ?? 0) * 60 +
      (parts.second ?? 0);
    const offset = wall - bucket * 900;
    if (cache.size > 4096) cache.clear();
    cache.set(bucket, offset);
    return offset;
  };
  return (local: number) => {
    const first = offsetAt(local);
    const second = offsetAt(local - first);
    if (first === second) return first;
    // Across a transition: keep the reading that maps back to the same wall-clock time.
    return offsetAt(local - second) === second ? second : first;
  };
}
