/**
 * DataFusion's list-building array functions: array_append/prepend/concat, array_slice,
 * array_sort, array_reverse, array_remove(_all), array_max/min, array_empty, array_has_all/any,
 * array_repeat, range and generate_series. A NULL list gives NULL; a NULL element is kept as a
 * NULL item where the function adds one (append, prepend, repeat).
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, listItemTypeOf, listTypeOf } from '../../../shared/types.js';
import { commonType } from '../types/coercion.js';
import { isInteger } from '../types/type-names.js';
import { compareValues, type Value } from '../types/values.js';
import { signatureError } from './typed.js';
import { mapRows, type ScalarFunction } from './types.js';

/** The item type of list argument `t` ('Null' for a NULL literal), or a signature error naming the call. */
export function itemTypeOf(name: string, argTypes: DataType[], t: DataType): DataType {
  if (t === 'Null') return 'Null';
  const item = listItemTypeOf(t);
  if (item === null) throw signatureError(name, argTypes);
  return item;
}

/** The common item type of a function's two list arguments, or the function's signature error. */
export function twoListsItem(name: string, argTypes: DataType[]): DataType {
  if (argTypes.length !== 2) throw signatureError(name, argTypes);
  const item = commonType(argTypes.map((t) => itemTypeOf(name, argTypes, t)));
  if (item === null) throw signatureError(name, argTypes);
  return item;
}

/** Runs `fn` per row with NULL arguments passed through (the caller decides). */
export function rows(args: Value[][], rowCount: number, fn: (...values: Value[]) => Value): Value[] {
  const out = new Array<Value>(rowCount);
  for (let r = 0; r < rowCount; r++) out[r] = fn(...args.map((a) => (a[r] ?? null) as Value));
  return out;
}

const same = (a: Value, b: Value): boolean => a !== null && b !== null && compareValues(a, b) === 0;

/** `array_append(list, x)` / `array_prepend(x, list)`: the list with one more item. */
function addItem(name: string, listFirst: boolean): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 2) throw signatureError(name, argTypes);
      const [listType, elemType] = (listFirst ? argTypes : [argTypes[1], argTypes[0]]) as [DataType, DataType];
      const item = commonType([itemTypeOf(name, argTypes, listType), elemType]);
      if (item === null) throw signatureError(name, argTypes);
      const list = listTypeOf(item === 'Null' ? 'Int64' : item);
      return { argTypes: listFirst ? [list, item] : [item, list], returnType: list };
    },
    evaluate: (args, rowCount) =>
      rows(args, rowCount, (a, b) => {
        const list = (listFirst ? a : b) as Value[] | null;
        const x = listFirst ? b : a;
        if (list === null) return null;
        return listFirst ? [...list, x] : [x, ...list];
      }),
  };
}

const concat: ScalarFunction = {
  kind: 'scalar',
  name: 'array_concat',
  bind(argTypes) {
    if (argTypes.length === 0) throw signatureError('array_concat', argTypes);
    const item = commonType(argTypes.map((t) => itemTypeOf('array_concat', argTypes, t)));
    if (item === null) throw signatureError('array_concat', argTypes);
    const list = listTypeOf(item === 'Null' ? 'Int64' : item);
    return { argTypes: argTypes.map(() => list), returnType: list };
  },
  // NULL lists are skipped; all NULL gives NULL.
  evaluate: (args, rowCount) =>
    rows(args, rowCount, (...lists) => {
      const present = lists.filter((l) => l !== null) as Value[][];
      return present.length === 0 ? null : present.flat(1);
    }),
};

/** A function of one list and integer parameters, returning a list of the same type. */
function listAndIntegers(
  name: string,
  integers: number,
  optional: number,
  fn: (items: Value[], ...n: number[]) => Value,
  returnType: 'list' | DataType = 'list',
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const ok =
        argTypes.length >= 1 + integers - optional &&
        argTypes.length <= 1 + integers &&
        argTypes.slice(1).every((t) => t === 'Null' || isInteger(t));
      if (!ok) throw signatureError(name, argTypes);
      const list = argTypes[0] as DataType;
      itemTypeOf(name, argTypes, list);
      return {
        argTypes: [list, ...argTypes.slice(1).map((): DataType => 'Int64')],
        returnType: returnType === 'list' ? list : returnType,
      };
    },
    evaluate: (args, rowCount) =>
      mapRows(args, rowCount, (list, ...n) => fn(list as Value[], ...n.map((v) => Number(v)))),
  };
}

