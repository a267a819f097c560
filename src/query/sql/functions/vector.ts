/**
 * GreptimeDB's vector functions. A vector is a list of Float32 values, given either as text
 * (`'[1.0, 2.0]'`) or as Binary: its floats as little-endian 4-byte words, which is how a
 * `VECTOR(n)` column stores it and what every function returning a vector gives back
 * (`vec_to_string` turns one back into text). Element-wise arithmetic rounds to Float32 at each
 * step as GreptimeDB's f32 kernels do; distances are computed in Float64 over the Float32 inputs.
 *
 * Scalars: parse_vec, vec_to_string, vec_add/sub/mul/div, vec_scalar_add/mul, vec_elem_sum,
 * vec_elem_product, vec_elem_avg, vec_norm, vec_dim, vec_kth_elem, vec_subvector, and the
 * distances cos_distance, l2sq_distance, dot_product (also as vec_cos_distance, ...).
 * Aggregates: vec_sum, vec_product (NULL as soon as one input is NULL).
 */

import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, vectorDimOf } from '../../../shared/types.js';
import { isInteger, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { binaryOfVector, readVectorBinary, readVectorText, vectorText } from '../types/vector-value.js';
import { signatureError } from './typed.js';
import { type AggregateFunction, mapRows, type ScalarFunction } from './types.js';

/** GreptimeDB reports a bad vector argument while executing, as InvalidFuncArgs under 3001. */
function invalidArgs(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Invalid function args: ${message}`);
}

/** Vector text as a function argument; GreptimeDB words a bad one per Rust's float parser. */
function parseVectorText(text: string): Float32Array {
  const v = readVectorText(text);
  if (v === 'brackets') throw invalidArgs(`Failed to parse ${text} to Vector value: not properly enclosed in brackets`);
  if (typeof v === 'string') throw invalidArgs(`Failed to parse ${text} to Vector value: invalid float literal`);
  return v;
}

function vectorOfBinary(bytes: string): Float32Array {
  const v = readVectorBinary(bytes);
  if (v === null) throw invalidArgs(`Invalid binary length of vector: ${bytes.length}`);
  return v;
}

/** Reads one argument as a vector, by the type it was bound to (text parsed, Binary decoded). */
function reader(type: DataType): (v: Value) => Float32Array {
  if (type === 'Binary') return (v) => vectorOfBinary(v as string);
  // A column of text repeats its value (a literal broadcast over the rows): parse it once.
  let lastText: string | null = null;
  let last: Float32Array = new Float32Array(0);
  return (v) => {
    if (v !== lastText) {
      last = parseVectorText(v as string);
      lastText = v as string;
    }
    return last;
  };
}

function bindVector(t: DataType): DataType | null {
  if (t === 'String' || t === 'Binary') return t;
  // A VECTOR(n) column is read as the Binary it holds.
  if (vectorDimOf(t) !== null) return 'Binary';
  return t === 'Null' ? 'String' : null;
}

type Param = 'vector' | 'float' | 'integer';

function bindParam(param: Param, t: DataType): DataType | null {
  if (param === 'vector') return bindVector(t);
  if (t === 'Null') return param === 'float' ? 'Float64' : 'Int64';
  if (param === 'float') return isNumericOrDecimal(t) ? 'Float64' : null;
  return isInteger(t) ? 'Int64' : null;
}

/** A row-wise vector function: vector parameters arrive decoded; a NULL argument gives NULL. */
function vectorFunction(
  name: string,
  params: Param[],
  returnType: DataType,
  fn: (...args: Array<Float32Array | number>) => Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const bound = argTypes.length === params.length ? argTypes.map((t, i) => bindParam(params[i] as Param, t)) : [];
      if (argTypes.length !== params.length || bound.some((t) => t === null)) throw signatureError(name, argTypes);
      return { argTypes: bound as DataType[], returnType };
    },
    evaluate(args, rowCount, _ctx, _returnType, argTypes) {
      const readers = params.map((p, i) =>
        p === 'vector' ? reader(argTypes?.[i] ?? 'String') : (v: Value) => Number(v as number | bigint),
      );
      return mapRows(args, rowCount, (...values) =>
        fn(...values.map((v, i) => (readers[i] as (x: Value) => never)(v))),
      );
    },
  };
}

function sameLength(a: Float32Array, b: Float32Array, what: string): void {
  if (a.length !== b.length) {
    throw invalidArgs(`The length of the vectors must match ${what}, have: ${a.length} vs ${b.length}`);
  }
}

function elementwise(name: string, op: (x: number, y: number) => number): ScalarFunction {
  return vectorFunction(name, ['vector', 'vector'], 'Binary', (a, b) => {
    const x = a as Float32Array;
    const y = b as Float32Array;
    sameLength(x, y, `to ${name.slice(4)}`);
    const out = new Float32Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = op(x[i] as number, y[i] as number);
    return binaryOfVector(out);
  });
}

function scalarWise(name: string, op: (s: number, x: number) => number): ScalarFunction {
  return vectorFunction(name, ['float', 'vector'], 'Binary', (s, v) => {
    const x = v as Float32Array;
    const scalar = Math.fround(s as number);
    const out = new Float32Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = op(scalar, x[i] as number);
    return binaryOfVector(out);
  });
}

/** A Float32 sum folded in order, each step rounded as f32 addition rounds. */
function f32Sum(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum = Math.fround(sum + (v[i] as number));
  return sum;
}

function distance(name: string, fn: (a: Float32Array, b: Float32Array) => number): ScalarFunction {
  return vectorFunction(name, ['vector', 'vector'], 'Float64', (a, b) => {
    sameLength(a as Float32Array, b as Float32Array, 'to calculate distance');
    return fn(a as Float32Array, b as Float32Array);
  });
}

function dot(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  for (let i = 0; i < a.length; i++) ab += (a[i] as number) * (b[i] as number);
  return ab;
}

/** 1 − cos θ; a zero vector against a non-zero one is 1, two zero vectors 0 (as SimSIMD defines it). */
function cosDistance(a: Float32Array, b: Float32Array): number {
  const ab = dot(a, b);
  const a2 = dot(a, a);
  const b2 = dot(b, b);
  if (a2 === 0 && b2 === 0) return 0;
  if (ab === 0) return 1;
  return Math.max(0, 1 - ab / Math.sqrt(a2 * b2));
}

function l2sq(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    sum += d * d;
  }
  return sum;
}

interface VectorFold {
  acc: number[] | null;
  sawNull: boolean;
}

/** vec_sum / vec_product: element-wise over the rows, in Float32; one NULL row makes the result NULL. */
function vectorAggregate(
  name: string,
  identity: number,
  op: (acc: number, x: number) => number,
): AggregateFunction<VectorFold> {
  const fold = (state: VectorFold, v: Float32Array): void => {
    if (state.acc === null) state.acc = new Array<number>(v.length).fill(identity);
    const acc = state.acc;
    if (acc.length !== v.length)
      throw invalidArgs(`The length of the vectors must match to ${name}, have: ${acc.length} vs ${v.length}`);
    for (let i = 0; i < v.length; i++) acc[i] = Math.fround(op(acc[i] as number, v[i] as number));
  };
  return {
    kind: 'aggregate',
    name,
    bind(argTypes) {
      const t = argTypes.length === 1 ? bindVector(argTypes[0] as DataType) : null;
      if (t === null) throw signatureError(name, argTypes);
      return { argTypes: [t], returnType: 'Binary' };
    },
    create: () => ({ acc: null, sawNull: false }),
    update(states, groupOf, args, rowCount, argTypes) {
      const read = reader(argTypes[0] ?? 'String');
      const col = args[0] as Value[];
      for (let r = 0; r < rowCount; r++) {
        const state = states[groupOf[r] as number] as VectorFold;
        const v = col[r];
        if (v === null || v === undefined) state.sawNull = true;
        else if (!state.sawNull) fold(state, read(v));
      }
    },
    merge(into, from) {
      if (from.sawNull) into.sawNull = true;
      if (into.sawNull) {
        into.acc = null;
        return;
      }
      if (from.acc !== null) fold(into, Float32Array.from(from.acc));
    },
    finish: (state) => (state.sawNull || state.acc === null ? null : binaryOfVector(Float32Array.from(state.acc))),
  };
}

const cos = distance('cos_distance', cosDistance);
const l2 = distance('l2sq_distance', l2sq);
const dotProduct = distance('dot_product', dot);

/** Vector functions by SQL name. */
export const VECTOR_FUNCTIONS: Record<string, ScalarFunction | AggregateFunction<VectorFold>> = {
  parse_vec: vectorFunction('parse_vec', ['vector'], 'Binary', (v) => binaryOfVector(v as Float32Array)),
  vec_to_string: vectorFunction('vec_to_string', ['vector'], 'String', (v) => vectorText(v as Float32Array)),
  vec_add: elementwise('vec_add', (x, y) => x + y),
  vec_sub: elementwise('vec_sub', (x, y) => x - y),
  vec_mul: elementwise('vec_mul', (x, y) => x * y),
  vec_div: elementwise('vec_div', (x, y) => x / y),
  vec_scalar_add: scalarWise('vec_scalar_add', (s, x) => s + x),
  vec_scalar_mul: scalarWise('vec_scalar_mul', (s, x) => s * x),
  vec_elem_sum: vectorFunction('vec_elem_sum', ['vector'], 'Float32', (v) => f32Sum(v as Float32Array)),
  vec_elem_product: vectorFunction('vec_elem_product', ['vector'], 'Float32', (v) => {
    let product = 1;
    for (const x of v as Float32Array) product = Math.fround(product * x);
    return product;
  }),
  vec_elem_avg: vectorFunction('vec_elem_avg', ['vector'], 'Float32', (v) => {
    const x = v as Float32Array;
    return x.length === 0 ? null : Math.fround(f32Sum(x) / x.length);
  }),
  vec_norm: vectorFunction('vec_norm', ['vector'], 'Binary', (v) => {
    const x = v as Float32Array;
    let squares = 0;
    for (let i = 0; i < x.length; i++)
      squares = Math.fround(squares + Math.fround((x[i] as number) * (x[i] as number)));
    const norm = Math.fround(Math.sqrt(squares));
    return binaryOfVector(x.map((e) => e / norm));
  }),
  vec_dim: vectorFunction('vec_dim', ['vector'], 'UInt64', (v) => BigInt((v as Float32Array).length)),
  vec_kth_elem: vectorFunction('vec_kth_elem', ['vector', 'integer'], 'Float32', (v, k) => {
    const x = v as Float32Array;
    // Rust's float-to-usize cast: truncated, negatives to 0.
    const index = Math.max(0, Math.trunc(k as number));
    if (index < 1 || index > x.length)
      throw invalidArgs(`Invalid k: ${index}. k must be in the range [1, ${x.length}]`);
    return x[index - 1] as number;
  }),
  vec_subvector: vectorFunction('vec_subvector', ['vector', 'integer', 'integer'], 'Binary', (v, s, e) => {
    const x = v as Float32Array;
    const start = s as number;
    const end = e as number;
    if (!(start >= 0 && start <= end && end <= x.length)) {
      throw invalidArgs(`Invalid start and end indices: start=${start}, end=${end}, vec_len=${x.length}`);
    }
    return binaryOfVector(x.subarray(start, end));
  }),
  cos_distance: cos,
  l2sq_distance: l2,
  dot_product: dotProduct,
  vec_cos_distance: { ...cos, name: 'vec_cos_distance' },
  vec_l2sq_distance: { ...l2, name: 'vec_l2sq_distance' },
  vec_dot_product: { ...dotProduct, name: 'vec_dot_product' },
  vec_sum: vectorAggregate('vec_sum', 0, (acc, x) => acc + x),
  vec_product: vectorAggregate('vec_product', 1, (acc, x) => acc * x),
};
