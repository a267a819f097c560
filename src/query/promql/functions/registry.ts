/**
 * Every PromQL function Prometheus 2.x/3.x defines, with its signature and, where the function is
 * pure per series or per sample, its implementation. The parser checks calls against `argTypes`
 * and `variadic`; the evaluator runs `range` once per series per step over a window of samples, or
 * `elementwise` once per input sample. Functions that need the whole vector, labels or the query
 * itself (absent, sort, label_replace, histogram_quantile, ...) are `special`: the registry only
 * describes them and the engine implements them.
 *
 * Signatures follow prometheus/prometheus `promql/parser/functions.go`.
 */

import * as counterChanges from './counter-changes.js';
import * as date from './date.js';
import * as deriv from './deriv.js';
import * as math from './math.js';
import * as overTime from './over-time.js';
import type { RangeWindow } from './range-window.js';
import * as rate from './rate.js';
import * as smoothing from './smoothing.js';
import * as trig from './trig.js';

export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

export type { RangeWindow } from './range-window.js';

/** One value per window; `undefined` means the step has no output sample for this series. */
export type RangeFunction = (w: RangeWindow, scalarArgs: number[]) => number | undefined;

/** One value per input sample; `t` is the evaluation time in ms. */
export type ElementwiseFunction = (v: number, scalarArgs: number[], t: number) => number;

export interface FunctionDef {
  name: string;
  argTypes: ValueType[];
  /** Prometheus' Variadic: 0 exact; -1 any number of trailing args of the last type; n>0 up to n optional trailing args */
  variadic: number;
  returnType: 'scalar' | 'vector';
  experimental: boolean;
  /** Prometheus 3 keeps __name__ for these (e.g. last_over_time, label_replace, sort) */
  keepsMetricName: boolean;
  kind: 'range' | 'elementwise' | 'special';
  /**
   * kind 'range': one value per window, undefined = no output sample. scalarArgs = the call's
   * scalar args in order (e.g. quantile_over_time's φ, predict_linear's t), evaluated at this step.
   * An empty window (lo === hi) yields undefined. A function may throw a PromqlError for an
   * invalid argument (double_exponential_smoothing's factors), which fails the whole query.
   */
  range?: RangeFunction;
  /**
   * kind 'elementwise': per sample of the single vector arg; scalarArgs = the other args in order
   * at this step; t = eval time ms. For the date functions (minute, hour, ...) called with no
   * argument the engine passes the evaluation time in seconds as `v` and emits one sample with
   * no labels, as Prometheus does for `vector(time())`.
   */
  elementwise?: (v: number, scalarArgs: number[], t: number) => number;
  /**
   * kind 'elementwise', optional: when it returns true for this step's scalar args the call yields
   * no samples at all at this step (clamp with max < min).
   */
  emptyWhen?: (scalarArgs: number[]) => boolean;
}

interface Options {
  variadic?: number;
  returnType?: 'scalar' | 'vector';
  experimental?: boolean;
  keepsMetricName?: boolean;
}

const definitions: FunctionDef[] = [];

function defineRange(name: string, argTypes: ValueType[], range: RangeFunction, options: Options = {}): void {
  definitions.push({ ...base(name, argTypes, options), kind: 'range', range });
}

function defineElementwise(
  name: string,
  argTypes: ValueType[],
  elementwise: ElementwiseFunction,
  options: Options = {},
  emptyWhen?: (scalarArgs: number[]) => boolean,
): void {
  const definition: FunctionDef = { ...base(name, argTypes, options), kind: 'elementwise', elementwise };
  if (emptyWhen) definition.emptyWhen = emptyWhen;
  definitions.push(definition);
}

function defineSpecial(name: string, argTypes: ValueType[], options: Options = {}): void {
  definitions.push({ ...base(name, argTypes, options), kind: 'special' });
}

function base(name: string, argTypes: ValueType[], options: Options): Omit<FunctionDef, 'kind'> {
  return {
    name,
    argTypes,
    variadic: options.variadic ?? 0,
    returnType: options.returnType ?? 'vector',
    experimental: options.experimental ?? false,
    keepsMetricName: options.keepsMetricName ?? false,
  };
}

const M: ValueType[] = ['matrix'];
const V: ValueType[] = ['vector'];

// rate.ts: counters and gauges over a window, with Prometheus' boundary extrapolation.
defineRange('rate', M, rate.rate);
defineRange('increase', M, rate.increase);
defineRange('delta', M, rate.delta);
defineRange('irate', M, rate.irate);
defineRange('idelta', M, rate.idelta);

// over-time.ts: plain aggregations over the window.
defineRange('avg_over_time', M, overTime.avgOverTime);
defineRange('min_over_time', M, overTime.minOverTime);
defineRange('max_over_time', M, overTime.maxOverTime);
defineRange('sum_over_time', M, overTime.sumOverTime);
defineRange('count_over_time', M, overTime.countOverTime);
defineRange('last_over_time', M, overTime.lastOverTime, { keepsMetricName: true });
defineRange('first_over_time', M, overTime.firstOverTime, { keepsMetricName: true });
defineRange('present_over_time', M, overTime.presentOverTime);
defineRange('stddev_over_time', M, overTime.stddevOverTime);
defineRange('stdvar_over_time', M, overTime.stdvarOverTime);
defineRange('quantile_over_time', ['scalar', 'matrix'], overTime.quantileOverTime);
defineRange('mad_over_time', M, overTime.madOverTime, { experimental: true });
defineRange('ts_of_first_over_time', M, overTime.tsOfFirstOverTime, { experimental: true });
defineRange('ts_of_last_over_time', M, overTime.tsOfLastOverTime, { experimental: true });
defineRange('ts_of_min_over_time', M, overTime.tsOfMinOverTime, { experimental: true });
defineRange('ts_of_max_over_time', M, overTime.tsOfMaxOverTime, { experimental: true });
/**
 * absent_over_time emits 1 at a step only when no series has a sample in its window, with labels
 * taken from the selector's equality matchers (as `absent`), so the engine owns it.
 */
