/**
 * Arrow's display text of a value (what DataFusion's `CAST(x AS STRING)` gives and what GreptimeDB's
 * table printer shows) for the types whose text is more than `String(v)`: decimals with exactly
 * `scale` fraction digits, TIME, durations in ISO 8601 (`PT3600S`, `P0D`), intervals
 * (`1 days 2 hours`), lists (`[a, b, ]`, NULL items empty), JSON text. Also the float formatting
 * Rust's `ryu` does, shared with the router's JSON encoders.
 */
import {
  type DataType,
  decimalPartsOf,
  durationUnitOf,
  listItemTypeOf,
  NANOS_PER_UNIT,
  type TimeUnit,
  timeOfDayUnitOf,
  timeUnitOf,
} from '../../shared/types.js';
import { formatDecimal } from './decimal.js';
import { intervalText, unpackInterval } from './interval.js';
import { formatTimeOfDay, fractionDigits } from './time-of-day.js';
import { formatDate, formatTimestamp } from './timestamps.js';
import type { Value } from './value.js';

/**
 * A finite float as Rust's `ryu` prints it: the shortest round-trip digits, plain notation while
 * the value has at most 16 integer digits and at most 4 zeros after the point, otherwise
 * `d.ddde<exp>` with no `+`. JavaScript finds the same shortest digits; only the layout differs
 * (JS switches to exponents at 1e21 and 1e-7 and writes `e+`).
 */
export function ryuFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  // toExponential() with no argument yields the shortest digits that read back to `value`.
  const exponential = Math.abs(value).toExponential();
  return sign + ryuLayout(exponential, F64_PLAIN);
}

/** Where `ryu` stops writing plain digits: 10^max and 10^min (f64 and f32 differ). */
interface PlainRange {
  max: number;
  min: number;
}

const F64_PLAIN: PlainRange = { max: 16, min: -5 };
const F32_PLAIN: PlainRange = { max: 13, min: -6 };

/** Lays out `d.ddde±x` (shortest digits) the way `ryu` does. */
function ryuLayout(exponential: string, plain: PlainRange): string {
  const at = exponential.indexOf('e');
  const digits = exponential.slice(0, at).replace('.', '');
  const kk = Number(exponential.slice(at + 1)) + 1; // 10^(kk-1) <= |value| < 10^kk
  const length = digits.length;
  const k = kk - length;
  if (k >= 0 && kk <= plain.max) return `${digits}${'0'.repeat(k)}.0`;
  if (kk > 0 && kk <= plain.max) return `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  if (kk > plain.min && kk <= 0) return `0.${'0'.repeat(-kk)}${digits}`;
  return `${digits[0]}${length > 1 ? `.${digits.slice(1)}` : ''}e${kk - 1}`;
}

/** A Float32 value (held as the double it widens to) with the shortest digits that read back as it. */
export function ryuFloat32(value: number): string {
  if (value === 0 || !Number.isFinite(value)) return ryuFloat(value);
  const abs = Math.abs(value);
  let exponential = abs.toExponential();
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = abs.toExponential(digits - 1);
    if (Math.fround(Number(candidate)) === Math.fround(abs)) {
      exponential = candidate;
      break;
    }
  }
  return (value < 0 ? '-' : '') + ryuLayout(exponential, F32_PLAIN);
}

/** chrono's ISO 8601 text of a duration: `P0D`, `PT42S`, `PT0.918S`, `-PT1.5S` (no days part). */
export function formatDuration(value: bigint, unit: keyof typeof NANOS_PER_UNIT): string {
  const nanos = value * NANOS_PER_UNIT[unit];
  if (nanos === 0n) return 'P0D';
  const abs = nanos < 0n ? -nanos : nanos;
  const fraction = abs % 1_000_000_000n;
  const trimmed = fraction === 0n ? '' : `.${fraction.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${nanos < 0n ? '-' : ''}PT${abs / 1_000_000_000n}${trimmed}S`;
}

/**
 * A timestamp as Arrow displays it (chrono's `%Y-%m-%dT%H:%M:%S%.f`): the fraction takes 3, 6 or 9
 * digits as the value needs, whatever the unit (`…01.500` for 500 ms even in nanoseconds).
 */
export function timestampText(value: bigint, unit: TimeUnit): string {
  const text = formatTimestamp(value, unit);
  const dot = text.indexOf('.', 19);
  if (dot < 0) return text;
  return text.slice(0, dot) + fractionDigits(BigInt(text.slice(dot + 1).padEnd(9, '0')));
}

/** The display text of a non-NULL value of `type` (NULL list items display as nothing). */
export function displayValue(v: Value, type: DataType): string {
  if (v === null) return '';
  const timestampUnit = timeUnitOf(type);
  if (timestampUnit) return timestampText(v as bigint, timestampUnit);
  if (type === 'Date') return formatDate(v as number);
  const decimal = decimalPartsOf(type);
  if (decimal) return formatDecimal(v as bigint, decimal.scale);
  const timeUnit = timeOfDayUnitOf(type);
  if (timeUnit) return formatTimeOfDay(v as bigint, timeUnit);
  const durationUnit = durationUnitOf(type);
  if (durationUnit) return formatDuration(v as bigint, durationUnit);
  if (type === 'IntervalMonthDayNano') return intervalText(unpackInterval(v as bigint));
  const item = listItemTypeOf(type);
  if (item) return `[${(v as Value[]).map((x) => displayValue(x, item)).join(', ')}]`;
  if (type === 'Float64') return ryuFloat(v as number);
  if (type === 'Float32') return ryuFloat32(v as number);
  return String(v);
}
