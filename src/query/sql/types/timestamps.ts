/**
 * Timestamp text ↔ epoch counts, and time zone arithmetic. Everything is exact BigInt
 * nanoseconds; dates use the proleptic Gregorian calendar via days-from-civil, so years before 100
 * and after 9999 behave (JS `Date.UTC` maps years 0..99 to 1900..1999).
 *
 * Zone-less text is read in the session time zone (GreptimeDB's `x-greptime-timezone` /
 * `SET time_zone`); text with `Z` or an offset ignores it.
 */
import { NANOS_PER_UNIT, type TimeUnit } from '../../../shared/types.js';

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_DAY = 86_400n * NANOS_PER_SECOND;

/** Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Civil date of a day count since 1970-01-01. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const TIMESTAMP_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?\s*(Z|z|UTC|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Parses `YYYY-MM-DD[( |T)HH:MM[:SS[.fffffffff]]][Z|±HH[:MM]]` (surrounding spaces allowed) into
 * nanoseconds since the epoch. Zone-less text is local time in `timezone`. Returns null when the
 * text is not a valid timestamp (bad shape, month 13, February 30, hour 24, ...).
 */
export function parseTimestampNanos(text: string, timezone: string): bigint | null {
  const m = TIMESTAMP_RE.exec(text.trim());
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const fraction = BigInt((m[7] ?? '').padEnd(9, '0'));
  const days = BigInt(daysFromCivil(year, month, day));
  const local = days * NANOS_PER_DAY + BigInt(hour * 3600 + minute * 60 + second) * NANOS_PER_SECOND + fraction;
  const zone = m[8];
  if (zone !== undefined) return local - BigInt(fixedOffsetSeconds(zone) ?? 0) * NANOS_PER_SECOND;
  return localToUtcNanos(local, timezone);
}

/** `Z`, `UTC`, `+08`, `+0800`, `+08:00` → seconds east of UTC; null when not an offset. */
export function fixedOffsetSeconds(zone: string): number | null {
  if (zone === 'Z' || zone === 'z' || zone.toUpperCase() === 'UTC') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  if (hours > 23 || minutes > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** True for `UTC`, fixed offsets and IANA zone names the runtime knows. */
export function isValidTimezone(timezone: string): boolean {
  if (fixedOffsetSeconds(timezone) !== null) return true;
  try {
    formatterOf(timezone);
    return true;
  } catch {
    return false;
  }
}

/** Offset east of UTC, in seconds, of `timezone` at the instant `utcSeconds`. */
export function zoneOffsetSeconds(timezone: string, utcSeconds: number): number {
  const fixed = fixedOffsetSeconds(timezone);
  if (fixed !== null) return fixed;
  const parts = formatterOf(timezone).formatToParts(new Date(utcSeconds * 1000));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  let year = get('year');
  if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
  const local =
    daysFromCivil(year, get('month'), get('day')) * 86400 + get('hour') * 3600 + get('minute') * 60 + get('second');
  return local - utcSeconds;
}

/** Converts local wall-clock nanoseconds in `timezone` to UTC nanoseconds. */
export function localToUtcNanos(localNanos: bigint, timezone: string): bigint {
  const fixed = fixedOffsetSeconds(timezone);
  if (fixed !== null) return localNanos - BigInt(fixed) * NANOS_PER_SECOND;
  const localSeconds = Number(localNanos / NANOS_PER_SECOND);
  // Two rounds settle the offset except inside a DST gap, where either answer is acceptable.
  let offset = zoneOffsetSeconds(timezone, localSeconds);
  offset = zoneOffsetSeconds(timezone, localSeconds - offset);
  return localNanos - BigInt(offset) * NANOS_PER_SECOND;
}

/** Converts a count of nanoseconds to `unit`, rounding toward negative infinity. */
export function nanosToUnitFloor(nanos: bigint, unit: TimeUnit): bigint {
  const d = NANOS_PER_UNIT[unit];
  const q = nanos / d;
  return nanos % d < 0n ? q - 1n : q;
}

/** Converts a count in `from` units to `to` units (truncating toward zero, as Arrow casts do). */
export function convertTimeUnit(value: bigint, from: TimeUnit, to: TimeUnit): bigint {
  if (from === to) return value;
  const f = NANOS_PER_UNIT[from];
  const t = NANOS_PER_UNIT[to];
  return f > t ? value * (f / t) : value / (t / f);
}

const UNIT_DIGITS: Record<TimeUnit, number> = { s: 0, ms: 3, us: 6, ns: 9 };

/**
 * `YYYY-MM-DDTHH:MM:SS[.fff]` in UTC (Arrow's cast of a timestamp to text): the fraction has the
 * unit's digits and is omitted when zero.
 */
export function formatTimestamp(value: bigint, unit: TimeUnit): string {
  const perSecond = NANOS_PER_SECOND / NANOS_PER_UNIT[unit];
  let seconds = value / perSecond;
  let fraction = value % perSecond;
  if (fraction < 0n) {
    fraction += perSecond;
    seconds -= 1n;
  }
  const days = Number(seconds >= 0n ? seconds / 86400n : (seconds - 86399n) / 86400n);
  const secOfDay = Number(seconds - BigInt(days) * 86400n);
  const { year, month, day } = civilFromDays(days);
  const p2 = (n: number): string => String(n).padStart(2, '0');
  const yearText = year >= 0 && year <= 9999 ? String(year).padStart(4, '0') : String(year);
  let out = `${yearText}-${p2(month)}-${p2(day)}T${p2(Math.floor(secOfDay / 3600))}:${p2(Math.floor(secOfDay / 60) % 60)}:${p2(secOfDay % 60)}`;
  if (fraction !== 0n) out += `.${String(fraction).padStart(UNIT_DIGITS[unit], '0')}`;
  return out;
}

/** `YYYY-MM-DD` of a day count since the epoch. */
export function formatDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Days since the epoch of `YYYY-MM-DD` (time part ignored); null when invalid. */
export function parseDateDays(text: string): number | null {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt\s].*)?$/.exec(text.trim());
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return daysFromCivil(year, month, day);
}
