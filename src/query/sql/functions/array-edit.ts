/**
 * DataFusion's array functions that edit or inspect one list: array_remove_n, array_replace,
 * array_replace_n, array_replace_all, array_resize, array_pop_front/back, array_positions,
 * array_any_value, flatten, array_ndims, array_dims and array_distance (with their list_* aliases). A NULL list
 * gives NULL. Replacing and finding positions match NULL items against a NULL value, as
 * DataFusion's `not_distinct` comparison does; removing with a NULL value gives NULL.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, listItemTypeOf, listTypeOf } from '../../../shared/types.js';
import { commonType, planError } from '../types/coercion.js';
import { arrowNameOf, isInteger, isNumericOrDecimal } from '../types/type-names.js';
import { compareValues, type Value } from '../types/values.js';
import { itemTypeOf, rows } from './array-extra.js';
import { compareNullsFirst } from './array-set.js';
import { signatureError } from './typed.js';
import { mapRows, type ScalarFunction } from './types.js';

/** The most items array_resize builds per row, the bound range/array_repeat keep (array-extra.ts). */
const RESIZE_ITEMS_MAX = 1_000_000;

const notDistinct = (a: Value, b: Value): boolean => compareNullsFirst(a, b) === 0;

/**
 * A function of (list, value…, integer…): the values are cast to the item type and the integers
 * to Int64. `fn` sees NULL arguments and decides.
 */
function listValuesInts(
  name: string,
  values: number,
  ints: number,
  returnType: (list: DataType, item: DataType) => DataType,
  fn: (items: Value[] | null, ...rest: Value[]) => Value,
  optionalValues = 0,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const [listType, ...rest] = argTypes as [DataType, ...DataType[]];
      // Optional values come after the integers (array_resize(list, size[, value])).
      const leading = values - optionalValues;
      const ok =
        argTypes.length >= 1 + values + ints - optionalValues &&
        argTypes.length <= 1 + values + ints &&
        rest.slice(leading, leading + ints).every((t) => t === 'Null' || isInteger(t));
      if (!ok) throw signatureError(name, argTypes);
      const valueTypes = [...rest.slice(0, leading), ...rest.slice(leading + ints)];
      const item = commonType([itemTypeOf(name, argTypes, listType), ...valueTypes]);
      if (item === null) throw signatureError(name, argTypes);
      const concrete = item === 'Null' ? 'Int64' : item;
      const list = listTypeOf(concrete);
      const cast = rest.map((_, i): DataType => (i >= leading && i < leading + ints ? 'Int64' : concrete));
      return { argTypes: [listType === 'Null' ? 'Null' : list, ...cast], returnType: returnType(list, concrete) };
    },
    evaluate: (args, rowCount) => rows(args, rowCount, (list, ...rest) => fn(list as Value[] | null, ...rest)),
  };
}

const sameList = (list: DataType): DataType => list;

/** `array_remove_n(list, x, n)`: the first `n` items equal to `x` removed; n ≤ 0 removes none. */
function removeN(items: Value[] | null, x: Value, n: Value): Value {
  if (items === null || x === null || n === null) return null;
  let left = Number(n);
  return items.filter((v) => !(left > 0 && v !== null && compareValues(v, x) === 0 && left-- > 0));
}

/**
 * Replaces items equal to `from` with `to`. DataFusion stops after the `n`-th replacement, a
 * check made only after replacing, so n ≤ 0 replaces them all.
 */
function replace(items: Value[] | null, from: Value, to: Value, n: number): Value {
  if (items === null) return null;
  let done = 0;
  let stopped = false;
  return items.map((v) => {
    if (stopped || !notDistinct(v, from)) return v;
    if (++done === n) stopped = true;
    return to;
  });
}

