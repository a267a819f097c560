/**
 * DataFusion's set functions over lists: array_distinct, array_union, array_intersect and
 * array_except (with their list_* aliases). DataFusion compares items in its row format, which
 * treats NULL items as equal to each other and orders them first; distinct, union and intersect
 * come out sorted that way, while except keeps the first list's order.
 */
import { type DataType, listTypeOf } from '../../../shared/types.js';
import { compareValues, type Value } from '../types/values.js';
import { itemTypeOf, twoListsItem } from './array-extra.js';
import { signatureError } from './typed.js';
import type { ScalarFunction } from './types.js';

/** Total order with NULL first, as the row format sorts. */
export function compareNullsFirst(a: Value, b: Value): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return compareValues(a, b);
}

/** The items sorted, each kept once. */
function sortedDistinct(items: Value[]): Value[] {
  const sorted = [...items].sort(compareNullsFirst);
  return sorted.filter((v, i) => i === 0 || compareNullsFirst(v, sorted[i - 1] as Value) !== 0);
}

function contains(items: Value[], x: Value): boolean {
  return items.some((v) => compareNullsFirst(v, x) === 0);
}

const arrayDistinct: ScalarFunction = {
  kind: 'scalar',
  name: 'array_distinct',
  bind(argTypes) {
    if (argTypes.length !== 1) throw signatureError('array_distinct', argTypes);
    itemTypeOf('array_distinct', argTypes, argTypes[0] as DataType);
    return { argTypes, returnType: argTypes[0] as DataType };
  },
  evaluate: (args, rowCount) =>
    (args[0] as Value[]).slice(0, rowCount).map((list) => (list === null ? null : sortedDistinct(list as Value[]))),
};

type SetOp = (a: Value[] | null, b: Value[] | null) => Value;

/**
 * A function of two lists of one item type. A NULL literal (type Null) and a NULL list in a row
 * are told apart because DataFusion treats them differently: `op` sees a row's NULL list, while
 * `onNullType` answers for a Null-typed argument.
 */
function twoLists(
  name: string,
  op: SetOp,
  onNullType: (a: Value[] | null, b: Value[] | null) => Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const item = twoListsItem(name, argTypes);
      const list = listTypeOf(item === 'Null' ? 'Int64' : item);
      return { argTypes: argTypes.map((t) => (t === 'Null' ? 'Null' : list)), returnType: list };
    },
    evaluate(args, rowCount, _ctx, _returnType, argTypes = []) {
      const anyNullType = argTypes.includes('Null');
      const out = new Array<Value>(rowCount);
      for (let r = 0; r < rowCount; r++) {
        const a = ((args[0] as Value[])[r] ?? null) as Value[] | null;
        const b = ((args[1] as Value[])[r] ?? null) as Value[] | null;
        out[r] = anyNullType ? onNullType(a, b) : op(a, b);
      }
      return out;
    },
  };
}

const union: SetOp = (a, b) => {
  const left = sortedDistinct(a ?? []);
  return [...left, ...sortedDistinct(b ?? []).filter((x) => !contains(left, x))];
};

const intersect: SetOp = (a, b) => {
  const left = a ?? [];
  return sortedDistinct(b ?? []).filter((x) => contains(left, x));
};

/** Items of the first list missing from the second, first occurrences only, in order. */
const except: SetOp = (a, b) => {
  if (a === null) return null;
  const seen = [...(b ?? [])];
  const out: Value[] = [];
  for (const x of a) {
    if (!contains(seen, x)) {
      seen.push(x);
      out.push(x);
    }
  }
  return out;
};

const arrayUnion = twoLists('array_union', union, (a, b) => (a === null && b === null ? null : union(a, b)));
const arrayIntersect = twoLists('array_intersect', intersect, (a, b) => (a === null && b === null ? null : []));
// With a Null-typed argument DataFusion hands the first list back untouched.
const arrayExcept = twoLists('array_except', except, (a) => a);

/** Set functions over lists by SQL name. */
export const ARRAY_SET_FUNCTIONS: Record<string, ScalarFunction> = {
  array_distinct: arrayDistinct,
  list_distinct: { ...arrayDistinct, name: 'list_distinct' },
  array_union: arrayUnion,
  list_union: { ...arrayUnion, name: 'list_union' },
  array_intersect: arrayIntersect,
  list_intersect: { ...arrayIntersect, name: 'list_intersect' },
  array_except: arrayExcept,
  list_except: { ...arrayExcept, name: 'list_except' },
};
