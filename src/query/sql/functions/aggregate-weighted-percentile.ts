/**
 * `approx_percentile_cont_with_weight(x, weight, p)`: the p-quantile of values counted `weight`
 * times each. DataFusion feeds each (value, weight) into its t-digest as one centroid; below the
 * digest's compression threshold every centroid stays as given, and the estimate interpolates
 * within the centroid holding rank `p × total weight` using the spacing of its neighbours. This
 * keeps up to a batch of pairs as given (so small inputs give DataFusion's answers) and merges
 * fuller batches into a t-digest of 100 centroids (tdigest.ts), which bounds the state.
 */
import type { DataType } from '../../../shared/types.js';
import { isNumeric } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { checkFraction, DIGEST_BATCH, percentileResult } from './aggregate-percentile.js';
import { estimateQuantile, mergeDigests, newDigest, TDIGEST_MAX_SIZE, type TDigest } from './tdigest.js';
import { signatureError } from './typed.js';
import type { AggregateFunction } from './types.js';

interface WeightedState {
  /** Pairs not yet in `digest`. */
  values: number[];
  weights: number[];
  digest: TDigest;
  fraction: number | undefined;
}

/** The pairs as centroids of a digest, sorted by value, uncompressed; its count is their total weight. */
function pairsDigest(values: number[], weights: number[]): TDigest {
  const order = values.map((_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number));
  const digest = newDigest(TDIGEST_MAX_SIZE);
  digest.means = order.map((i) => values[i] as number);
  digest.weights = order.map((i) => weights[i] as number);
  digest.count = digest.weights.reduce((a, b) => a + b, 0);
  digest.min = digest.means[0] as number;
  digest.max = digest.means[digest.means.length - 1] as number;
  return digest;
}

/** Merges the pending pairs into the digest. */
function flush(state: WeightedState): void {
  if (state.values.length === 0) return;
  state.digest = mergeDigests([pairsDigest(state.values, state.weights), state.digest], TDIGEST_MAX_SIZE);
  state.values = [];
  state.weights = [];
}

function add(state: WeightedState, value: number, weight: number): void {
  if (state.values.length === DIGEST_BATCH) flush(state);
  state.values.push(value);
  state.weights.push(weight);
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
    checkFraction(literals[2]);
    return {
      argTypes: [t as DataType, 'Float64', 'Float64'],
      returnType: t === 'Null' ? 'Float64' : (t as DataType),
    };
  },
  create: () => ({ values: [], weights: [], digest: newDigest(TDIGEST_MAX_SIZE), fraction: undefined }),
  update(states, groupOf, args, rowCount) {
    const [values, weights, fractions] = args as [Value[], Value[], Value[]];
    for (let r = 0; r < rowCount; r++) {
      const s = states[groupOf[r] as number] as WeightedState;
      if (s.fraction === undefined && fractions[r] !== null) s.fraction = Number(fractions[r]);
      const v = values[r];
      const w = weights[r];
      if (v === null || v === undefined || w === null || w === undefined) continue;
      add(s, Number(v), Number(w));
    }
  },
  merge(into, from) {
    into.fraction ??= from.fraction;
    if (into.digest.count === 0 && from.digest.count === 0 && into.values.length + from.values.length <= DIGEST_BATCH) {
      into.values.push(...from.values);
      into.weights.push(...from.weights);
      return;
    }
    flush(into);
    flush(from);
    into.digest = mergeDigests([from.digest, into.digest], TDIGEST_MAX_SIZE);
  },
  finish(state, returnType) {
    // Pairs alone are estimated as given; once there is a digest, the pairs join it first.
    const q = state.fraction ?? 0.5;
    if (state.digest.count === 0) {
      if (state.values.length === 0) return null;
      return percentileResult(estimateQuantile(pairsDigest(state.values, state.weights), q), returnType);
    }
    flush(state);
    return percentileResult(estimateQuantile(state.digest, q), returnType);
  },
};

/** The weighted percentile aggregate by SQL name. */
export const WEIGHTED_PERCENTILE_FUNCTIONS: Record<string, AggregateFunction> = {
  approx_percentile_cont_with_weight: approxPercentileContWithWeight as AggregateFunction,
};
