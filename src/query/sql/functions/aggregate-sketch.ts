/**
 * GreptimeDB's sketch functions: `hll(x)` and `hll_merge(state)` build HyperLogLog states,
 * `hll_count(state)` estimates their distinct count; `uddsketch_state(buckets, error, x)` and
 * `uddsketch_merge(buckets, error, state)` build UDDSketch states, `uddsketch_calc(q, state)`
 * reads a quantile. States are Binary values, so they can be stored in a table and merged later
 * (hourly states rolled up into daily ones). Partial states are the sketches themselves: shards
 * build them, the router merges them, and only the final result is serialised.
 */

import { DbError, ErrorCode } from '../../../shared/errors.js';
import { ryuFloat } from '../../../shared/ryu.js';
import type { DataType } from '../../../shared/types.js';
import { isList, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { decodeHll, encodeHll, type HllSketch, hllEstimate, hllInsert, hllMerge, newHll } from './hyperloglog.js';
import { signatureError } from './typed.js';
import type { AggregateFunction, ScalarFunction } from './types.js';
import { mapRows } from './types.js';
import {
  decodeUddSketch,
  encodeUddSketch,
  newUddSketch,
  sameParameters,
  type UddSketch,
  uddAdd,
  uddMerge,
  uddQuantile,
} from './uddsketch.js';

const hll: AggregateFunction<HllSketch> = {
  kind: 'aggregate',
  name: 'hll',
  // GreptimeDB hashes text: other scalars are hashed as their text, as DataFusion's coercion to Utf8 gives.
  bind(argTypes) {
    const t = argTypes[0];
    if (argTypes.length !== 1 || t === undefined || isList(t)) throw signatureError('hll', argTypes);
    return { argTypes: ['String'], returnType: 'Binary' };
  },
  create: newHll,
  update(states, groupOf, args, rowCount) {
    const col = args[0] as Value[];
    for (let r = 0; r < rowCount; r++) {
      const v = col[r];
      if (v !== null && v !== undefined) hllInsert(states[groupOf[r] as number] as HllSketch, v as string);
    }
  },
  merge: hllMerge,
  finish: encodeHll,
};

const hllMergeAggregate: AggregateFunction<HllSketch> = {
  kind: 'aggregate',
  name: 'hll_merge',
  bind(argTypes) {
    if (argTypes.length !== 1 || !(argTypes[0] === 'Binary' || argTypes[0] === 'Null'))
      throw signatureError('hll_merge', argTypes);
    return { argTypes: ['Binary'], returnType: 'Binary' };
  },
  create: newHll,
  // A value that is not an HLL state is skipped, as GreptimeDB skips states it cannot read.
  update(states, groupOf, args, rowCount) {
    const col = args[0] as Value[];
    for (let r = 0; r < rowCount; r++) {
      const v = col[r];
      if (v === null || v === undefined) continue;
      const sketch = decodeHll(v as string);
      if (sketch) hllMerge(states[groupOf[r] as number] as HllSketch, sketch);
    }
  },
  merge: hllMerge,
  finish: encodeHll,
};

const hllCount: ScalarFunction = {
  kind: 'scalar',
  name: 'hll_count',
  bind(argTypes) {
    if (argTypes.length !== 1 || !(argTypes[0] === 'Binary' || argTypes[0] === 'Null'))
      throw signatureError('hll_count', argTypes);
    return { argTypes: ['Binary'], returnType: 'UInt64' };
  },
  // An unreadable state counts as NULL, as in GreptimeDB.
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (v) => {
      const sketch = decodeHll(v as string);
      return sketch === null ? null : BigInt(Math.round(hllEstimate(sketch)));
    }),
};

/** GreptimeDB's `not_impl_err!` texts for the sketch parameters, which it checks before any row. */
function notImplemented(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `This feature is not implemented: ${message}`);
}

const BUCKETS_MAX = 0xffffffff;

/**
 * A float as Rust's `{}` prints it (`1`, not `1.0`, unlike `{:?}`); plain decimals as JS prints
 * them, Rust's debug text where JS would switch to an exponent (rare for an error rate).
 */
function rustDisplay(value: number): string {
  const text = String(value);
  return text.includes('e') ? ryuFloat(value) : text;
}

