/**
 * DataFusion's calendar functions beyond time.ts and time-convert.ts: current_date/today,
 * make_date, make_time, to_date, to_char, to_local_time, and GreptimeDB's timezone(). Dates are held as days since the
 * epoch (values.ts). to_char formats with chrono's specifiers like date_format, but in UTC:
 * DataFusion prints a zone-less timestamp as it is stored.
 */
import { floorDiv } from '../../../shared/bigint-math.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, timeUnitOf } from '../../../shared/types.js';
import { daysFromCivil, parseTimestampNanos } from '../types/timestamps.js';
import { isInteger, isTimestamp } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { formatWithPattern, parseTimestampWithFormats } from './time-convert.js';
import { signatureError, typed } from './typed.js';
import { mapRows, type ScalarFunction } from './types.js';

const DAY_NANOS = 86_400_000_000_000n;

function executionError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Execution error: ${message}`);
}

function niladic(
  name: string,
  returnType: DataType,
  value: (nowNanos: bigint, timezone: string) => Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 0) throw signatureError(name, argTypes);
      return { argTypes: [], returnType };
    },
    evaluate: (_args, rowCount, ctx) => new Array<Value>(rowCount).fill(value(ctx.nowNanos, ctx.timezone)),
  };
}

/** `make_date(y, m, d)`: a Date, refused when the fields name no day. */
function makeDate(year: Value, month: Value, day: Value): Value {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  // Date.UTC rolls an impossible day over into the next month, which the check below catches.
  const probe = new Date(Date.UTC(2000, 0, 1));
  probe.setUTCFullYear(y, m - 1, d);
  const valid = m >= 1 && m <= 12 && d >= 1 && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
  if (!valid) throw executionError(`Unable to parse date from ${y}, ${m}, ${d}`);
  return daysFromCivil(y, m, d);
}

/**
 * `to_date(text[, format, ...])` reads a date or timestamp (in UTC), with the first chrono format
 * that fits when formats are given; `to_date(n)` counts days from the epoch.
 */
const toDate: ScalarFunction = {
  kind: 'scalar',
  name: 'to_date',
  bind(argTypes) {
    const t = argTypes[0] as DataType;
    const formatsOk = argTypes.slice(1).every((f) => f === 'String' || f === 'Null');
    if (argTypes.length < 1 || !formatsOk || !(t === 'Null' || t === 'String' || isInteger(t))) {
      throw signatureError('to_date', argTypes);
    }
    const first: DataType = t === 'String' || t === 'Null' ? 'String' : 'Int64';
    return { argTypes: [first, ...argTypes.slice(1).map((): DataType => 'String')], returnType: 'Date' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (v, ...formats) => {
      if (typeof v === 'bigint') return Number(v);
      const nanos =
        formats.length > 0
          ? parseTimestampWithFormats(v as string, formats as string[])
          : parseTimestampNanos(v as string, 'UTC');
      if (nanos === null) throw executionError(`Error parsing '${v as string}' as date`);
      return Number(floorDiv(nanos, DAY_NANOS));
    }),
};

/** `to_char(ts | date, format)`: chrono specifiers, printed in UTC. */
const toChar: ScalarFunction = {
  kind: 'scalar',
  name: 'to_char',
  bind(argTypes) {
    const [t, format] = argTypes as [DataType, DataType];
    if (
      argTypes.length !== 2 ||
      !(t === 'Null' || t === 'Date' || timeUnitOf(t)) ||
      !(format === 'String' || format === 'Null')
    ) {
      throw signatureError('to_char', argTypes);
    }
    return { argTypes: ['TimestampNanosecond', 'String'], returnType: 'String' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (ts, format) => formatWithPattern(ts as bigint, format as string, 0)),
};

/**
 * `make_time(h, m, s)`: a Time32(Second). Integers and strings are cast to Int32 first (the
 * binder's cast, so a bad string fails as CAST would); DataFusion checks each field's loose range
 * before asking for a real time of day, so 24:00:00 fails with the second message.
 */
const makeTime: ScalarFunction = {
  kind: 'scalar',
  name: 'make_time',
  bind(argTypes) {
    const ok = argTypes.length === 3 && argTypes.every((t) => t === 'Null' || t === 'String' || isInteger(t));
    if (!ok) throw signatureError('make_time', argTypes);
    return { argTypes: ['Int32', 'Int32', 'Int32'], returnType: 'TimeSecond' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (hour, minute, second) => {
      const [h, m, s] = [Number(hour), Number(minute), Number(second)];
      if (h < 0 || h > 24) throw executionError(`Hour value '${h}' is out of range`);
      if (m < 0 || m > 60) throw executionError(`Minute value '${m}' is out of range`);
      if (s < 0 || s > 60) throw executionError(`Second value '${s}' is out of range`);
      if (h === 24 || m === 60 || s === 60) throw executionError(`Unable to parse time from ${h}, ${m}, ${s}`);
      return BigInt(h * 3600 + m * 60 + s);
    }),
};

/**
 * `to_local_time(ts)`: DataFusion shifts a zoned timestamp to its wall-clock time and drops the
 * zone. ShoalDB's timestamps carry no zone, which DataFusion hands back unchanged.
 */
const toLocalTime: ScalarFunction = {
  kind: 'scalar',
  name: 'to_local_time',
  bind(argTypes) {
    const t = argTypes[0] as DataType;
    if (argTypes.length !== 1 || !(t === 'Null' || isTimestamp(t))) throw signatureError('to_local_time', argTypes);
    return { argTypes, returnType: t === 'Null' ? 'TimestampNanosecond' : t };
  },
  evaluate: (args, rowCount) => (args[0] as Value[]).slice(0, rowCount),
};

/** The extra calendar functions by SQL name. */
export const TIME_EXTRA_FUNCTIONS: Record<string, ScalarFunction> = {
  current_date: niladic('current_date', 'Date', (now) => Number(floorDiv(now, DAY_NANOS))),
  today: niladic('today', 'Date', (now) => Number(floorDiv(now, DAY_NANOS))),
  timezone: niladic('timezone', 'String', (_now, zone) => zone),
  make_date: typed('make_date', ['integer', 'integer', 'integer'], 0, 'Date', makeDate),
  make_time: makeTime,
  to_local_time: toLocalTime,
  to_date: toDate,
  to_char: toChar,
};