/** `array_slice(list, from, to[, stride])`: 1-based and inclusive; negative indexes count from the end. */
function slice(items: Value[], from: number, to: number, stride = 1): Value {
  const n = items.length;
  const start = from < 0 ? n + from : Math.max(0, from - 1);
  const end = to < 0 ? n + to : Math.min(n - 1, to - 1);
  const out: Value[] = [];
  if (stride === 0) return out;
  for (let i = start; stride > 0 ? i <= end : i >= end; i += stride) {
    if (i >= 0 && i < n) out.push(items[i] as Value);
  }
  return out;
}

/** `array_sort(list[, 'ASC'|'DESC'[, 'NULLS FIRST'|'NULLS LAST']])`: NULLs first by default. */
const sort: ScalarFunction = {
  kind: 'scalar',
  name: 'array_sort',
  bind(argTypes) {
    const ok = argTypes.length >= 1 && argTypes.length <= 3 && argTypes.slice(1).every((t) => t === 'String');
    if (!ok) throw signatureError('array_sort', argTypes);
    itemTypeOf('array_sort', argTypes, argTypes[0] as DataType);
    return { argTypes, returnType: argTypes[0] as DataType };
  },
  evaluate: (args, rowCount) =>
    rows(args, rowCount, (list, direction = 'ASC', nulls = 'NULLS FIRST') => {
      if (list === null) return null;
      const descending = String(direction).toUpperCase() === 'DESC';
      const nullsFirst = String(nulls).toUpperCase() !== 'NULLS LAST';
      return [...(list as Value[])].sort((a, b) => {
        if (a === null || b === null) return a === b ? 0 : (a === null) === nullsFirst ? -1 : 1;
        return descending ? compareValues(b, a) : compareValues(a, b);
      });
    }),
};

/** A function of (list, value) whose value is cast to the item type. */
function listAndValue(
  name: string,
  returnType: 'list' | DataType,
  fn: (items: Value[], x: Value) => Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 2) throw signatureError(name, argTypes);
      const item = commonType([itemTypeOf(name, argTypes, argTypes[0] as DataType), argTypes[1] as DataType]);
      if (item === null) throw signatureError(name, argTypes);
      const list = listTypeOf(item);
      return { argTypes: [list, item], returnType: returnType === 'list' ? list : returnType };
    },
    evaluate: (args, rowCount) =>
      rows(args, rowCount, (list, x) => (list === null || x === null ? null : fn(list as Value[], x))),
  };
}

function removeFirst(items: Value[], x: Value): Value {
  const i = items.findIndex((v) => same(v, x));
  return i < 0 ? items : [...items.slice(0, i), ...items.slice(i + 1)];
}

/** A function of two lists of one item type. */
function twoLists(name: string, fn: (a: Value[], b: Value[]) => Value): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const item = twoListsItem(name, argTypes);
      return { argTypes: argTypes.map(() => listTypeOf(item)), returnType: 'Boolean' };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, (a, b) => fn(a as Value[], b as Value[])),
  };
}

/** `array_max` / `array_min`: the extreme non-NULL item, NULL for an empty list. */
function extreme(name: string, sign: number): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 1) throw signatureError(name, argTypes);
      return { argTypes, returnType: itemTypeOf(name, argTypes, argTypes[0] as DataType) };
    },
    evaluate: (args, rowCount) =>
      mapRows(args, rowCount, (list) => {
        let best: Value = null;
        for (const v of list as Value[])
          if (v !== null && (best === null || sign * compareValues(v, best) > 0)) best = v;
        return best;
      }),
  };
}

/**
 * The most items range/generate_series/array_repeat build per row: a guard against `range(1e18)`
 * taking the router's memory, far above any list a dashboard query needs.
 */
const SERIES_ITEMS_MAX = 1_000_000;

function executionError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Execution error: ${message}`);
}

/** `range(start, stop[, step])` excludes `stop`; `generate_series` includes it. Steps of 0 are refused. */
function series(name: string, inclusive: boolean): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const ok = argTypes.length >= 1 && argTypes.length <= 3 && argTypes.every((t) => t === 'Null' || isInteger(t));
      if (!ok) throw signatureError(name, argTypes);
      return { argTypes: argTypes.map((): DataType => 'Int64'), returnType: listTypeOf('Int64') };
    },
    evaluate: (args, rowCount) =>
      mapRows(args, rowCount, (...v) => {
        const [start, stop, step] =
          v.length === 1
            ? [0n, v[0] as bigint, 1n]
            : [v[0] as bigint, v[1] as bigint, (v[2] as bigint | undefined) ?? 1n];
        if (step === 0n) throw executionError(`step can't be 0 for function ${name}(start [, stop, step])`);
        const out: Value[] = [];
        for (
          let i = start;
          step > 0n ? (inclusive ? i <= stop : i < stop) : inclusive ? i >= stop : i > stop;
          i += step
        ) {
          if (out.length === SERIES_ITEMS_MAX)
            throw executionError(`${name} would make more than ${SERIES_ITEMS_MAX} items`);
          out.push(i);
        }
        return out;
      }),
  };
}

