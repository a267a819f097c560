/**
 * Statistical and bitwise aggregates. Variance uses Welford's running mean and M2, whose partial
 * states merge exactly (Chan et al.), so shard states combine without holding values. The median
 * holds the values (there is no mergeable exact summary; the approximate percentiles are
 * t-digests, aggregate-percentile.ts); `approx_distinct` holds the distinct values while they are
 * few, then a sketch.
 */
import type { DataType } from '../../../shared/types.js';
import { isBigIntType, isDecimal, isInteger, isNumericOrDecimal } from '../types/type-names.js';
import { type Value, valueKey } from '../types/values.js';
import { compareKeys } from './aggregate-ordered.js';
import { type HllSketch, hllEstimate, hllInsert, hllMerge, newHll } from './hyperloglog.js';
import { noMatch } from './no-match.js';
import type { AggregateFunction, Signature } from './types.js';

function numericOne(name: string, argTypes: DataType[]): DataType {
  const t = argTypes[0];
  if (argTypes.length !== 1 || t === undefined || !(t === 'Null' || isNumericOrDecimal(t))) noMatch(name, argTypes);
  return t as DataType;
}

interface MomentState {
  count: number;
  mean: number;
  m2: number;
}

function moment(name: string, finish: (s: MomentState) => number | null): AggregateFunction<MomentState> {
  return {
    kind: 'aggregate',
    name,
    bind(argTypes): Signature {
      numericOne(name, argTypes);
      return { argTypes: ['Float64'], returnType: 'Float64' };
    },
    create: () => ({ count: 0, mean: 0, m2: 0 }),
    update(states, groupOf, args, rowCount) {
      const col = args[0] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const v = col[r];
        if (v === null || v === undefined) continue;
        const s = states[groupOf[r] as number] as MomentState;
        const x = Number(v);
        s.count++;
        const delta = x - s.mean;
        s.mean += delta / s.count;
        s.m2 += delta * (x - s.mean);
      }
    },
    merge(into, from) {
      if (from.count === 0) return;
      if (into.count === 0) {
        Object.assign(into, from);
        return;
      }
      const count = into.count + from.count;
      const delta = from.mean - into.mean;
      into.m2 += from.m2 + (delta * delta * into.count * from.count) / count;
      into.mean += (delta * from.count) / count;
      into.count = count;
    },
    finish,
  };
}

const sampleVariance = (s: MomentState): number | null => (s.count < 2 ? null : s.m2 / (s.count - 1));
const populationVariance = (s: MomentState): number | null => (s.count === 0 ? null : s.m2 / s.count);

interface ValuesState {
  /**
   * The values so far in `values[0, count)`: a typed buffer, so ten million of them take 80 MB
   * instead of boxed numbers, sort natively, and cross from a shard to the router as one copy.
   */
  values: Float64Array;
  count: number;
}

function pushValue(s: ValuesState, x: number): void {
  if (s.count === s.values.length) {
    const grown = new Float64Array(Math.max(16, s.values.length * 2));
    grown.set(s.values);
    s.values = grown;
  }
  s.values[s.count++] = x;
}

function valuesAggregate(
  name: string,
  bind: (argTypes: DataType[]) => Signature,
  finish: (sorted: Float64Array) => Value,
): AggregateFunction<ValuesState> {
  return {
    kind: 'aggregate',
    name,
    bind: (argTypes) => bind(argTypes),
    create: () => ({ values: new Float64Array(0), count: 0 }),
    update(states, groupOf, args, rowCount) {
      const col = args[0] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const v = col[r];
        const s = states[groupOf[r] as number] as ValuesState;
        if (v === null || v === undefined) continue;
        pushValue(s, Number(v));
      }
    },
    merge(into, from) {
      if (into.count + from.count > into.values.length) {
        const grown = new Float64Array(Math.max(16, into.count + from.count, into.values.length * 2));
        grown.set(into.values.subarray(0, into.count));
        into.values = grown;
      }
      into.values.set(from.values.subarray(0, from.count), into.count);
      into.count += from.count;
    },
    updateFloat64Run(state, values, valid, from, to) {
      if (values === null) return;
      for (let r = from; r < to; r++) if (valid === undefined || valid[r] !== 0) pushValue(state, values[r] as number);
    },
    // A typed array sorts numerically (NaN last) without a comparator call per pair.
    finish: (state) => finish(state.values.slice(0, state.count).sort()),
  };
}

