/**
 * Functions about types and the new temporal types: `arrow_typeof(x)` (the Arrow name of the
 * argument's type, as DataFusion prints it: `Decimal128(10, 2)`, `Interval(MonthDayNano)`) and
 * `current_time()` (the statement start's time of day in UTC, a `Time64(ns)`).
 */
import { planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import type { ScalarFunction } from './types.js';

const NANOS_PER_DAY = 86_400_000_000_000n;

const arrowTypeof: ScalarFunction = {
  kind: 'scalar',
  name: 'arrow_typeof',
  bind(argTypes) {
    if (argTypes.length !== 1) throw planError(`arrow_typeof function requires 1 arguments, got ${argTypes.length}`);
    return { argTypes, returnType: 'String' };
  },
  evaluate: (_args, rowCount, _ctx, _returnType, argTypes = []) =>
    new Array<Value>(rowCount).fill(arrowNameOf(argTypes[0] ?? 'Null')),
};

const currentTime: ScalarFunction = {
  kind: 'scalar',
  name: 'current_time',
  bind(argTypes) {
    if (argTypes.length !== 0) throw planError(`current_time function requires 0 arguments, got ${argTypes.length}`);
    return { argTypes, returnType: 'TimeNanosecond' };
  },
  evaluate: (_args, rowCount, ctx) =>
    new Array<Value>(rowCount).fill(((ctx.nowNanos % NANOS_PER_DAY) + NANOS_PER_DAY) % NANOS_PER_DAY),
};

/** Type functions by SQL name. */
export const TYPE_FUNCTIONS: Record<string, ScalarFunction> = {
  arrow_typeof: arrowTypeof,
  current_time: currentTime,
};
