/**
 * Aggregate functions as partial states: shards `update` per group, the router `merge`s the
 * states of equal groups and `finish`es them. Result types follow DataFusion: count → Int64,
 * sum of signed integers → Int64 (wrapping), of unsigned → UInt64, of floats → Float64, of
 * Decimal(p, s) → Decimal(p + 10, s); avg → Float64, of Decimal(p, s) → Decimal(p + 4, s + 4)
 * (exact, truncated); min/max → the argument's type.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, decimalPartsOf, decimalTypeOf } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { pow10 } from '../types/decimal.js';
import {
  arrowNameOf,
  DECIMAL_PRECISION_MAX,
  isDecimal,
  isFloat,
  isNumeric,
  isUnsignedInteger,
} from '../types/type-names.js';
import { compareValues, type Value } from '../types/values.js';
import type { AggregateFunction, Signature } from './types.js';

function noMatch(name: string, argTypes: DataType[]): DbError {
  return planError(
    `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
  );
}

function oneArg(name: string, argTypes: DataType[]): DataType {
  if (argTypes.length !== 1) {
    throw planError(`The function '${name}' expected 1 arguments but received ${argTypes.length}`);
  }
  return argTypes[0] as DataType;
}

interface CountState {
  count: number;
}

const count: AggregateFunction<CountState> = {
  kind: 'aggregate',
  name: 'count',
  bind: (argTypes) => ({ argTypes, returnType: 'Int64' }),
  create: () => ({ count: 0 }),
  update(states, groupOf, args, rowCount) {
    if (args.length === 0) {
      for (let r = 0; r < rowCount; r++) (states[groupOf[r] as number] as CountState).count++;
      return;
    }
    for (let r = 0; r < rowCount; r++) {
      if (args.every((a) => a[r] !== null)) (states[groupOf[r] as number] as CountState).count++;
    }
  },
  merge(into, from) {
    into.count += from.count;
  },
  updateFloat64Run(state, values, valid, from, to) {
    if (values === null || valid === undefined) {
      state.count += to - from;
      return;
    }
    for (let r = from; r < to; r++) if (valid[r] !== 0) state.count++;
  },
  updateSummary(state, rows, present) {
    state.count += present ?? rows;
  },
  finish: (state) => BigInt(state.count),
};

interface SumState {
  sum: number | bigint | null;
}

function sumType(name: string, argTypes: DataType[]): Signature {
  const t = oneArg(name, argTypes);
  if (t === 'Null') return { argTypes, returnType: 'Int64' };
  const decimal = decimalPartsOf(t);
  if (decimal) {
    return {
      argTypes,
      returnType: decimalTypeOf(Math.min(DECIMAL_PRECISION_MAX, decimal.precision + 10), decimal.scale),
    };
  }
  if (!isNumeric(t)) throw noMatch(name, argTypes);
  const returnType: DataType = isFloat(t) ? 'Float64' : isUnsignedInteger(t) ? 'UInt64' : 'Int64';
  return { argTypes, returnType };
}

const sum: AggregateFunction<SumState> = {
  kind: 'aggregate',
  name: 'sum',
  bind: (argTypes) => sumType('sum', argTypes),
  create: () => ({ sum: null }),
  update(states, groupOf, args, rowCount, argTypes) {
    const col = args[0] as Value[];
    const asFloat = isFloat(argTypes[0] as DataType);
    for (let r = 0; r < rowCount; r++) {
      const v = col[r];
      if (v === null || v === undefined) continue;
      const state = states[groupOf[r] as number] as SumState;
      if (asFloat) state.sum = ((state.sum as number | null) ?? 0) + (v as number);
      else state.sum = ((state.sum as bigint | null) ?? 0n) + (typeof v === 'bigint' ? v : BigInt(v as number));
    }
  },
  updateFloat64Run(state, values, valid, from, to) {
    const f64 = values as Float64Array;
    let sum = state.sum as number | null;
    for (let r = from; r < to; r++) if (valid === undefined || valid[r] !== 0) sum = (sum ?? 0) + (f64[r] as number);
    state.sum = sum;
  },
  updateSummary(state, _rows, present, sum) {
    if (present === null || present === 0) return;
    state.sum = ((state.sum as number | null) ?? 0) + sum;
  },
  merge(into, from) {
    if (from.sum === null) return;
    if (into.sum === null) into.sum = from.sum;
    else if (typeof into.sum === 'bigint') into.sum += from.sum as bigint;
    else into.sum += from.sum as number;
  },
  finish(state, returnType) {
    if (state.sum === null) return null;
    if (returnType === 'Float64') return Number(state.sum);
    if (isDecimal(returnType)) return state.sum;
    const s = typeof state.sum === 'bigint' ? state.sum : BigInt(state.sum);
    return returnType === 'UInt64' ? BigInt.asUintN(64, s) : BigInt.asIntN(64, s);
  },
};

/**
 * `sum` is a float, or for decimals the exact unscaled sum (a bigint), with the argument's scale
 * kept so `finish` can rescale to the result's scale.
 */