const median = valuesAggregate(
  'median',
  (argTypes) => {
    const t = numericOne('median', argTypes);
    // Decimals are read as floats here, as by the other statistics.
    if (t === 'Null' || isDecimal(t)) return { argTypes: ['Float64'], returnType: 'Float64' };
    return { argTypes, returnType: t };
  },
  (sorted) => {
    if (sorted.length === 0) return null;
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  },
);

/**
 * `approx_distinct`: exact while a group has seen few values, then a HyperLogLog sketch (as
 * DataFusion's is from the start), so that a group's state stays bounded whatever the column's
 * cardinality: a Set of every value let one statement over a high-cardinality column fill the
 * heap. Past the switch the answer is an estimate (standard error ~0.8%, hyperloglog.ts); below
 * it the sketch's linear-counting regime would be within a fraction of a percent anyway.
 */
interface DistinctCountState {
  /** The values seen (lists by their text), until there are more than `EXACT_DISTINCT_MAX`. */
  seen: Set<unknown> | null;
  sketch: HllSketch | null;
}

const EXACT_DISTINCT_MAX = 1024;

/** A value as the Set holds it: primitives as themselves (one NaN, one zero), lists by text. */
const distinctKey = (v: Value): unknown => (Array.isArray(v) ? valueKey(v) : v);

/** The text a value is hashed by once in the sketch; equal Set members give equal texts. */
function sketchText(key: unknown): string {
  if (typeof key === 'string') return `s${key}`;
  if (key === 0) return 'n0';
  return `${typeof key === 'bigint' ? 'b' : typeof key === 'number' ? 'n' : 'x'}${String(key)}`;
}

function addDistinct(state: DistinctCountState, key: unknown): void {
  if (state.sketch !== null) {
    hllInsert(state.sketch, sketchText(key));
    return;
  }
  const seen = state.seen as Set<unknown>;
  seen.add(key);
  if (seen.size > EXACT_DISTINCT_MAX) toSketch(state);
}

/** Moves a state's values into a sketch; returns it. */
function toSketch(state: DistinctCountState): HllSketch {
  const sketch = newHll();
  for (const k of state.seen as Set<unknown>) hllInsert(sketch, sketchText(k));
  state.sketch = sketch;
  state.seen = null;
  return sketch;
}

const approxDistinct: AggregateFunction<DistinctCountState> = {
  kind: 'aggregate',
  name: 'approx_distinct',
  bind: (argTypes) => {
    if (argTypes.length !== 1) noMatch('approx_distinct', argTypes);
    return { argTypes, returnType: 'UInt64' };
  },
  create: () => ({ seen: new Set(), sketch: null }),
  update(states, groupOf, args, rowCount) {
    const col = args[0] as Value[];
    for (let r = 0; r < rowCount; r++) {
      const v = col[r];
      if (v !== null && v !== undefined)
        addDistinct(states[groupOf[r] as number] as DistinctCountState, distinctKey(v));
    }
  },
  merge(into, from) {
    if (from.sketch !== null) {
      hllMerge(into.sketch ?? toSketch(into), from.sketch);
      return;
    }
    for (const k of from.seen as Set<unknown>) addDistinct(into, k);
  },
  finish: (state) =>
    state.sketch !== null ? BigInt(Math.round(hllEstimate(state.sketch))) : BigInt((state.seen as Set<unknown>).size),
};

interface BitState {
  value: number | bigint | null;
}

