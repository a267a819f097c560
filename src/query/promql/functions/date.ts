/**
 * Calendar functions over Unix seconds, in UTC. Prometheus truncates the value to whole seconds
 * first. The civil date comes from day arithmetic rather than `Date` so the hot path does not
 * allocate and years far outside `Date`'s range still work; non-finite input gives NaN.
 */

const SECONDS_PER_DAY = 86_400;

/** Fields of the last `civilDate` call (module-level so no object is allocated per sample). */
const civil = { year: 0, month: 0, day: 0 };

/** Whole days since 1970-01-01 (floored, so times before 1970 land on the right day). */
function daysSinceEpoch(seconds: number): number {
  return Math.floor(Math.trunc(seconds) / SECONDS_PER_DAY);
}

/** Seconds since midnight UTC. */
function secondOfDay(seconds: number): number {
  const whole = Math.trunc(seconds);
  return whole - Math.floor(whole / SECONDS_PER_DAY) * SECONDS_PER_DAY;
}

/**
 * Proleptic Gregorian year/month/day of a day count, by counting 400-year eras that start on
 * 1 March so the leap day falls at the end of each year.
 */
function civilDate(days: number): void {
  const shifted = days + 719_468; // days from 0000-03-01 to 1970-01-01
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  civil.day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  civil.month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  civil.year = yearOfEra + era * 400 + (civil.month <= 2 ? 1 : 0);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Minute of the hour, 0-59. */
export function minute(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  return Math.floor(secondOfDay(v) / 60) % 60;
}

/** Hour of the day, 0-23. */
export function hour(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  return Math.floor(secondOfDay(v) / 3600);
}

/** Day of the week, 0 (Sunday) to 6. */
export function dayOfWeek(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  // 1970-01-01 was a Thursday.
  const weekday = (daysSinceEpoch(v) + 4) % 7;
  return weekday < 0 ? weekday + 7 : weekday;
}

/** Day of the month, 1-31. */
export function dayOfMonth(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  civilDate(daysSinceEpoch(v));
  return civil.day;
}

/** Day of the year, 1-366. */
export function dayOfYear(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  civilDate(daysSinceEpoch(v));
  const leapDay = civil.month > 2 && isLeapYear(civil.year) ? 1 : 0;
  return (DAYS_BEFORE_MONTH[civil.month - 1] as number) + civil.day + leapDay;
}

/** Number of days in the value's month, 28-31. */
export function daysInMonth(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  civilDate(daysSinceEpoch(v));
  if (civil.month === 2 && isLeapYear(civil.year)) return 29;
  return DAYS_IN_MONTH[civil.month - 1] as number;
}

/** Month of the year, 1-12. */
export function month(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  civilDate(daysSinceEpoch(v));
  return civil.month;
}

/** The year. */
export function year(v: number): number {
  if (!Number.isFinite(v)) return Number.NaN;
  civilDate(daysSinceEpoch(v));
  return civil.year;
}