interface AvgState {
  sum: number | bigint;
  count: number;
  scale?: number | undefined;
}

const avg: AggregateFunction<AvgState> = {
  kind: 'aggregate',
  name: 'avg',
  bind(argTypes) {
    const t = oneArg('avg', argTypes);
    if (t === 'Null')
      throw new DbError(ErrorCode.EngineExecuteQuery, 'Execution error: AvgAccumulator for (Null --> Float64)');
    const decimal = decimalPartsOf(t);
    if (decimal) {
      const precision = Math.min(DECIMAL_PRECISION_MAX, decimal.precision + 4);
      return { argTypes, returnType: decimalTypeOf(precision, Math.min(DECIMAL_PRECISION_MAX, decimal.scale + 4)) };
    }
    if (!isNumeric(t)) throw noMatch('avg', argTypes);
    return { argTypes, returnType: 'Float64' };
  },
  create: () => ({ sum: 0, count: 0 }),
  update(states, groupOf, args, rowCount, argTypes) {
    const col = args[0] as Value[];
    const decimal = decimalPartsOf(argTypes[0] as DataType);
    for (let r = 0; r < rowCount; r++) {
      const v = col[r];
      if (v === null || v === undefined) continue;
      const state = states[groupOf[r] as number] as AvgState;
      if (decimal) {
        state.sum = BigInt(state.sum) + (v as bigint);
        state.scale = decimal.scale;
      } else state.sum = (state.sum as number) + Number(v);
      state.count++;
    }
  },
  updateFloat64Run(state, values, valid, from, to) {
    const f64 = values as Float64Array;
    let sum = state.sum as number;
    let count = state.count;
    for (let r = from; r < to; r++) {
      if (valid !== undefined && valid[r] === 0) continue;
      sum += f64[r] as number;
      count++;
    }
    state.sum = sum;
    state.count = count;
  },
  updateSummary(state, _rows, present, sum) {
    if (present === null || present === 0) return;
    state.sum = (state.sum as number) + sum;
    state.count += present;
  },
  merge(into, from) {
    if (typeof from.sum === 'bigint' || typeof into.sum === 'bigint') {
      into.sum = BigInt(into.sum) + BigInt(from.sum);
      into.scale ??= from.scale;
    } else into.sum += from.sum;
    into.count += from.count;
  },
  finish(state, returnType) {
    if (state.count === 0) return null;
    const target = decimalPartsOf(returnType);
    if (!target) return (state.sum as number) / state.count;
    // DataFusion's decimal average: the sum moved to the result scale, divided (truncating).
    const sum = BigInt(state.sum) * pow10(target.scale - (state.scale ?? target.scale));
    return sum / BigInt(state.count);
  },
};

interface ExtremeState {
  value: Value;
}

function extreme(name: 'min' | 'max', sign: number): AggregateFunction<ExtremeState> {
  return {
    kind: 'aggregate',
    name,
    bind(argTypes) {
      const t = oneArg(name, argTypes);
      return { argTypes, returnType: t };
    },
    create: () => ({ value: null }),
    update(states, groupOf, args, rowCount) {
      const col = args[0] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const v = col[r];
        if (v === null || v === undefined) continue;
        const state = states[groupOf[r] as number] as ExtremeState;
        if (state.value === null || sign * compareValues(v, state.value) > 0) state.value = v;
      }
    },
    updateFloat64Run(state, values, valid, from, to) {
      const f64 = values as Float64Array;
      for (let r = from; r < to; r++) {
        if (valid !== undefined && valid[r] === 0) continue;
        const v = f64[r] as number;
        if (state.value === null || sign * compareValues(v, state.value) > 0) state.value = v;
      }
    },
    updateSummary(state, _rows, present, _sum, min, max) {
      if (present === null || present === 0) return;
      const v = sign > 0 ? max : min;
      if (state.value === null || sign * compareValues(v, state.value) > 0) state.value = v;
    },
    merge(into, from) {
      if (from.value === null) return;
      if (into.value === null || sign * compareValues(from.value, into.value) > 0) into.value = from.value;
    },
    finish: (state) => state.value,
  };
}

/** Aggregates by SQL name (aliases share an implementation). */
export const AGGREGATE_FUNCTIONS: Record<string, AggregateFunction> = {
  count,
  sum,
  avg,
  mean: avg,
  min: extreme('min', -1),
  max: extreme('max', 1),
};
