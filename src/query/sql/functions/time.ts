/**
 * Time functions. `now()` is DataFusion's (nanosecond timestamp of the statement start);
 * `current_timestamp()` is GreptimeDB's (millisecond timestamp).
 */

import { floorDiv } from '../../../shared/bigint-math.js';
import type { DataType } from '../../../shared/types.js';
import { NANOS_PER_UNIT, timeUnitOf } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { civilFromDays, daysFromCivil, parseTimestampNanos } from '../types/timestamps.js';
import { arrowNameOf, isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { mapRows, type ScalarFunction } from './types.js';

function niladic(name: string, returnType: DataType, unitNanos: bigint): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 0) throw planError(`${name} function requires 0 arguments, got ${argTypes.length}`);
      return { argTypes: [], returnType };
    },
    evaluate: (_args, rowCount, ctx) => new Array<Value>(rowCount).fill(floorDiv(ctx.nowNanos, unitNanos)),
  };
}

const toUnixtime: ScalarFunction = {
  kind: 'scalar',
  name: 'to_unixtime',
  bind(argTypes) {
    const t = argTypes[0];
    if (
      argTypes.length !== 1 ||
      t === undefined ||
      !(t === 'String' || t === 'Null' || t === 'Date' || isInteger(t) || timeUnitOf(t))
    ) {
      throw planError(
        `No function matches the given name and argument types 'to_unixtime(${argTypes.map(arrowNameOf).join(', ')})'.`,
      );
    }
    // Timestamps and dates are cast to seconds by the binder, so evaluation only passes them on.
    const arg: DataType = timeUnitOf(t) || t === 'Date' ? 'TimestampSecond' : t;
    return { argTypes: [arg], returnType: 'Int64' };
  },
  evaluate(args, rowCount, ctx) {
    const out = new Array<Value>(rowCount);
    const col = args[0] as Value[];
    for (let r = 0; r < rowCount; r++) {
      const v = col[r] as Value;
      if (typeof v === 'string') {
        const nanos = parseTimestampNanos(v, ctx.timezone);
        out[r] = nanos === null ? null : floorDiv(nanos, NANOS_PER_UNIT.s);
      } else if (typeof v === 'number') {
        out[r] = BigInt(Math.trunc(v));
      } else {
        out[r] = v;
      }
    }
    return out;
  },
};

const DAY_NANOS = 86_400_000_000_000n;

/** UTC calendar fields of a timestamp given in nanoseconds. */
function fieldsOf(nanos: bigint) {
  const days = Number(floorDiv(nanos, DAY_NANOS));
  const ofDay = nanos - BigInt(days) * DAY_NANOS;
  const { year, month, day } = civilFromDays(days);
  const secondOfDay = Number(ofDay / 1_000_000_000n);
  return {
    days,
    year,
    month,
    day,
    ofDay,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor(secondOfDay / 60) % 60,
    second: secondOfDay % 60,
  };
}

function temporalArg(name: string, argTypes: DataType[]): DataType {
  const t = argTypes[1];
  if (argTypes.length !== 2 || (argTypes[0] !== 'String' && argTypes[0] !== 'Null') || t === undefined) {
    throw planError(
      `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'.`,
    );
  }
  if (t === 'String') return 'TimestampNanosecond';
  if (t === 'Null' || t === 'Date' || timeUnitOf(t)) return t === 'Null' ? 'TimestampMillisecond' : t;
  throw planError(
    `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'.`,
  );
}

/** `date_part('year', ts)` (also what `EXTRACT(YEAR FROM ts)` becomes). */
const datePart: ScalarFunction = {
  kind: 'scalar',
  name: 'date_part',
  bind(argTypes) {
    temporalArg('date_part', argTypes);
    // Every input is brought to nanoseconds by the binder, so evaluation knows the unit.
    return { argTypes: ['String', 'TimestampNanosecond'], returnType: 'Int32' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (field, v) => datePartOf(String(field).toLowerCase(), v as bigint)),
};

function datePartOf(field: string, nanos: bigint): Value {
  const f = fieldsOf(nanos);
  switch (field) {
    case 'year':
    case 'years':
      return f.year;
    case 'quarter':
      return Math.floor((f.month - 1) / 3) + 1;
    case 'month':
    case 'months':
      return f.month;
    case 'day':
    case 'days':
      return f.day;
    case 'hour':
    case 'hours':
      return f.hour;
    case 'minute':
    case 'minutes':
      return f.minute;
    case 'second':
    case 'seconds':
      return f.second;
    case 'millisecond':
    case 'milliseconds':
      return f.second * 1000 + Number((f.ofDay % 1_000_000_000n) / 1_000_000n);
    case 'microsecond':
    case 'microseconds':
      return f.second * 1_000_000 + Number((f.ofDay % 1_000_000_000n) / 1_000n);
    case 'dow':
      return (((f.days + 4) % 7) + 7) % 7;
    case 'doy':
      return f.days - daysFromCivil(f.year, 1, 1) + 1;
    case 'epoch':
      return Number(nanos) / 1e9;
    default:
      throw planError(`Date part '${field.toUpperCase()}' not supported`);
  }
}

const TRUNC_NANOS: Record<string, bigint> = {
  microsecond: 1_000n,
  millisecond: 1_000_000n,
  second: 1_000_000_000n,
  minute: 60_000_000_000n,
  hour: 3_600_000_000_000n,
  day: DAY_NANOS,
};

/** `date_trunc('hour', ts)`: the timestamp rounded down to the unit, in UTC. */
const dateTrunc: ScalarFunction = {
  kind: 'scalar',
  name: 'date_trunc',
  bind(argTypes) {
    const t = temporalArg('date_trunc', argTypes);
    const arg = t === 'Date' ? 'TimestampNanosecond' : t;
    return { argTypes: ['String', arg], returnType: arg };
  },
  evaluate(args, rowCount, _ctx, returnType) {
    const unit = timeUnitOf(returnType) ?? 'ns';
    const per = NANOS_PER_UNIT[unit];
    return mapRows(args, rowCount, (field, v) => {
      const nanos = (v as bigint) * per;
      const name = String(field).toLowerCase();
      let truncated: bigint;
      const step = TRUNC_NANOS[name];
      if (name === 'week') {
        // ISO weeks start on Monday; 1970-01-01 was a Thursday.
        const days = floorDiv(nanos, DAY_NANOS);
        truncated = (days - ((((days + 3n) % 7n) + 7n) % 7n)) * DAY_NANOS;
      } else if (step) truncated = floorDiv(nanos, step) * step;
      else {
        const f = fieldsOf(nanos);
        const month =
          name === 'month'
            ? f.month
            : name === 'quarter'
              ? Math.floor((f.month - 1) / 3) * 3 + 1
              : name === 'year'
                ? 1
                : -1;
        if (month < 0) throw planError(`Unsupported date_trunc granularity: ${name}`);
        truncated = BigInt(daysFromCivil(f.year, month, 1)) * DAY_NANOS;
      }
      return floorDiv(truncated, per);
    });
  },
};

/** Time functions by SQL name. */
export const TIME_FUNCTIONS: Record<string, ScalarFunction> = {
  now: niladic('now', 'TimestampNanosecond', 1n),
  current_timestamp: niladic('current_timestamp', 'TimestampMillisecond', NANOS_PER_UNIT.ms),
  localtimestamp: niladic('current_timestamp', 'TimestampMillisecond', NANOS_PER_UNIT.ms),
  to_unixtime: toUnixtime,
  date_part: datePart,
  datepart: datePart,
  date_trunc: dateTrunc,
  datetrunc: dateTrunc,
};
