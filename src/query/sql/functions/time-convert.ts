/**
 * Conversions to and from timestamps: `to_timestamp[_seconds|_millis|_micros|_nanos]`,
 * `from_unixtime`, `date_bin` and `date_format`. Text is read as UTC unless it names a zone
 * (DataFusion's rule); `date_format` prints in the session time zone (GreptimeDB's rule).
 * `date_bin` takes its stride as an interval, which the binder passes as a nanosecond count.
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, NANOS_PER_UNIT, type TimeUnit, timestampTypeOf, timeUnitOf } from '../../../shared/types.js';
import { civilFromDays, daysFromCivil, parseTimestampNanos, zoneOffsetSeconds } from '../types/timestamps.js';
import { isFloat, isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { dateBin } from './date-bin.js';
import { noMatch } from './no-match.js';
import { parseWithPattern } from './time-format-parse.js';
import { mapRows, type ScalarFunction } from './types.js';

/**
 * Reads `text` with the first of the row's chrono formats that fits (NULL formats are skipped),
 * as DataFusion's `to_timestamp(text, format, ...)` does; none fitting is an execution error.
 */
export function parseTimestampWithFormats(text: string, formats: Array<string | null>): bigint {
  let last = '';
  for (const format of formats) {
    if (format === null) continue;
    last = format;
    const nanos = parseWithPattern(text, format);
    if (nanos !== null) return nanos;
  }
  throw new DbError(
    ErrorCode.EngineExecuteQuery,
    `Execution error: Error parsing timestamp from '${text}' using format '${last}'`,
  );
}

/** `to_timestamp*(x)`: text, a count of `inputUnit`s (integers; floats for seconds) or a timestamp. */
function toTimestamp(name: string, unit: TimeUnit, inputUnit: TimeUnit): ScalarFunction {
  const returnType = timestampTypeOf(unit);
  const per = NANOS_PER_UNIT[unit];
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const t = argTypes[0];
      if (argTypes.length < 1 || t === undefined) noMatch(name, argTypes);
      if (!(t === 'Null' || t === 'String' || isInteger(t) || isFloat(t) || timeUnitOf(t))) noMatch(name, argTypes);
      // Timestamps are cast to a count of `inputUnit`s, so they convert like integers.
      const arg: DataType = timeUnitOf(t) ? timestampTypeOf(inputUnit) : isInteger(t) ? 'Int64' : t;
      return { argTypes: [arg, ...argTypes.slice(1).map((): DataType => 'String')], returnType };
    },
    evaluate(args, rowCount) {
      const convert = (v: Value, formats: Array<string | null>): Value => {
        if (typeof v === 'string') {
          if (formats.length > 0) return floorDiv(parseTimestampWithFormats(v, formats), per);
          const nanos = parseTimestampNanos(v, 'UTC');
          if (nanos === null) {
            throw new DbError(ErrorCode.EngineExecuteQuery, `Execution error: Error parsing timestamp from '${v}'`);
          }
          return floorDiv(nanos, per);
        }
        if (typeof v === 'number') return BigInt(Math.trunc((v * Number(NANOS_PER_UNIT[inputUnit])) / Number(per)));
        return floorDiv((v as bigint) * NANOS_PER_UNIT[inputUnit], per);
      };
      const values = args[0] ?? [];
      const formats = args.slice(1);
      const out = new Array<Value>(rowCount);
      for (let r = 0; r < rowCount; r++) {
        const v = values[r] ?? null;
        const rowFormats = formats.map((f) => (f[r] ?? null) as string | null);
        // Formats given but all NULL: NULL, as any NULL argument gives.
        const noFormat = rowFormats.length > 0 && rowFormats.every((f) => f === null);
        out[r] = v === null || noFormat ? null : convert(v, rowFormats);
      }
      return out;
    },
  };
}