defineSpecial('absent_over_time', M);

// deriv.ts: least-squares slope and projection.
defineRange('deriv', M, deriv.deriv);
defineRange('predict_linear', ['matrix', 'scalar'], deriv.predictLinear);

// smoothing.ts: Holt's linear trend method under both of its PromQL names.
defineRange('double_exponential_smoothing', ['matrix', 'scalar', 'scalar'], smoothing.doubleExponentialSmoothing, {
  experimental: true,
});
defineRange('holt_winters', ['matrix', 'scalar', 'scalar'], smoothing.doubleExponentialSmoothing);

// counter-changes.ts
defineRange('resets', M, counterChanges.resets);
defineRange('changes', M, counterChanges.changes);

// math.ts
defineElementwise('abs', V, math.abs);
defineElementwise('ceil', V, math.ceil);
defineElementwise('floor', V, math.floor);
defineElementwise('exp', V, math.exp);
defineElementwise('ln', V, math.ln);
defineElementwise('log2', V, math.log2);
defineElementwise('log10', V, math.log10);
defineElementwise('sqrt', V, math.sqrt);
defineElementwise('sgn', V, math.sgn);
defineElementwise('round', ['vector', 'scalar'], math.round, { variadic: 1 });
defineElementwise('clamp', ['vector', 'scalar', 'scalar'], math.clamp, {}, math.clampIsEmpty);
defineElementwise('clamp_min', ['vector', 'scalar'], math.clampMin);
defineElementwise('clamp_max', ['vector', 'scalar'], math.clampMax);

// trig.ts
defineElementwise('sin', V, trig.sin);
defineElementwise('cos', V, trig.cos);
defineElementwise('tan', V, trig.tan);
defineElementwise('asin', V, trig.asin);
defineElementwise('acos', V, trig.acos);
defineElementwise('atan', V, trig.atan);
defineElementwise('sinh', V, trig.sinh);
defineElementwise('cosh', V, trig.cosh);
defineElementwise('tanh', V, trig.tanh);
defineElementwise('asinh', V, trig.asinh);
defineElementwise('acosh', V, trig.acosh);
defineElementwise('atanh', V, trig.atanh);
defineElementwise('deg', V, trig.deg);
defineElementwise('rad', V, trig.rad);
/** pi() takes no vector; the engine returns Math.PI as a scalar. */
defineSpecial('pi', [], { returnType: 'scalar' });

// date.ts: all take an optional vector of Unix seconds (default: vector(time())).
defineElementwise('minute', V, date.minute, { variadic: 1 });
defineElementwise('hour', V, date.hour, { variadic: 1 });
defineElementwise('day_of_week', V, date.dayOfWeek, { variadic: 1 });
defineElementwise('day_of_month', V, date.dayOfMonth, { variadic: 1 });
defineElementwise('day_of_year', V, date.dayOfYear, { variadic: 1 });
defineElementwise('days_in_month', V, date.daysInMonth, { variadic: 1 });
defineElementwise('month', V, date.month, { variadic: 1 });
defineElementwise('year', V, date.year, { variadic: 1 });

// Native-histogram functions: they read only histogram samples, so over float data they return
// nothing. Registered so the parser knows them.
defineSpecial('histogram_avg', V);
defineSpecial('histogram_count', V);
defineSpecial('histogram_sum', V);
defineSpecial('histogram_stddev', V);
defineSpecial('histogram_stdvar', V);
defineSpecial('histogram_fraction', ['scalar', 'scalar', 'vector']);
defineSpecial('histogram_quantiles', ['vector', 'string', 'scalar', 'scalar'], { variadic: 9, experimental: true });

// The engine's own functions: they need labels, the whole vector or the query's time range.
defineSpecial('histogram_quantile', ['scalar', 'vector']);
defineSpecial('absent', V);
defineSpecial('scalar', V, { returnType: 'scalar' });
defineSpecial('vector', ['scalar']);
defineSpecial('time', [], { returnType: 'scalar' });
defineSpecial('timestamp', V);
defineSpecial('start_timestamp', V, { experimental: true });
defineSpecial('label_replace', ['vector', 'string', 'string', 'string', 'string'], { keepsMetricName: true });
defineSpecial('label_join', ['vector', 'string', 'string', 'string'], { variadic: -1, keepsMetricName: true });
defineSpecial('sort', V, { keepsMetricName: true });
defineSpecial('sort_desc', V, { keepsMetricName: true });
defineSpecial('sort_by_label', ['vector', 'string'], { variadic: -1, experimental: true, keepsMetricName: true });
defineSpecial('sort_by_label_desc', ['vector', 'string'], {
  variadic: -1,
  experimental: true,
  keepsMetricName: true,
});
defineSpecial('info', ['vector', 'vector'], { variadic: 1, experimental: true, keepsMetricName: true });
defineSpecial('start', [], { returnType: 'scalar', experimental: true });
defineSpecial('end', [], { returnType: 'scalar', experimental: true });
defineSpecial('range', [], { returnType: 'scalar', experimental: true });
defineSpecial('step', [], { returnType: 'scalar', experimental: true });
defineSpecial('min_of', ['scalar', 'scalar'], { returnType: 'scalar', experimental: true });
defineSpecial('max_of', ['scalar', 'scalar'], { returnType: 'scalar', experimental: true });

/** Every function by name. */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map(definitions.map((d) => [d.name, d]));

export { bucketFraction, bucketQuantile } from './histogram.js';
