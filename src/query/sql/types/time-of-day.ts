/**
 * TIME values (Arrow's Time32/Time64): a count of the type's unit since midnight, as a bigint.
 * Casting a timestamp to TIME keeps its time of day in UTC; text is read as `HH:MM[:SS[.f]]`.
 * Display follows chrono's `NaiveTime`: `01:02:03`, then 3, 6 or 9 fraction digits as needed.
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, NANOS_PER_UNIT, type TimeUnit } from '../../../shared/types.js';
import { arrowNameOf } from './type-names.js';

const NANOS_PER_DAY = 86_400_000_000_000n;

/** Fraction digits as chrono prints them: none, then milli, micro or nano precision. */
export function fractionDigits(nanos: bigint): string {
  if (nanos === 0n) return '';
  const text = nanos.toString().padStart(9, '0');
  if (nanos % 1_000_000n === 0n) return `.${text.slice(0, 3)}`;
  if (nanos % 1_000n === 0n) return `.${text.slice(0, 6)}`;
  return `.${text}`;
}

/** `HH:MM:SS[.fff]` of a count of `unit` since midnight. */
export function formatTimeOfDay(value: bigint, unit: TimeUnit): string {
  const nanos = (((value * NANOS_PER_UNIT[unit]) % NANOS_PER_DAY) + NANOS_PER_DAY) % NANOS_PER_DAY;
  const seconds = nanos / 1_000_000_000n;
  const two = (n: bigint): string => n.toString().padStart(2, '0');
  return `${two(seconds / 3600n)}:${two((seconds / 60n) % 60n)}:${two(seconds % 60n)}${fractionDigits(nanos % 1_000_000_000n)}`;
}

/** The time of day of an epoch count of `from` units, as a count of `to` units since midnight. */
export function timeOfDayOfTimestamp(value: bigint, from: TimeUnit, to: TimeUnit): bigint {
  const nanos = value * NANOS_PER_UNIT[from];
  return floorDiv(nanos - floorDiv(nanos, NANOS_PER_DAY) * NANOS_PER_DAY, NANOS_PER_UNIT[to]);
}

/** A time of day converted between units (truncating toward the earlier instant). */
export function convertTimeOfDay(value: bigint, from: TimeUnit, to: TimeUnit): bigint {
  return floorDiv(value * NANOS_PER_UNIT[from], NANOS_PER_UNIT[to]);
}

/** `HH:MM[:SS[.fraction]]` as a count of `unit` since midnight; Arrow's cast error otherwise. */
export function parseTimeOfDay(text: string, type: DataType, unit: TimeUnit): bigint {
  const m = /^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*$/.exec(text);
  const hours = Number(m?.[1]);
  const minutes = Number(m?.[2]);
  const seconds = Number(m?.[3] ?? 0);
  if (!m || hours > 23 || minutes > 59 || seconds > 59) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `Cast error: Cannot cast string '${text}' to value of ${arrowNameOf(type)} type`,
    );
  }
  const nanos =
    BigInt((hours * 60 + minutes) * 60 + seconds) * 1_000_000_000n + BigInt((m[4] ?? '').padEnd(9, '0') || '0');
  return nanos / NANOS_PER_UNIT[unit];
}