/** Checks `(bucket_num, error_rate)` literals; GreptimeDB names `uddsketch_state` for both functions. */
function sketchParameters(literals: Array<Value | undefined>): [maxBuckets: number, errorRate: number] {
  const buckets = literals[0];
  if (buckets === undefined || buckets === null) {
    throw notImplemented('uddsketch_state not supported for bucket size: a non-constant or NULL argument');
  }
  const maxBuckets = Number(buckets);
  if (maxBuckets <= 0 || maxBuckets > BUCKETS_MAX) {
    throw notImplemented(`uddsketch_state bucket size must be positive, got ${String(buckets)}`);
  }
  const error = literals[1];
  if (error === undefined || error === null) {
    throw notImplemented('uddsketch_state not supported for error rate: a non-constant or NULL argument');
  }
  const errorRate = Number(error);
  if (!(errorRate >= 1e-12 && errorRate < 1)) {
    throw notImplemented(`uddsketch_state error rate must be in [1e-12, 1.0), got ${rustDisplay(errorRate)}`);
  }
  return [maxBuckets, errorRate];
}

function isInteger64(t: DataType | undefined): boolean {
  return (
    t === 'Int8' || t === 'Int16' || t === 'Int32' || t === 'Int64' || t === 'UInt8' || t === 'UInt16' || t === 'UInt32'
  );
}

function uddsketchAggregate(name: string, input: 'values' | 'states'): AggregateFunction<UddSketch> {
  const fits = (t: DataType | undefined): boolean =>
    t === 'Null' || (input === 'values' ? t !== undefined && isNumericOrDecimal(t) : t === 'Binary');
  return {
    kind: 'aggregate',
    name,
    bind(argTypes, literals = []) {
      const [buckets, error, value] = argTypes;
      if (
        argTypes.length !== 3 ||
        !isInteger64(buckets) ||
        !(error === 'Float64' || isInteger64(error)) ||
        !fits(value)
      )
        throw signatureError(name, argTypes);
      sketchParameters([
        literals[0],
        literals[1] === undefined || literals[1] === null ? literals[1] : Number(literals[1]),
      ]);
      return { argTypes: ['Int64', 'Float64', input === 'values' ? 'Float64' : 'Binary'], returnType: 'Binary' };
    },
    create(literals = []) {
      // Binding has checked the literals; a state made without them (never by a plan) is a 1-bucket sketch.
      const [maxBuckets, errorRate] = literals.length === 0 ? [1, 0.01] : sketchParameters(literals);
      return newUddSketch(maxBuckets, errorRate);
    },
    update(states, groupOf, args, rowCount) {
      const col = args[2] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const v = col[r];
        if (v === null || v === undefined) continue;
        const state = states[groupOf[r] as number] as UddSketch;
        if (input === 'values') uddAdd(state, v as number);
        else mergeStoredState(state, v as string);
      }
    },
    merge: uddMerge,
    finish: encodeUddSketch,
  };
}

/** Merges a state read from a row; unlike hll_merge, an unreadable or mismatched one is an error. */
function mergeStoredState(into: UddSketch, value: string): void {
  const other = decodeUddSketch(value);
  if (other === null) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      'Error during planning: Failed to deserialize UDDSketch from binary',
    );
  }
  if (other.count === 0) return;
  if (!sameParameters(into, other)) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `Error during planning: Merging UDDSketch with different parameters: arguments=(${into.maxBuckets}, ${ryuFloat(into.initialError)}) vs actual input=(${other.maxBuckets}, ${ryuFloat(other.initialError)})`,
    );
  }
  uddMerge(into, other);
}

const uddsketchCalc: ScalarFunction = {
  kind: 'scalar',
  name: 'uddsketch_calc',
  bind(argTypes) {
    const [q, state] = argTypes;
    if (argTypes.length !== 2 || q === undefined || !(q === 'Null' || isNumericOrDecimal(q)))
      throw signatureError('uddsketch_calc', argTypes);
    if (!(state === 'Binary' || state === 'Null')) throw signatureError('uddsketch_calc', argTypes);
    return { argTypes: ['Float64', 'Binary'], returnType: 'Float64' };
  },
  // GreptimeDB answers NULL for an unreadable state, an empty one and a quantile outside [0, 1].
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (q, v) => {
      const sketch = decodeUddSketch(v as string);
      return sketch === null ? null : uddQuantile(sketch, q as number);
    }),
};

/** The sketch functions by name. */
export const SKETCH_FUNCTIONS = {
  hll,
  hll_merge: hllMergeAggregate,
  hll_count: hllCount,
  uddsketch_state: uddsketchAggregate('uddsketch_state', 'values'),
  uddsketch_merge: uddsketchAggregate('uddsketch_merge', 'states'),
  uddsketch_calc: uddsketchCalc,
};
