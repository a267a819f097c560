/**
 * INTERVAL values: Arrow's `IntervalMonthDayNano` (months, days and nanoseconds kept apart,
 * because a month or a day has no fixed length in nanoseconds). Inside expressions they drive
 * `timestamp ± INTERVAL` (an `add_interval` plan node) and the durations of range queries; an
 * interval selected as a value is a bigint packed the way GreptimeDB encodes it in JSON (see
 * `packInterval`). There is no interval column type.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { civilFromDays, daysFromCivil } from './timestamps.js';

/** Arrow's `IntervalMonthDayNano`. */
export interface Interval {
  months: number;
  days: number;
  nanos: bigint;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_DAY = 86_400n * NANOS_PER_SECOND;

/** Nanoseconds (or months/days) per unit, by the unit names Arrow's interval parser accepts. */
const UNITS: Record<string, { months?: number; days?: number; nanos?: bigint }> = {
  century: { months: 1200 },
  decade: { months: 120 },
  year: { months: 12 },
  month: { months: 1 },
  week: { days: 7 },
  day: { days: 1 },
  hour: { nanos: 3600n * NANOS_PER_SECOND },
  minute: { nanos: 60n * NANOS_PER_SECOND },
  second: { nanos: NANOS_PER_SECOND },
  millisecond: { nanos: 1_000_000n },
  microsecond: { nanos: 1_000n },
  nanosecond: { nanos: 1n },
};

const UNIT_ALIASES: Record<string, string> = {
  y: 'year',
  yr: 'year',
  yrs: 'year',
  mon: 'month',
  mons: 'month',
  w: 'week',
  d: 'day',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  m: 'minute',
  min: 'minute',
  mins: 'minute',
  s: 'second',
  sec: 'second',
  secs: 'second',
  ms: 'millisecond',
  us: 'microsecond',
  ns: 'nanosecond',
};

function unitOf(word: string): (typeof UNITS)[string] | null {
  const lower = word.toLowerCase();
  const singular = UNITS[lower] ? lower : lower.endsWith('s') && UNITS[lower.slice(0, -1)] ? lower.slice(0, -1) : null;
  const name = singular ?? UNIT_ALIASES[lower];
  return name ? (UNITS[name] ?? null) : null;
}

function invalid(text: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Parser error: Invalid input syntax for type interval: "${text}"`);
}

const ABBREVIATIONS: Record<string, string> = {
  y: 'years',
  mon: 'months',
  w: 'weeks',
  d: 'days',
  h: 'hours',
  m: 'minutes',
  s: 'seconds',
  millis: 'milliseconds',
  ms: 'milliseconds',
  us: 'microseconds',
  ns: 'nanoseconds',
};

/** ISO 8601 `[-]PnYnMnWnDTnHnMnS` as whole milliseconds (a year is 365 days, a month 30). */
function iso8601Millis(text: string): bigint | null {
  const m =
    /^(-?)P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text);
  if (!m || /^-?P(T)?$/i.test(text)) return null;
  const n = (i: number): number => Number(m[i] ?? 0);
  const days = n(2) * 365 + n(3) * 30 + n(4) * 7 + n(5);
  const millis = BigInt(((days * 24 + n(6)) * 60 + n(7)) * 60 * 1000) + BigInt(Math.round(n(8) * 1000));
  return m[1] === '-' ? -millis : millis;
}

/**
 * GreptimeDB's rewrite of a compact interval (no spaces) before parsing: ISO 8601 durations
 * (`P3Y2DT4H`) become milliseconds, abbreviations (`1y2w3d4h`, `-2mon`, `-1h5m`) are spelled out.
 * Text with spaces is left alone.
 */
export function expandIntervalText(text: string): string {
  const trimmed = text.trim();
  if (/\s/.test(trimmed) || trimmed.length === 0) return text;
  if (/^-?[Pp]/.test(trimmed)) {
    const millis = iso8601Millis(trimmed);
    return millis === null ? text : `${millis} milliseconds`;
  }
  const parts = trimmed.match(/[+-]?\d+|[a-zA-Z]+|\+|-/g) ?? [];
  return parts.map((p) => ABBREVIATIONS[p] ?? p).join(' ');
}

/** Parses `'1 day'`, `'2 hours 30 minutes'`, `'1.5 seconds'` (a bare number means seconds), `'1d2h'`. */
export function parseInterval(text: string): Interval {
  const tokens = expandIntervalText(text)
    .trim()
    .split(/\s+/)
    .filter((t) => t.length > 0);
  if (tokens.length === 0) throw invalid(text);
  const out: Interval = { months: 0, days: 0, nanos: 0n };
  for (let i = 0; i < tokens.length; i += 2) {
    const amountText = tokens[i] as string;
    if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(amountText)) throw invalid(text);
    const unit = tokens[i + 1] === undefined ? UNITS.second : unitOf(tokens[i + 1] as string);
    if (!unit) throw invalid(text);
    const amount = Number(amountText);
    const whole = Math.trunc(amount);
    const fraction = amount - whole;
    if (unit.months !== undefined) {
      // Whole months first (`1.5 years` is 18 months); a fractional month spills into days of 30
      // (Arrow's rule), fractional days into nanoseconds.
      const months = amount * unit.months;
      out.months += Math.trunc(months);
      const days = (months - Math.trunc(months)) * 30;
      out.days += Math.trunc(days);
      out.nanos += BigInt(Math.round((days - Math.trunc(days)) * Number(NANOS_PER_DAY)));
    } else if (unit.days !== undefined) {
      out.days += whole * unit.days;
      out.nanos += BigInt(Math.round(fraction * unit.days * Number(NANOS_PER_DAY)));
    } else {
      const per = unit.nanos as bigint;
      out.nanos += BigInt(whole) * per + BigInt(Math.round(fraction * Number(per)));
    }
  }
  return out;
}

/** The interval an `INTERVAL` expression spells (`INTERVAL '1' DAY` reads as `'1 DAY'`). */
export function intervalOfText(value: string, unit: string | null): Interval {
  return parseInterval(unit ? `${value} ${unit}` : value);
}

/** DataFusion's display of an interval literal, as it appears in column names and errors. */
export function intervalDisplay(i: Interval): string {
  return `IntervalMonthDayNano("IntervalMonthDayNano { months: ${i.months}, days: ${i.days}, nanoseconds: ${i.nanos} }")`;
}

/** Sum or difference of two intervals (component-wise, as Arrow adds them). */
export function combineIntervals(a: Interval, b: Interval, sign: 1 | -1): Interval {
  return { months: a.months + sign * b.months, days: a.days + sign * b.days, nanos: a.nanos + BigInt(sign) * b.nanos };
}

/** The interval in nanoseconds when it has no months part (days count 24 hours), else null. */
export function fixedIntervalNanos(i: Interval): bigint | null {
  if (i.months !== 0) return null;
  return BigInt(i.days) * NANOS_PER_DAY + i.nanos;
}

/** Adds `months` to an epoch-nanosecond instant, clamping the day to the target month's length. */
function addMonths(nanos: bigint, months: number): bigint {
  if (months === 0) return nanos;
  const dayNumber = nanos >= 0n ? nanos / NANOS_PER_DAY : (nanos - NANOS_PER_DAY + 1n) / NANOS_PER_DAY;
  const ofDay = nanos - dayNumber * NANOS_PER_DAY;
  const { year, month, day } = civilFromDays(Number(dayNumber));
  const total = year * 12 + (month - 1) + months;
  const newYear = Math.floor(total / 12);
  const newMonth = total - newYear * 12 + 1;
  const lastDay = civilFromDays(daysFromCivil(newMonth === 12 ? newYear + 1 : newYear, (newMonth % 12) + 1, 1) - 1).day;
  return BigInt(daysFromCivil(newYear, newMonth, Math.min(day, lastDay))) * NANOS_PER_DAY + ofDay;
}

/** `instant + sign × interval` on epoch nanoseconds. */
export function addInterval(nanos: bigint, i: Interval, sign: 1 | -1): bigint {
  const months = addMonths(nanos, sign * i.months);
  return months + BigInt(sign * i.days) * NANOS_PER_DAY + BigInt(sign) * i.nanos;
}

/**
 * An interval as one signed 128-bit integer: months in the top 32 bits, days in the next 32,
 * nanoseconds in the low 64 (GreptimeDB's `IntervalMonthDayNano::to_i128`, its JSON encoding).
 */
export function packInterval(i: Interval): bigint {
  const packed =
    (BigInt.asUintN(32, BigInt(i.months)) << 96n) |
    (BigInt.asUintN(32, BigInt(i.days)) << 64n) |
    BigInt.asUintN(64, i.nanos);
  return BigInt.asIntN(128, packed);
}

/** The inverse of `packInterval`. */
export function unpackInterval(packed: bigint): Interval {
  return {
    months: Number(BigInt.asIntN(32, packed >> 96n)),
    days: Number(BigInt.asIntN(32, packed >> 64n)),
    nanos: BigInt.asIntN(64, packed),
  };
}

/** Arrow's text of an interval: `14 mons 3 days 4 hours 5 mins 6.000100000 secs`, `0 secs`. */
export function intervalText(i: Interval): string {
  if (i.months === 0 && i.days === 0 && i.nanos === 0n) return '0 secs';
  const parts: string[] = [];
  if (i.months !== 0) parts.push(`${i.months} mons`);
  if (i.days !== 0) parts.push(`${i.days} days`);
  if (i.nanos !== 0n) {
    const totalSeconds = i.nanos / NANOS_PER_SECOND;
    const minutesTotal = totalSeconds / 60n;
    const hours = minutesTotal / 60n;
    const minutes = minutesTotal - hours * 60n;
    const seconds = totalSeconds - minutesTotal * 60n;
    const fraction = i.nanos % NANOS_PER_SECOND;
    if (hours !== 0n) parts.push(`${hours} hours`);
    if (minutes !== 0n) parts.push(`${minutes} mins`);
    if (seconds !== 0n || fraction !== 0n) {
      const sign = seconds < 0n || fraction < 0n ? '-' : '';
      const abs = (n: bigint): bigint => (n < 0n ? -n : n);
      parts.push(`${sign}${abs(seconds)}.${abs(fraction).toString().padStart(9, '0')} secs`);
    }
  }
  return parts.join(' ');
}
