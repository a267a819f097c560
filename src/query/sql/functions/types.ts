/**
 * The shapes every function implementation has. Kept apart from registry.ts so that family files
 * can import them without an import cycle through the registry.
 */
import type { DataType } from '../../../shared/types.js';
import type { Value } from '../types/values.js';

/** Direction of one ordering key of an ordered aggregate (plan.ts re-exports the same shape). */
export interface AggregateOrder {
  descending: boolean;
  nullsFirst: boolean;
}

/** What evaluation knows besides the data. */
export interface EvalContext {
  /** Statement start: `now()` is stable within a statement and across shards. */
  nowNanos: bigint;
  /** Session time zone, for functions that read zone-less timestamp text. */
  timezone: string;
}

/** Argument casts the binder must insert, and the result type. */
export interface Signature {
  argTypes: DataType[];
  returnType: DataType;
}

/** A function evaluated row-wise over whole columns. */
export interface ScalarFunction {
  kind: 'scalar';
  name: string;
  /**
   * Checks argument types (throwing a plan error when they do not fit) and picks the signature.
   * `literals[i]` is argument i's value when it is a constant (undefined otherwise).
   */
  bind(argTypes: DataType[], literals?: Array<Value | undefined>): Signature;
  /**
   * Column-at-a-time evaluation: `args[i]` holds `rowCount` values of argument i, of type
   * `argTypes[i]` (what `bind` chose).
   */
  evaluate(args: Value[][], rowCount: number, ctx: EvalContext, returnType: DataType, argTypes?: DataType[]): Value[];
  /**
   * Which argument `evaluateInt64` takes unboxed: when it is a column read straight from a storage
   * vector of int64 cells without NULLs (a time index), evaluation goes there instead.
   */
  int64Arg?: number;
  /** `evaluate` with argument `int64Arg` as its storage cells (`args[int64Arg]` is undefined). */
  evaluateInt64?(
    args: Array<Value[] | undefined>,
    column: Int64Column,
    rowCount: number,
    ctx: EvalContext,
    returnType: DataType,
  ): Value[];
}

/** An int64 storage column, row r at cell `selection[r]` (r itself without a selection). */
export interface Int64Column {
  values: BigInt64Array;
  /** The same cells as 32-bit words, low word first: compared without making a BigInt. */
  words: Int32Array;
  selection: Uint32Array | undefined;
}

/**
 * An aggregate as partial states. A state is plain data (it travels from shard to router by
 * structured clone) that `update` and `merge` mutate in place.
 */
export interface AggregateFunction<S = unknown> {
  kind: 'aggregate';
  name: string;
  bind(argTypes: DataType[], literals?: Array<Value | undefined>): Signature;
  /**
   * A fresh state. `literals[i]` is argument i's value when it is a constant, so a state can carry
   * parameters (a sketch's size) even for a group that sees no rows.
   */
  create(literals?: Array<Value | undefined>): S;
  /**
   * Folds rows into their groups' states: row r goes to `states[groupOf[r]]`. With `order`, the
   * trailing `order.length` arguments are ordering keys (`first_value(x ORDER BY y)`).
   */
  update(
    states: S[],
    groupOf: Uint32Array,
    args: Value[][],
    rowCount: number,
    argTypes: DataType[],
    order?: AggregateOrder[],
  ): void;
  merge(into: S, from: S, order?: AggregateOrder[]): void;
  /**
   * Optional: folds rows `[from, to)` of one Float64 column (`valid[r] === 0`: NULL; no `valid`:
   * none is) into one group's state, exactly as `update` would fold the same values in the same
   * order, without boxing them. `values` is null for a call without arguments (`count(*)`).
   */
  updateFloat64Run?(
    state: S,
    values: Float64Array | null,
    valid: Uint8Array | undefined,
    from: number,
    to: number,
  ): void;
  /**
   * Optional, with `updateFloat64Run`: folds `rows` rows of one series by their statistics, as
   * storage keeps them (src/shared/scan.ts, `SeriesSummary`): of one Float64 column, `present`
   * values (none NaN) with their `sum`, `min` and `max`. `present` is null for `count(*)`.
   */
  updateSummary?(state: S, rows: number, present: number | null, sum: number, min: number, max: number): void;
  /** The result of a merged state; `order` as in `update`. */
  finish(state: S, returnType: DataType, order?: AggregateOrder[]): Value;
}

/** Any registered function. */
export type SqlFunction = ScalarFunction | AggregateFunction;

/** Applies `fn` row by row; any NULL argument gives NULL. */
export function mapRows(args: Value[][], rowCount: number, fn: (...values: Value[]) => Value): Value[] {
  const out = new Array<Value>(rowCount);
  // One, two and three arguments without an array per row: most calls have them, and the array
  // and spread of the general case were most of a cheap function's cost over a large batch.
  const [a, b, c] = args as [Value[], Value[], Value[]];
  switch (args.length) {
    case 1:
      for (let r = 0; r < rowCount; r++) {
        const x = a[r] as Value;
        out[r] = x === null ? null : fn(x);
      }
      return out;
    case 2:
      for (let r = 0; r < rowCount; r++) {
        const x = a[r] as Value;
        const y = b[r] as Value;
        out[r] = x === null || y === null ? null : fn(x, y);
      }
      return out;
    case 3:
      for (let r = 0; r < rowCount; r++) {
        const x = a[r] as Value;
        const y = b[r] as Value;
        const z = c[r] as Value;
        out[r] = x === null || y === null || z === null ? null : fn(x, y, z);
      }
      return out;
  }
  for (let r = 0; r < rowCount; r++) {
    const values = args.map((col) => col[r] as Value);
    out[r] = values.some((v) => v === null) ? null : fn(...values);
  }
  return out;
}
