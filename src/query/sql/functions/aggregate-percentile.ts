/**
 * `approx_percentile_cont(x, p [, max_size])` (also `approx_percentile_cont(p [, max_size]) WITHIN
 * GROUP (ORDER BY x [DESC])`) and `approx_median(x)`: DataFusion's t-digest (tdigest.ts), 100
 * centroids unless `max_size` says otherwise. A state holds a digest and a buffer of up to one
 * batch of values: DataFusion sorts each input batch of 8,192 rows and merges it into its digest,
 * so buffering as many before merging gives its answers wherever its batches would be whole (small
 * tables), and the digest bounds the state however many rows there are. States cross from shard to
 * router as they are; two states still without a digest concatenate their buffers, so a small
 * table spread over shards is estimated as one batch, as DataFusion does.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { isBigIntType, isDecimal, isInteger, isNumeric, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { sortFloat64 } from './sort-f64.js';
import { digestSorted, estimateQuantile, mergeDigests, newDigest, TDIGEST_MAX_SIZE, type TDigest } from './tdigest.js';
import { signatureError } from './typed.js';
import type { AggregateFunction, AggregateOrder } from './types.js';

/** Values buffered before a merge: DataFusion's batch size. */
export const DIGEST_BATCH = 8192;

export interface PercentileState {
  digest: TDigest;
  /** Values not yet in the digest, in `buffer[0, buffered)`. */
  buffer: Float64Array;
  buffered: number;
  fraction: number;
}

function newState(fraction: number, maxSize: number): PercentileState {
  return { digest: newDigest(maxSize), buffer: new Float64Array(0), buffered: 0, fraction };
}

/** Sorts the buffered values into the digest (Float64Array's order: -0 before 0, NaN last, as Rust's total order). */
function flush(state: PercentileState): void {
  if (state.buffered === 0) return;
  const batch = state.buffer.subarray(0, state.buffered);
  sortFloat64(batch);
  digestSorted(state.digest, batch, state.buffered);
  state.buffered = 0;
}

function push(state: PercentileState, x: number): void {
  if (state.buffered === state.buffer.length) {
    if (state.buffered === DIGEST_BATCH) flush(state);
    else {
      // Grown by doubling: a group with few values keeps a small buffer.
      const grown = new Float64Array(Math.min(DIGEST_BATCH, Math.max(16, state.buffer.length * 2)));
      grown.set(state.buffer.subarray(0, state.buffered));
      state.buffer = grown;
    }
  }
  state.buffer[state.buffered++] = x;
}

function mergeStates(into: PercentileState, from: PercentileState): void {
  if (into.digest.count === 0 && from.digest.count === 0 && into.buffered + from.buffered <= DIGEST_BATCH) {
    for (let i = 0; i < from.buffered; i++) push(into, from.buffer[i] as number);
    return;
  }
  flush(into);
  flush(from);
  // DataFusion merges the incoming digests ahead of its own.
  into.digest = mergeDigests([from.digest, into.digest], into.digest.maxSize);
}

/** The estimate as the result type: DataFusion casts it back to an integer input (`as`: truncating, saturating). */
export function percentileResult(value: number | null, returnType: DataType): Value {
  if (value === null) return null;
  if (returnType === 'Float32') return Math.fround(value);
  if (!isInteger(returnType)) return value;
  const whole = Number.isNaN(value) ? 0 : Math.trunc(value);
  if (!isBigIntType(returnType)) return whole;
  if (!Number.isFinite(whole)) return whole > 0 ? 2n ** 63n - 1n : -(2n ** 63n);
  return BigInt(whole);
}

function finishState(state: PercentileState, returnType: DataType, order?: AggregateOrder[]): Value {
  flush(state);
  // WITHIN GROUP (ORDER BY x DESC) asks for the fraction from the top.
  const q = order?.[0]?.descending === true ? 1 - state.fraction : state.fraction;
  return percentileResult(estimateQuantile(state.digest, q), returnType);
}

/** The fraction argument, checked as DataFusion checks it (a plan error outside [0, 1]). */
export function checkFraction(p: Value | undefined): number {
  if (p === undefined || p === null || !(Number(p) >= 0 && Number(p) <= 1)) {
    throw planError(`Percentile value must be between 0.0 and 1.0 inclusive, ${String(p)} is invalid`);
  }
  return Number(p);
}

function checkMaxSize(size: Value | undefined, type: DataType): number {
  const n = size === undefined || size === null ? 0 : Number(size);
  if (!(Number.isInteger(n) && n > 0)) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `This feature is not implemented: Tdigest max_size value for 'APPROX_PERCENTILE_CONT' must be UInt > 0 literal (got data type ${type}).`,
    );
  }
  return n;
}

/** Folds a column of values (the boxed path) into each row's group. */
function updateValues(states: unknown[], groupOf: Uint32Array, col: Value[], rowCount: number): void {
  for (let r = 0; r < rowCount; r++) {
    const v = col[r];
    if (v === null || v === undefined) continue;
    push(states[groupOf[r] as number] as PercentileState, Number(v));
  }
}

function updateRun(
  state: PercentileState,
  values: Float64Array | null,
  valid: Uint8Array | undefined,
  from: number,
  to: number,
): void {
  if (values === null) return;
  for (let r = from; r < to; r++) if (valid === undefined || valid[r] !== 0) push(state, values[r] as number);
}

const approxPercentileCont: AggregateFunction<PercentileState> = {
  kind: 'aggregate',
  name: 'approx_percentile_cont',
  bind(argTypes, literals = []) {
    const [t, , size] = argTypes;
    if (
      (argTypes.length !== 2 && argTypes.length !== 3) ||
      t === undefined ||
      !(t === 'Null' || isNumeric(t)) ||
      (size !== undefined && !isInteger(size))
    ) {
      throw signatureError('approx_percentile_cont', argTypes);
    }
    checkFraction(literals[1]);
    if (size !== undefined) checkMaxSize(literals[2], size);
    const types: DataType[] = [t, 'Float64'];
    if (size !== undefined) types.push(size);
    return { argTypes: types, returnType: t === 'Null' ? 'Float64' : t };
  },
  create: (literals = []) =>
    newState(
      Number(literals[1] ?? 0.5),
      literals[2] === undefined || literals[2] === null ? TDIGEST_MAX_SIZE : Number(literals[2]),
    ),
  update: (states, groupOf, args, rowCount) => updateValues(states, groupOf, args[0] as Value[], rowCount),
  updateFloat64Run: updateRun,
  merge: mergeStates,
  finish: finishState,
};

const approxMedian: AggregateFunction<PercentileState> = {
  kind: 'aggregate',
  name: 'approx_median',
  bind(argTypes) {
    const t = argTypes[0];
    if (argTypes.length !== 1 || t === undefined || !(t === 'Null' || isNumericOrDecimal(t))) {
      throw signatureError('approx_median', argTypes);
    }
    // Decimals are read as floats, as by the other statistics.
    if (t === 'Null' || isDecimal(t)) return { argTypes: ['Float64'], returnType: 'Float64' };
    return { argTypes, returnType: t };
  },
  create: () => newState(0.5, TDIGEST_MAX_SIZE),
  update: (states, groupOf, args, rowCount) => updateValues(states, groupOf, args[0] as Value[], rowCount),
  updateFloat64Run: updateRun,
  merge: mergeStates,
  finish: finishState,
};

/** The t-digest percentiles by SQL name. */
export const PERCENTILE_FUNCTIONS: Record<string, AggregateFunction> = {
  approx_percentile_cont: approxPercentileCont as AggregateFunction,
  approx_median: approxMedian as AggregateFunction,
};
