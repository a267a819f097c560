/**
 * The `time_filter` of a log query → a half-open window `[start, end)` in UTC nanoseconds
 * (reference §11), following GreptimeDB's `TimeFilter::canonicalize`: calendar values (`YYYY`,
 * `YYYY-MM`, `YYYY-MM-DD`) stand for their whole period, datetimes are RFC 3339, and `span` is a
 * whole number of seconds. Errors are 400 code 1004 with the crate's texts.
 */
import { civilFromDays, daysFromCivil } from '../../query/sql/types/timestamps.js';
import { InvalidArgument } from '../../shared/errors.js';
import type { RawTimeFilter } from './log-query.js';

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_DAY = 86_400n * NANOS_PER_SECOND;

/** A canonical window: `start` inclusive, `end` exclusive, nanoseconds since the epoch. */
export interface TimeWindow {
  startNanos: bigint;
  endNanos: bigint;
}

/** A parsed datetime: its instant, and for a calendar value the end of its period. */
interface ParsedTime {
  start: bigint;
  periodEnd: bigint | null;
}

// chrono's `parse_from_rfc3339`: two-digit fields, `T`/`t`/space, any fraction, `Z` or `±HH:MM`.
const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;
const CALENDAR_RE = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function dayStart(year: number, month: number, day: number): bigint {
  return BigInt(daysFromCivil(year, month, day)) * NANOS_PER_DAY;
}

function parseDatetime(text: string): ParsedTime {
  const invalid = (): InvalidArgument => new InvalidArgument(`Invalid date format: ${text}`);
  const rfc = RFC3339_RE.exec(text);
  if (rfc) {
    const [year, month, day, hour, minute, second] = rfc.slice(1, 7).map(Number) as number[] as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) throw invalid();
    const zone = rfc[8] as string;
    let offsetSeconds = 0;
    if (zone !== 'Z' && zone !== 'z') {
      const [h, m] = zone.slice(1).split(':').map(Number) as [number, number];
      if (h > 23 || m > 59) throw invalid();
      offsetSeconds = (zone.startsWith('-') ? -1 : 1) * (h * 3600 + m * 60);
    }
    const fraction = BigInt((rfc[7] ?? '').slice(0, 9).padEnd(9, '0'));
    const local = dayStart(year, month, day) + BigInt(hour * 3600 + minute * 60 + second) * NANOS_PER_SECOND;
    return { start: local + fraction - BigInt(offsetSeconds) * NANOS_PER_SECOND, periodEnd: null };
  }
  const cal = CALENDAR_RE.exec(text);
  if (!cal) throw invalid();
  const year = Number(cal[1]);
  if (cal[2] === undefined) return { start: dayStart(year, 1, 1), periodEnd: dayStart(year + 1, 1, 1) };
  const month = Number(cal[2]);
  if (cal[3] === undefined) {
    if (month < 1 || month > 12) throw invalid();
    const next = month === 12 ? dayStart(year + 1, 1, 1) : dayStart(year, month + 1, 1);
    return { start: dayStart(year, month, 1), periodEnd: next };
  }
  const day = Number(cal[3]);
  if (!validDate(year, month, day)) throw invalid();
  const start = dayStart(year, month, day);
  return { start, periodEnd: start + NANOS_PER_DAY };
}

const I64_MAX = 2n ** 63n - 1n;
// chrono's `Duration::seconds` panics past this; we refuse instead.
const SPAN_SECONDS_MAX = I64_MAX / 1000n;

/** `span`: an `i64` as Rust's `str::parse` reads it (optional sign, digits only), in seconds. */
function parseSpan(text: string): bigint {
  if (!/^[+-]?\d+$/.test(text)) throw new InvalidArgument(`Invalid span format: ${text}`);
  const seconds = BigInt(text);
  if (seconds > SPAN_SECONDS_MAX || seconds < -SPAN_SECONDS_MAX) {
    throw new InvalidArgument(`Invalid span format: ${text}`);
  }
  return seconds * NANOS_PER_SECOND;
}

