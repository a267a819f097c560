/**
 * The linear-regression aggregates `regr_*(y, x)`: the dependent value comes first, as in
 * DataFusion and PostgreSQL. They share covariance's co-moment state (aggregate-stats.ts), whose
 * "x" is the first argument: so here `meanX`/`m2x` describe y, and `meanY`/`m2y` describe x.
 */
import type { Value } from '../types/values.js';
import { type CoMomentState, coMoment } from './aggregate-stats.js';
import type { AggregateFunction } from './types.js';

function slopeOf(s: CoMomentState): number | null {
  return s.count < 2 || s.m2y === 0 ? null : s.c / s.m2y;
}

function regression(name: string, finish: (s: CoMomentState) => number | null): AggregateFunction {
  return coMoment(name, finish) as AggregateFunction;
}

const regrCount: AggregateFunction<CoMomentState> = {
  ...coMoment('regr_count', () => null),
  bind(argTypes) {
    const sig = coMoment('regr_count', () => null).bind(argTypes);
    return { ...sig, returnType: 'UInt64' };
  },
  finish: (s): Value => BigInt(s.count),
};

/** Regression aggregates by SQL name. */
export const REGRESSION_AGGREGATE_FUNCTIONS: Record<string, AggregateFunction> = {
  regr_count: regrCount as AggregateFunction,
  regr_slope: regression('regr_slope', slopeOf),
  regr_intercept: regression('regr_intercept', (s) => {
    const slope = slopeOf(s);
    return slope === null ? null : s.meanX - slope * s.meanY;
  }),
  regr_r2: regression('regr_r2', (s) => {
    if (s.count < 2 || s.m2y === 0) return null;
    if (s.m2x === 0) return 1;
    return (s.c * s.c) / (s.m2x * s.m2y);
  }),
  regr_avgx: regression('regr_avgx', (s) => (s.count === 0 ? null : s.meanY)),
  regr_avgy: regression('regr_avgy', (s) => (s.count === 0 ? null : s.meanX)),
  regr_sxx: regression('regr_sxx', (s) => (s.count === 0 ? null : s.m2y)),
  regr_syy: regression('regr_syy', (s) => (s.count === 0 ? null : s.m2x)),
  regr_sxy: regression('regr_sxy', (s) => (s.count === 0 ? null : s.c)),
};