const arrayRepeat: ScalarFunction = {
  kind: 'scalar',
  name: 'array_repeat',
  bind(argTypes) {
    const [x, n] = argTypes as [DataType, DataType];
    if (argTypes.length !== 2 || !(n === 'Null' || isInteger(n))) throw signatureError('array_repeat', argTypes);
    return { argTypes: [x, 'Int64'], returnType: listTypeOf(x === 'Null' ? 'Int64' : x) };
  },
  evaluate: (args, rowCount) =>
    rows(args, rowCount, (x, n) => {
      if (n === null) return null;
      const count = Math.max(0, Number(n));
      if (count > SERIES_ITEMS_MAX) throw executionError(`array_repeat would make more than ${SERIES_ITEMS_MAX} items`);
      return new Array<Value>(count).fill(x);
    }),
};

const appendItem = addItem('array_append', true);
const reverse = listAndIntegers('array_reverse', 0, 0, (items) => [...items].reverse());
const arrayMax = extreme('array_max', 1);
const arrayMin = extreme('array_min', -1);
const hasAll = twoLists('array_has_all', (a, b) => b.every((x) => x === null || a.some((v) => same(v, x))));
const hasAny = twoLists('array_has_any', (a, b) => b.some((x) => a.some((v) => same(v, x))));
const removeOne = listAndValue('array_remove', 'list', removeFirst);
const removeAll = listAndValue('array_remove_all', 'list', (items, x) => items.filter((v) => !same(v, x)));
const prependItem = addItem('array_prepend', false);
const sliceList = listAndIntegers('array_slice', 3, 1, (items, from, to, stride) =>
  slice(items, from ?? 1, to ?? items.length, stride),
);

/** The list-building array functions by SQL name. */
export const ARRAY_EXTRA_FUNCTIONS: Record<string, ScalarFunction> = {
  array_append: appendItem,
  array_push_back: { ...appendItem, name: 'array_push_back' },
  list_append: { ...appendItem, name: 'list_append' },
  list_push_back: { ...appendItem, name: 'list_push_back' },
  array_prepend: prependItem,
  array_push_front: { ...prependItem, name: 'array_push_front' },
  list_prepend: { ...prependItem, name: 'list_prepend' },
  list_push_front: { ...prependItem, name: 'list_push_front' },
  array_concat: concat,
  array_cat: { ...concat, name: 'array_cat' },
  list_concat: { ...concat, name: 'list_concat' },
  list_cat: { ...concat, name: 'list_cat' },
  array_slice: sliceList,
  list_slice: { ...sliceList, name: 'list_slice' },
  array_sort: sort,
  list_sort: { ...sort, name: 'list_sort' },
  array_reverse: reverse,
  list_reverse: { ...reverse, name: 'list_reverse' },
  array_remove: removeOne,
  list_remove: { ...removeOne, name: 'list_remove' },
  array_remove_all: removeAll,
  list_remove_all: { ...removeAll, name: 'list_remove_all' },
  array_max: arrayMax,
  list_max: { ...arrayMax, name: 'list_max' },
  array_min: arrayMin,
  list_min: { ...arrayMin, name: 'list_min' },
  array_empty: listAndIntegers('array_empty', 0, 0, (items) => items.length === 0, 'Boolean'),
  list_empty: listAndIntegers('list_empty', 0, 0, (items) => items.length === 0, 'Boolean'),
  empty: listAndIntegers('empty', 0, 0, (items) => items.length === 0, 'Boolean'),
  array_has_all: hasAll,
  list_has_all: { ...hasAll, name: 'list_has_all' },
  array_has_any: hasAny,
  list_has_any: { ...hasAny, name: 'list_has_any' },
  array_repeat: arrayRepeat,
  list_repeat: { ...arrayRepeat, name: 'list_repeat' },
  range: series('range', false),
  generate_series: series('generate_series', true),
};