function executionError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Execution error: ${message}`);
}

/** `array_resize(list, size[, value])`: cut or padded with `value` (NULL without it). */
function resize(items: Value[] | null, size: Value, value: Value = null): Value {
  if (items === null) return null;
  // A NULL size reads as the 0 under its null slot.
  const n = Number(size ?? 0n);
  if (n < 0) throw executionError('array_resize: failed to convert size to usize');
  if (n > RESIZE_ITEMS_MAX) throw executionError(`array_resize would make more than ${RESIZE_ITEMS_MAX} items`);
  if (n <= items.length) return items.slice(0, n);
  return [...items, ...new Array<Value>(n - items.length).fill(value)];
}

/** A function of one list alone. */
function oneList(
  name: string,
  returnType: (list: DataType) => DataType,
  fn: (items: Value[]) => Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 1) throw signatureError(name, argTypes);
      itemTypeOf(name, argTypes, argTypes[0] as DataType);
      return { argTypes, returnType: returnType(argTypes[0] as DataType) };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, (list) => fn(list as Value[])),
  };
}

/** List nesting depth of a type: 0 for a scalar. */
function depthOf(t: DataType): number {
  let depth = 0;
  for (let item = listItemTypeOf(t); item !== null; item = listItemTypeOf(item)) depth++;
  return depth;
}

/** `flatten`: one level of nesting removed (NULL inner lists dropped); a flat list is unchanged. */
const flatten: ScalarFunction = {
  kind: 'scalar',
  name: 'flatten',
  bind(argTypes) {
    if (argTypes.length !== 1) throw signatureError('flatten', argTypes);
    const item = itemTypeOf('flatten', argTypes, argTypes[0] as DataType);
    const inner = listItemTypeOf(item);
    return { argTypes, returnType: inner === null ? (argTypes[0] as DataType) : item };
  },
  evaluate(args, rowCount, _ctx, _returnType, argTypes = []) {
    const nested = listItemTypeOf(listItemTypeOf(argTypes[0] ?? 'Null') ?? 'Null') !== null;
    return mapRows(args, rowCount, (list) =>
      nested ? (list as Value[]).flatMap((inner) => (inner === null ? [] : (inner as Value[]))) : list,
    );
  },
};

/** `array_dims`: the length at each level, following first items; NULL for an empty list. */
function dims(items: Value[], depth: number): Value {
  if (items.length === 0) return null;
  const out: Value[] = [];
  let level: Value = items;
  for (let d = 0; d < depth && Array.isArray(level); d++) {
    out.push(BigInt(level.length));
    level = level[0] ?? null;
  }
  return out;
}

function positions(items: Value[] | null, x: Value): Value {
  if (items === null) return null;
  const out: Value[] = [];
  items.forEach((v, i) => {
    if (notDistinct(v, x)) out.push(BigInt(i + 1));
  });
  return out;
}

const removeNFn = listValuesInts('array_remove_n', 1, 1, sameList, removeN);
const replaceOne = listValuesInts('array_replace', 2, 0, sameList, (items, from, to) =>
  replace(items, from as Value, to as Value, 1),
);
const replaceN = listValuesInts('array_replace_n', 2, 1, sameList, (items, from, to, n) =>
  replace(items, from as Value, to as Value, Number(n ?? 0n)),
);
const replaceAll = listValuesInts('array_replace_all', 2, 0, sameList, (items, from, to) =>
  replace(items, from as Value, to as Value, 0),
);
const resizeFn = listValuesInts(
  'array_resize',
  1,
  1,
  sameList,
  (items, size, value) => resize(items, size as Value, value),
  1,
);
const positionsFn = listValuesInts(
  'array_positions',
  1,
  0,
  () => listTypeOf('UInt64'),
  (items, x) => positions(items, x as Value),
);
const popFront = oneList(
  'array_pop_front',
  (t) => t,
  (items) => items.slice(1),
);
const popBack = oneList(
  'array_pop_back',
  (t) => t,
  (items) => items.slice(0, -1),
);
const anyValue = oneList(
  'array_any_value',
  (t) => listItemTypeOf(t) ?? 'Null',
  (items) => items.find((v) => v !== null) ?? null,
);
const ndims: ScalarFunction = {
  ...oneList(
    'array_ndims',
    () => 'UInt64',
    () => null,
  ),
  evaluate: (args, rowCount, _ctx, _returnType, argTypes = []) =>
    mapRows(args, rowCount, () => BigInt(depthOf(argTypes[0] ?? 'Null'))),
};
const dimsFn: ScalarFunction = {
  ...oneList(
    'array_dims',
    () => listTypeOf('UInt64'),
    () => null,
  ),
  evaluate: (args, rowCount, _ctx, _returnType, argTypes = []) =>
    mapRows(args, rowCount, (list) => dims(list as Value[], depthOf(argTypes[0] ?? 'Null'))),
};

/** `array_distance(a, b)`: the Euclidean distance of two numeric lists; NULL when either holds a NULL. */
const arrayDistance: ScalarFunction = {
  kind: 'scalar',
  name: 'array_distance',
  bind(argTypes) {
    if (argTypes.length !== 2) throw signatureError('array_distance', argTypes);
    for (const t of argTypes) {
      if (t === 'Null') continue;
      const item = listItemTypeOf(t);
      if (item === null) throw planError(`array_distance does not support type ${arrowNameOf(t)}`);
      if (listItemTypeOf(item) !== null) {
        throw planError(`array_distance only supports one-dimensional arrays, got ${arrowNameOf(t)}`);
      }
      if (!(item === 'Null' || isNumericOrDecimal(item))) throw signatureError('array_distance', argTypes);
    }
    return { argTypes, returnType: 'Float64' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (a, b) => {
      const x = a as Value[];
      const y = b as Value[];
      if (x.includes(null) || y.includes(null)) return null;
      if (x.length !== y.length) throw executionError('Both arrays must have the same length');
      let sum = 0;
      for (let i = 0; i < x.length; i++) {
        const d = Number(x[i]) - Number(y[i]);
        sum += d * d;
      }
      return Math.sqrt(sum);
    }),
};

const alias = (fn: ScalarFunction, name: string): ScalarFunction => ({ ...fn, name });

/** The editing and inspecting array functions by SQL name. */
export const ARRAY_EDIT_FUNCTIONS: Record<string, ScalarFunction> = {
  array_remove_n: removeNFn,
  list_remove_n: alias(removeNFn, 'list_remove_n'),
  array_replace: replaceOne,
  list_replace: alias(replaceOne, 'list_replace'),
  array_replace_n: replaceN,
  list_replace_n: alias(replaceN, 'list_replace_n'),
  array_replace_all: replaceAll,
  list_replace_all: alias(replaceAll, 'list_replace_all'),
  array_resize: resizeFn,
  list_resize: alias(resizeFn, 'list_resize'),
  array_positions: positionsFn,
  list_positions: alias(positionsFn, 'list_positions'),
  array_pop_front: popFront,
  list_pop_front: alias(popFront, 'list_pop_front'),
  array_pop_back: popBack,
  list_pop_back: alias(popBack, 'list_pop_back'),
  array_any_value: anyValue,
  list_any_value: alias(anyValue, 'list_any_value'),
  flatten,
  array_distance: arrayDistance,
  list_distance: alias(arrayDistance, 'list_distance'),
  array_ndims: ndims,
  list_ndims: alias(ndims, 'list_ndims'),
  array_dims: dimsFn,
  list_dims: alias(dimsFn, 'list_dims'),
};