/** `from_unixtime(seconds)`: a seconds count as a timestamp. */
const fromUnixtime: ScalarFunction = {
  kind: 'scalar',
  name: 'from_unixtime',
  bind(argTypes) {
    const t = argTypes[0];
    if (argTypes.length !== 1 || t === undefined || !(t === 'Null' || isInteger(t) || isFloat(t))) {
      noMatch('from_unixtime', argTypes);
    }
    return {
      argTypes: [t === 'Null' || isInteger(t as DataType) ? 'Int64' : 'Float64'],
      returnType: 'TimestampSecond',
    };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (v) => (typeof v === 'number' ? BigInt(Math.trunc(v)) : (v as bigint))),
};

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** chrono's `strftime` for the specifiers MySQL-style clients use. */
export function formatWithPattern(nanos: bigint, pattern: string, offsetSeconds: number): string {
  const local = nanos + BigInt(offsetSeconds) * 1_000_000_000n;
  const days = Number(floorDiv(local, 86_400_000_000_000n));
  const ofDay = local - BigInt(days) * 86_400_000_000_000n;
  const { year, month, day } = civilFromDays(days);
  const seconds = Number(ofDay / 1_000_000_000n);
  const fraction = ofDay % 1_000_000_000n;
  const hour = Math.floor(seconds / 3600);
  const minute = Math.floor(seconds / 60) % 60;
  const second = seconds % 60;
  const p2 = (n: number): string => String(n).padStart(2, '0');
  const weekday = (((days + 4) % 7) + 7) % 7;
  const offset = (sep: string): string => {
    const sign = offsetSeconds < 0 ? '-' : '+';
    const abs = Math.abs(offsetSeconds);
    return `${sign}${p2(Math.floor(abs / 3600))}${sep}${p2(Math.floor(abs / 60) % 60)}`;
  };
  return pattern.replace(
    /%(\.?)([0-9]?)(:?)([a-zA-Z%])/g,
    (whole, dot: string, width: string, colon: string, spec: string) => {
      if (colon) return spec === 'z' && !dot && !width ? offset(':') : whole;
      if (spec === 'f') {
        const nine = String(fraction).padStart(9, '0');
        if (width) return `${dot}${nine.slice(0, Number(width))}`;
        if (!dot) return nine;
        // `%.f`: as many digits as the value needs, in groups of three; nothing for whole seconds.
        if (fraction === 0n) return '';
        const trimmed = nine.replace(/0+$/, '');
        return `.${trimmed.padEnd(Math.ceil(trimmed.length / 3) * 3, '0')}`;
      }
      if (dot) return whole;
      switch (spec) {
        case 'Y':
          return String(year).padStart(4, '0');
        case 'y':
          return p2(year % 100);
        case 'm':
          return p2(month);
        case 'd':
          return p2(day);
        case 'e':
          return String(day).padStart(2, ' ');
        case 'H':
          return p2(hour);
        case 'I':
          return p2(hour % 12 === 0 ? 12 : hour % 12);
        case 'p':
          return hour < 12 ? 'AM' : 'PM';
        case 'M':
          return p2(minute);
        case 'S':
          return p2(second);
        case 'j':
          return String(days - daysFromCivil(year, 1, 1) + 1).padStart(3, '0');
        case 'a':
          return (WEEKDAYS[weekday] as string).slice(0, 3);
        case 'A':
          return WEEKDAYS[weekday] as string;
        case 'b':
        case 'h':
          return (MONTHS[month - 1] as string).slice(0, 3);
        case 'B':
          return MONTHS[month - 1] as string;
        case 'z':
          return offset('');
        case 'Z':
          // chrono prints a fixed offset's name as the offset itself.
          return offsetSeconds === 0 ? 'UTC' : offset(':');
        case 's':
          return String(floorDiv(nanos, 1_000_000_000n));
        case 'F':
          return `${String(year).padStart(4, '0')}-${p2(month)}-${p2(day)}`;
        case 'T':
          return `${p2(hour)}:${p2(minute)}:${p2(second)}`;
        case '%':
          return '%';
        default:
          return whole;
      }
    },
  );
}

/** `date_format(ts, pattern)`: the timestamp printed in the session time zone. */
const dateFormat: ScalarFunction = {
  kind: 'scalar',
  name: 'date_format',
  bind(argTypes) {
    const [ts, pattern] = argTypes;
    const unit = ts === undefined ? null : timeUnitOf(ts);
    if (
      argTypes.length !== 2 ||
      !(unit || ts === 'Null' || ts === 'Date') ||
      !(pattern === 'String' || pattern === 'Null')
    ) {
      noMatch('date_format', argTypes);
    }
    return { argTypes: ['TimestampNanosecond', 'String'], returnType: 'String' };
  },
  evaluate: (args, rowCount, ctx) =>
    mapRows(args, rowCount, (ts, pattern) => {
      const nanos = ts as bigint;
      const offset = zoneOffsetSeconds(ctx.timezone, Number(floorDiv(nanos, 1_000_000_000n)));
      return formatWithPattern(nanos, pattern as string, offset);
    }),
};

/** Timestamp conversion functions by SQL name. */
export const TIME_CONVERT_FUNCTIONS: Record<string, ScalarFunction> = {
  to_timestamp: toTimestamp('to_timestamp', 'ns', 's'),
  to_timestamp_seconds: toTimestamp('to_timestamp_seconds', 's', 's'),
  to_timestamp_millis: toTimestamp('to_timestamp_millis', 'ms', 'ms'),
  to_timestamp_micros: toTimestamp('to_timestamp_micros', 'us', 'us'),
  to_timestamp_nanos: toTimestamp('to_timestamp_nanos', 'ns', 'ns'),
  from_unixtime: fromUnixtime,
  date_bin: dateBin,
  date_format: dateFormat,
};
