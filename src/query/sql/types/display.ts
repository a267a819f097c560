/**
 * Arrow's display text of a value (what DataFusion's `CAST(x AS STRING)` gives and what GreptimeDB's
 * table printer shows) for the types whose text is more than `String(v)`: decimals with exactly
 * `scale` fraction digits, TIME, durations in ISO 8601 (`PT3600S`, `P0D`), intervals
 * (`1 days 2 hours`), lists (`[a, b, ]`, NULL items empty), JSON text. Floats print as Rust's
 * `ryu` does (src/shared/ryu.ts).
 */

import { ryuFloat, ryuFloat32 } from '../../../shared/ryu.js';
import {
  type DataType,
  decimalPartsOf,
  durationUnitOf,
  listItemTypeOf,
  NANOS_PER_UNIT,
  type TimeUnit,
  timeOfDayUnitOf,
  timeUnitOf,
} from '../../../shared/types.js';
import { formatDecimal } from './decimal.js';
import { intervalText, unpackInterval } from './interval.js';
import { formatTimeOfDay, fractionDigits } from './time-of-day.js';
import { formatDate, formatTimestamp } from './timestamps.js';
import type { Value } from './value.js';

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