function bitwise(name: string, op: (a: bigint, b: bigint) => bigint): AggregateFunction<BitState> {
  return {
    kind: 'aggregate',
    name,
    bind(argTypes) {
      const t = argTypes[0];
      if (argTypes.length !== 1 || t === undefined || !(t === 'Null' || isInteger(t))) noMatch(name, argTypes);
      return { argTypes, returnType: t === 'Null' ? 'Int64' : (t as DataType) };
    },
    create: () => ({ value: null }),
    update(states, groupOf, args, rowCount) {
      const col = args[0] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const v = col[r];
        if (v === null || v === undefined) continue;
        const s = states[groupOf[r] as number] as BitState;
        const x = BigInt(v as number | bigint);
        s.value = s.value === null ? x : op(BigInt(s.value), x);
      }
    },
    merge(into, from) {
      if (from.value === null) return;
      into.value = into.value === null ? from.value : op(BigInt(into.value), BigInt(from.value));
    },
    finish(state, returnType) {
      if (state.value === null) return null;
      const v = BigInt(state.value);
      if (isBigIntType(returnType)) return returnType === 'UInt64' ? BigInt.asUintN(64, v) : BigInt.asIntN(64, v);
      return Number(v);
    },
  };
}

interface BoolState {
  value: boolean | null;
}

function boolean(name: string, all: boolean): AggregateFunction<BoolState> {
  return {
    kind: 'aggregate',
    name,
    bind(argTypes) {
      if (argTypes.length !== 1 || !(argTypes[0] === 'Boolean' || argTypes[0] === 'Null')) noMatch(name, argTypes);
      return { argTypes: ['Boolean'], returnType: 'Boolean' };
    },
    create: () => ({ value: null }),
    update(states, groupOf, args, rowCount) {
      const col = args[0] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const v = col[r];
        if (v === null || v === undefined) continue;
        const s = states[groupOf[r] as number] as BoolState;
        s.value = s.value === null ? (v as boolean) : all ? s.value && (v as boolean) : s.value || (v as boolean);
      }
    },
    merge(into, from) {
      if (from.value === null) return;
      into.value = into.value === null ? from.value : all ? into.value && from.value : into.value || from.value;
    },
    finish: (state) => state.value,
  };
}

/**
 * `string_agg(x, sep [ORDER BY ...])` joins the non-NULL values. Each part keeps its ordering key
 * (the call's ORDER BY keys, then the scan-order keys the planner appends, as for array_agg), so
 * the router joins parts in the same order however rows spread over shards.
 */
interface StringAggState {
  parts: string[];
  keys: Value[][];
  separator: string | null;
}

const stringAgg: AggregateFunction<StringAggState> = {
  kind: 'aggregate',
  name: 'string_agg',
  bind(argTypes) {
    if (argTypes.length !== 2) noMatch('string_agg', argTypes);
    return { argTypes: ['String', 'String'], returnType: 'String' };
  },
  create: () => ({ parts: [], keys: [], separator: null }),
  update(states, groupOf, args, rowCount, _argTypes, order = []) {
    const col = args[0] as Value[];
    const sep = args[1] as Value[];
    const keyColumns = args.slice(2, 2 + order.length);
    for (let r = 0; r < rowCount; r++) {
      const s = states[groupOf[r] as number] as StringAggState;
      if (s.separator === null && sep[r] !== null) s.separator = sep[r] as string;
      if (col[r] === null || col[r] === undefined) continue;
      s.parts.push(col[r] as string);
      if (order.length > 0) s.keys.push(keyColumns.map((k) => k[r] ?? null));
    }
  },
  merge(into, from) {
    into.parts.push(...from.parts);
    into.keys.push(...from.keys);
    into.separator ??= from.separator;
  },
  finish(state, _returnType, order = []) {
    if (state.parts.length === 0) return null;
    let parts = state.parts;
    if (order.length > 0) {
      const positions = parts.map((_, i) => i);
      positions.sort((a, b) => compareKeys(state.keys[a] ?? [], state.keys[b] ?? [], order) || a - b);
      parts = positions.map((i) => state.parts[i] as string);
    }
    return parts.join(state.separator ?? '');
  },
};

/** Running co-moments of non-NULL pairs (x, y): Welford sums, mergeable across shards. */
export interface CoMomentState {
  count: number;
  meanX: number;
  meanY: number;
  c: number;
  m2x: number;
  m2y: number;
}

