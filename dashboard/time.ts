/** Time values as the server's JSON gives them: integers in the unit of the column type. */

const UNIT_MS: Record<string, number> = {
  TimestampSecond: 1000,
  TimestampMillisecond: 1,
  TimestampMicrosecond: 0.001,
  TimestampNanosecond: 0.000001,
};

export function isTimestampType(type: string): boolean {
  return type in UNIT_MS;
}

/** Milliseconds since the epoch of a timestamp cell, or null. */
export function timestampMs(value: unknown, type: string): number | null {
  const scale = UNIT_MS[type];
  if (scale === undefined) return null;
  if (typeof value === 'number') return value * scale;
  if (typeof value === 'string') {
    const n = Number(value);
    if (Number.isFinite(n)) return n * scale;
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** Choices of the time-range pickers, in seconds back from now. */
export const RANGES: Array<[string, string]> = [
  ['300', 'Last 5 minutes'],
  ['900', 'Last 15 minutes'],
  ['3600', 'Last hour'],
  ['21600', 'Last 6 hours'],
  ['86400', 'Last 24 hours'],
  ['604800', 'Last 7 days'],
  ['2592000', 'Last 30 days'],
];

/** A step giving about 250 points over the range, rounded to a whole second. */
export function autoStep(rangeS: number): number {
  return Math.max(1, Math.round(rangeS / 250));
}
