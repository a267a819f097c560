/**
 * `approx_percentile_cont_with_weight(x, weight, p)`: the p-quantile of values counted `weight`
 * times each. DataFusion feeds each (value, weight) into its t-digest as one centroid; below the
 * digest's compression threshold every centroid stays as given, and the estimate interpolates
 * within the centroid holding rank `p × total weight` using the spacing of its neighbours. This
 * keeps the pairs and runs that estimate over them, so small inputs give DataFusion's answers.
 */
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { isInteger, isNumeric } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { signatureError } from './typed.js';
import type { AggregateFunction } from './types.js';

interface WeightedState {
  values: number[];
  weights: number[];
  fraction: number | undefined;
}

/** The t-digest estimate over centroids sorted by mean. */
function estimate(means: number[], weights: number[], q: number): number {
  const n = means.length;
  const total = weights.reduce((a, b) => a + b, 0);
  const min = means[0] as number;
  const max = means[n - 1] as number;
  if (n === 1) return min;
  if (q <= 0) return min;
  if (q >= 1) return max;
  const rank = q * total;
  let pos: number;
  let t: number;
  if (q > 0.5) {
    pos = 0;
    t = total;
    for (let k = n - 1; k >= 0; k--) {
      t -= weights[k] as number;
      if (rank >= t) {
        pos = k;
        break;
      }
    }
  } else {
    pos = n - 1;
    t = 0;
    for (let k = 0; k < n; k++) {
      if (rank < t + (weights[k] as number)) {
        pos = k;
        break;
      }
      t += weights[k] as number;
    }
  }
  const mean = (i: number): number => means[i] as number;
  let lo = min;
  let hi = max;
  let delta: number;
  if (pos === 0) {
    delta = mean(1) - mean(0);
    hi = mean(1);
  } else if (pos === n - 1) {
    delta = mean(pos) - mean(pos - 1);
    lo = mean(pos - 1);
  } else {
    delta = (mean(pos + 1) - mean(pos - 1)) / 2;
    lo = mean(pos - 1);
    hi = mean(pos + 1);
  }
  const value = mean(pos) + ((rank - t) / (weights[pos] as number) - 0.5) * delta;
  return Math.min(hi, Math.max(lo, value));
}

const approxPercentileContWithWeight: AggregateFunction<WeightedState> = {
  kind: 'aggregate',
  name: 'approx_percentile_cont_with_weight',
  bind(argTypes, literals = []) {
    const [t, w] = argTypes;
    const numeric = (x: DataType | undefined): boolean => x !== undefined && (x === 'Null' || isNumeric(x));
    if (argTypes.length !== 3 || !numeric(t) || !numeric(w)) {
      throw signatureError('approx_percentile_cont_with_weight', argTypes);
    }
    const p = literals[2];
    if (p === undefined || p === null || Number(p) < 0 || Number(p) > 1) {
      throw planError(`Percentile value must be between 0.0 and 1.0 inclusive, ${String(p)} is invalid`);
    }
    return {
      argTypes: [t as DataType, 'Float64', 'Float64'],
      returnType: t === 'Null' ? 'Float64' : (t as DataType),
    };
  },
  create: () => ({ values: [], weights: [], fraction: undefined }),
  update(states, groupOf, args, rowCount) {
    const [values, weights, fractions] = args as [Value[], Value[], Value[]];
    for (let r = 0; r < rowCount; r++) {
      const s = states[groupOf[r] as number] as WeightedState;
      if (s.fraction === undefined && fractions[r] !== null) s.fraction = Number(fractions[r]);
      const v = values[r];
      const w = weights[r];
      if (v === null || v === undefined || w === null || w === undefined) continue;
      s.values.push(Number(v));
      s.weights.push(Number(w));
    }
  },
  merge(into, from) {
    into.values.push(...from.values);
    into.weights.push(...from.weights);
    into.fraction ??= from.fraction;
  },
  finish(state, returnType) {
    if (state.values.length === 0) return null;
    const order = state.values
      .map((_, i) => i)
      .sort((a, b) => (state.values[a] as number) - (state.values[b] as number));
    const value = estimate(
      order.map((i) => state.values[i] as number),
      order.map((i) => state.weights[i] as number),
      state.fraction ?? 0.5,
    );
    // DataFusion casts the estimate back to an integer input's type, dropping the fraction.
    return isInteger(returnType) ? BigInt(Math.trunc(value)) : value;
  },
};

/** The weighted percentile aggregate by SQL name. */
export const WEIGHTED_PERCENTILE_FUNCTIONS: Record<string, AggregateFunction> = {
  approx_percentile_cont_with_weight: approxPercentileContWithWeight as AggregateFunction,
};
