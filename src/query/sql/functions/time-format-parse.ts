/**
 * Reads timestamp text by a chrono `strftime` pattern, for the format arguments of to_timestamp*
 * and to_date (DataFusion hands these to chrono). Supported specifiers: %Y %y %m %d %e %H %I %M
 * %S %f %.f %.3f/%.6f/%.9f %j %p %b %h %B %a %A %z %:z %s %T %D %F %R %%; whitespace in the
 * pattern matches any run of whitespace. A pattern with a date but no time reads as midnight,
 * as DataFusion's fallback to a plain date does. Zone-less text is UTC.
 */
import { MONTH_NAMES, WEEKDAY_NAMES } from '../../../shared/calendar-names.js';
import { daysFromCivil } from '../types/timestamps.js';

const MONTHS = MONTH_NAMES.map((m) => m.slice(0, 3));

/** Fields read so far; unset ones are undefined. */
interface Fields {
  year?: number;
  month?: number;
  day?: number;
  dayOfYear?: number;
  hour?: number;
  hour12?: number;
  pm?: boolean;
  minute?: number;
  second?: number;
  nanos?: number;
  offsetSeconds?: number;
  epochSeconds?: bigint;
}

const EXPANSIONS: Record<string, string> = { T: '%H:%M:%S', D: '%m/%d/%y', F: '%Y-%m-%d', R: '%H:%M' };

class Reader {
  constructor(
    readonly text: string,
    public at = 0,
  ) {}

  digits(min: number, max: number, signed = false): number | null {
    const re = new RegExp(`^${signed ? '[+-]?' : ''}\\d{${min},${max}}`);
    const m = re.exec(this.text.slice(this.at));
    if (!m) return null;
    this.at += m[0].length;
    return Number(m[0]);
  }

  word(names: readonly string[], prefix: number | null): number | null {
    const rest = this.text.slice(this.at).toLowerCase();
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      // Full names first, then their three-letter abbreviations (chrono accepts either).
      for (const candidate of prefix === null ? [name, name.slice(0, 3)] : [name.slice(0, prefix)]) {
        if (rest.startsWith(candidate)) {
          this.at += candidate.length;
          return i;
        }
      }
    }
    return null;
  }
}

function readFraction(r: Reader): number | null {
  const m = /^\d{1,9}/.exec(r.text.slice(r.at));
  if (!m) return null;
  r.at += m[0].length;
  return Number(m[0].padEnd(9, '0'));
}

function readOffset(r: Reader, colon: boolean): number | null {
  const m = (colon ? /^([+-])(\d{2}):(\d{2})/ : /^([+-])(\d{2}):?(\d{2})/).exec(r.text.slice(r.at));
  if (!m) {
    if (r.text[r.at] === 'Z' || r.text[r.at] === 'z') {
      r.at++;
      return 0;
    }
    return null;
  }
  r.at += m[0].length;
  const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60;
  return m[1] === '-' ? -seconds : seconds;
}

/** Reads one specifier into `f`; false when the text does not fit. */
function readSpecifier(spec: string, r: Reader, f: Fields): boolean {
  const set = <K extends keyof Fields>(key: K, v: Fields[K] | null): boolean => {
    if (v === null || v === undefined) return false;
    f[key] = v;
    return true;
  };
  switch (spec) {
    case 'Y':
      return set('year', r.digits(4, 4, true) ?? r.digits(1, 4, true));
    case 'y': {
      const y = r.digits(2, 2);
      return set('year', y === null ? null : y < 70 ? 2000 + y : 1900 + y);
    }
    case 'm':
      return set('month', r.digits(1, 2));
    case 'd':
    case 'e':
      if (spec === 'e' && r.text[r.at] === ' ') r.at++;
      return set('day', r.digits(1, 2));
    case 'j':
      return set('dayOfYear', r.digits(1, 3));
    case 'H':
      return set('hour', r.digits(1, 2));
    case 'I':
      return set('hour12', r.digits(1, 2));
    case 'M':
      return set('minute', r.digits(1, 2));
    case 'S':
      return set('second', r.digits(1, 2));
    case 'f':
    case '3f':
    case '6f':
    case '9f':
      return set('nanos', readFraction(r));
    case '.f':
    case '.3f':
    case '.6f':
    case '.9f':
      // The dot and the digits are optional together, as in chrono.
      if (r.text[r.at] !== '.') return true;
      r.at++;
      return set('nanos', readFraction(r));
    case 'p':
    case 'P': {
      const v = r.word(['am', 'pm'], 2);
      return set('pm', v === null ? null : v === 1);
    }
    case 'b':
    case 'h':
    case 'B': {
      const full = r.word(MONTH_NAMES, null);
      const v = full ?? r.word(MONTHS, 3);
      return set('month', v === null ? null : v + 1);
    }
    case 'a':
    case 'A':
      return r.word(WEEKDAY_NAMES, null) !== null;
    case 'z':
      return set('offsetSeconds', readOffset(r, false));
    case ':z':
      return set('offsetSeconds', readOffset(r, true));
    case 's': {
      const m = /^-?\d+/.exec(r.text.slice(r.at));
      if (!m) return false;
      r.at += m[0].length;
      f.epochSeconds = BigInt(m[0]);
      return true;
    }
    case '%':
      return r.text[r.at++] === '%';
    default:
      return false;
  }
}

function expand(pattern: string): string {
  return pattern.replace(/%([TDFR])/g, (_, c: string) => EXPANSIONS[c] as string);
}

function isValidDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const probe = new Date(Date.UTC(2000, 0, 1));
  probe.setUTCFullYear(year, month - 1, day);
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** Nanoseconds since the epoch of `text` read by `pattern`, or null when it does not fit. */
export function parseWithPattern(text: string, pattern: string): bigint | null {
  const p = expand(pattern);
  const r = new Reader(text);
  const f: Fields = {};
  for (let i = 0; i < p.length; ) {
    const c = p[i] as string;
    if (c === '%') {
      const m = /^%([.:]?\d?[a-zA-Z%])/.exec(p.slice(i));
      if (!m || !readSpecifier(m[1] as string, r, f)) return null;
      i += m[0].length;
    } else if (/\s/.test(c)) {
      while (r.at < text.length && /\s/.test(text[r.at] as string)) r.at++;
      i++;
    } else {
      if (text[r.at] !== c) return null;
      r.at++;
      i++;
    }
  }
  if (r.at !== text.length) return null;
  if (f.epochSeconds !== undefined) return f.epochSeconds * 1_000_000_000n + BigInt(f.nanos ?? 0);
  if (f.year === undefined) return null;
  let month = f.month;
  let day = f.day;
  if (f.dayOfYear !== undefined && month === undefined) {
    const d = new Date(Date.UTC(2000, 0, 1));
    d.setUTCFullYear(f.year, 0, f.dayOfYear);
    if (d.getUTCFullYear() !== f.year) return null;
    month = d.getUTCMonth() + 1;
    day = d.getUTCDate();
  }
  if (month === undefined || day === undefined || !isValidDay(f.year, month, day)) return null;
  let hour = f.hour ?? 0;
  if (f.hour12 !== undefined) {
    if (f.hour12 < 1 || f.hour12 > 12) return null;
    hour = (f.hour12 % 12) + (f.pm ? 12 : 0);
  }
  const minute = f.minute ?? 0;
  const second = f.second ?? 0;
  if (hour > 23 || minute > 59 || second > 60) return null;
  const seconds =
    daysFromCivil(f.year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - (f.offsetSeconds ?? 0);
  return BigInt(seconds) * 1_000_000_000n + BigInt(f.nanos ?? 0);
}