/** Two-argument moments (covariance, correlation): pairs where both values are non-NULL. */
export function coMoment(name: string, finish: (s: CoMomentState) => number | null): AggregateFunction<CoMomentState> {
  return {
    kind: 'aggregate',
    name,
    bind(argTypes) {
      if (argTypes.length !== 2 || !argTypes.every((t) => t === 'Null' || isNumericOrDecimal(t)))
        noMatch(name, argTypes);
      return { argTypes: ['Float64', 'Float64'], returnType: 'Float64' };
    },
    create: () => ({ count: 0, meanX: 0, meanY: 0, c: 0, m2x: 0, m2y: 0 }),
    update(states, groupOf, args, rowCount) {
      const xs = args[0] as Value[];
      const ys = args[1] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const xv = xs[r];
        const yv = ys[r];
        if (xv === null || xv === undefined || yv === null || yv === undefined) continue;
        const s = states[groupOf[r] as number] as CoMomentState;
        const x = Number(xv);
        const y = Number(yv);
        s.count++;
        const dx = x - s.meanX;
        s.meanX += dx / s.count;
        const dy = y - s.meanY;
        s.meanY += dy / s.count;
        s.c += dx * (y - s.meanY);
        s.m2x += dx * (x - s.meanX);
        s.m2y += dy * (y - s.meanY);
      }
    },
    merge(into, from) {
      if (from.count === 0) return;
      if (into.count === 0) {
        Object.assign(into, from);
        return;
      }
      const n = into.count + from.count;
      const dx = from.meanX - into.meanX;
      const dy = from.meanY - into.meanY;
      const w = (into.count * from.count) / n;
      into.c += from.c + dx * dy * w;
      into.m2x += from.m2x + dx * dx * w;
      into.m2y += from.m2y + dy * dy * w;
      into.meanX += (dx * from.count) / n;
      into.meanY += (dy * from.count) / n;
      into.count = n;
    },
    finish,
  };
}

/** Statistical, bitwise and boolean aggregates by SQL name. */
export const STATS_AGGREGATE_FUNCTIONS: Record<string, AggregateFunction> = {
  stddev: moment('stddev', (s) => {
    const v = sampleVariance(s);
    return v === null ? null : Math.sqrt(v);
  }) as AggregateFunction,
  stddev_samp: moment('stddev', (s) => {
    const v = sampleVariance(s);
    return v === null ? null : Math.sqrt(v);
  }) as AggregateFunction,
  stddev_pop: moment('stddev_pop', (s) => {
    const v = populationVariance(s);
    return v === null ? null : Math.sqrt(v);
  }) as AggregateFunction,
  var: moment('var', sampleVariance) as AggregateFunction,
  variance: moment('var', sampleVariance) as AggregateFunction,
  var_samp: moment('var', sampleVariance) as AggregateFunction,
  var_sample: moment('var', sampleVariance) as AggregateFunction,
  var_pop: moment('var_pop', populationVariance) as AggregateFunction,
  var_population: moment('var_pop', populationVariance) as AggregateFunction,
  median: median as AggregateFunction,
  approx_distinct: approxDistinct as AggregateFunction,
  bit_and: bitwise('bit_and', (a, b) => a & b) as AggregateFunction,
  bit_or: bitwise('bit_or', (a, b) => a | b) as AggregateFunction,
  bit_xor: bitwise('bit_xor', (a, b) => a ^ b) as AggregateFunction,
  bool_and: boolean('bool_and', true) as AggregateFunction,
  bool_or: boolean('bool_or', false) as AggregateFunction,
  string_agg: stringAgg as AggregateFunction,
  covar: coMoment('covar_samp', (s) => (s.count < 2 ? null : s.c / (s.count - 1))) as AggregateFunction,
  covar_samp: coMoment('covar_samp', (s) => (s.count < 2 ? null : s.c / (s.count - 1))) as AggregateFunction,
  covar_pop: coMoment('covar_pop', (s) => (s.count === 0 ? null : s.c / s.count)) as AggregateFunction,
  corr: coMoment('corr', (s) =>
    s.count < 2 || s.m2x === 0 || s.m2y === 0 ? null : s.c / Math.sqrt(s.m2x * s.m2y),
  ) as AggregateFunction,
};