/** Rust's `Debug` text of a string (quotes, backslashes and control characters escaped). */
function rustDebugString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\0') out += '\\0';
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return `${out}"`;
}

function rustDebugOption(text: string | null): string {
  return text === null ? 'None' : `Some(${rustDebugString(text)})`;
}

/** `Invalid time filter: TimeFilter { start: Some("2024"), end: None, span: None }`. */
function invalidTimeFilter(filter: RawTimeFilter): InvalidArgument {
  const { start, end, span } = filter;
  const debug = `TimeFilter { start: ${rustDebugOption(start)}, end: ${rustDebugOption(end)}, span: ${rustDebugOption(span)} }`;
  return new InvalidArgument(`Invalid time filter: ${debug}`);
}

/** chrono's `to_rfc3339` for UTC: `2024-11-07T00:00:00+00:00`, fraction in 3, 6 or 9 digits if any. */
export function chronoRfc3339(nanos: bigint): string {
  return `${civilText(nanos, 'auto')}+00:00`;
}

/** RFC 3339 with all nine fraction digits and `Z`: what the SQL literals of the window use. */
export function sqlTimestampText(nanos: bigint): string {
  return `${civilText(nanos, 'nanos')}Z`;
}

function civilText(nanos: bigint, fraction: 'auto' | 'nanos'): string {
  let days = nanos / NANOS_PER_DAY;
  let rest = nanos % NANOS_PER_DAY;
  if (rest < 0n) {
    rest += NANOS_PER_DAY;
    days -= 1n;
  }
  const { year, month, day } = civilFromDays(Number(days));
  const secondsOfDay = Number(rest / NANOS_PER_SECOND);
  const sub = rest % NANOS_PER_SECOND;
  const two = (n: number): string => String(n).padStart(2, '0');
  const yearText = year >= 0 && year <= 9999 ? String(year).padStart(4, '0') : (year < 0 ? '-' : '+') + Math.abs(year);
  const time = `${two(Math.floor(secondsOfDay / 3600))}:${two(Math.floor(secondsOfDay / 60) % 60)}:${two(secondsOfDay % 60)}`;
  let frac = '';
  if (fraction === 'nanos') frac = `.${String(sub).padStart(9, '0')}`;
  else if (sub > 0n) {
    const digits = String(sub).padStart(9, '0');
    frac = `.${sub % 1_000_000n === 0n ? digits.slice(0, 3) : sub % 1000n === 0n ? digits.slice(0, 6) : digits}`;
  }
  return `${yearText}-${two(month)}-${two(day)}T${time}${frac}`;
}

/**
 * The window a time filter selects. `start` alone must be a calendar value; `start` + `end` wins
 * over `span`, and a calendar `end` counts to the end of its period; `span` goes forward from
 * `start`, back from `end`, or back from now.
 */
export function canonicalTimeWindow(filter: RawTimeFilter, nowNanos: bigint): TimeWindow {
  const { start, end, span } = filter;
  let window: TimeWindow;
  if (start !== null && end === null && span === null) {
    const parsed = parseDatetime(start);
    if (parsed.periodEnd === null) throw invalidTimeFilter(filter);
    window = { startNanos: parsed.start, endNanos: parsed.periodEnd };
  } else if (start !== null && end !== null) {
    const from = parseDatetime(start).start;
    const to = parseDatetime(end);
    window = { startNanos: from, endNanos: to.periodEnd ?? to.start };
  } else if (span !== null && start !== null) {
    const from = parseDatetime(start).start;
    window = { startNanos: from, endNanos: from + parseSpan(span) };
  } else if (span !== null && end !== null) {
    const to = parseDatetime(end).start;
    window = { startNanos: to - parseSpan(span), endNanos: to };
  } else if (span !== null) {
    window = { startNanos: nowNanos - parseSpan(span), endNanos: nowNanos };
  } else {
    throw invalidTimeFilter(filter);
  }
  if (window.endNanos <= window.startNanos) {
    throw new InvalidArgument(
      `End time ${chronoRfc3339(window.endNanos)} is before start time ${chronoRfc3339(window.startNanos)}`,
    );
  }
  return window;
}
