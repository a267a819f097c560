/**
 * DataFusion's core array functions over `List<T>` values (held as JS arrays, values.ts):
 * make_array, array_length/cardinality, array_element, array_has, array_position and
 * array_to_string, with their list_* aliases. Indexes are 1-based; a negative one counts from the
 * end; an index outside the list gives NULL, as in DataFusion.
 */
import { type DataType, listItemTypeOf, listTypeOf } from '../../../shared/types.js';
import { commonType } from '../types/coercion.js';
import { isInteger } from '../types/type-names.js';
import { compareValues, type Value, valueToText } from '../types/values.js';
import { signatureError } from './typed.js';
import { mapRows, type ScalarFunction } from './types.js';

/** The list argument's item type, or a signature error naming the call. */
function itemOf(name: string, argTypes: DataType[]): DataType {
  const t = argTypes[0] as DataType;
  if (t === 'Null') return 'Null';
  const item = listItemTypeOf(t);
  if (item === null) throw signatureError(name, argTypes);
  return item;
}

const makeArray: ScalarFunction = {
  kind: 'scalar',
  name: 'make_array',
  bind(argTypes) {
    const item = argTypes.length === 0 ? 'Null' : commonType(argTypes);
    if (item === null) throw signatureError('make_array', argTypes);
    return { argTypes: argTypes.map(() => item), returnType: listTypeOf(item === 'Null' ? 'Int64' : item) };
  },
  // NULL arguments stay as NULL items: the list itself is never NULL.
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) out[r] = args.map((a) => (a[r] ?? null) as Value);
    return out;
  },
};

function length(name: string): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 1) throw signatureError(name, argTypes);
      itemOf(name, argTypes);
      return { argTypes: [argTypes[0] as DataType], returnType: 'UInt64' };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, (list) => BigInt((list as Value[]).length)),
  };
}

function element(name: string): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 2 || !(argTypes[1] === 'Null' || isInteger(argTypes[1] as DataType))) {
        throw signatureError(name, argTypes);
      }
      return { argTypes: [argTypes[0] as DataType, 'Int64'], returnType: itemOf(name, argTypes) };
    },
    evaluate: (args, rowCount) =>
      mapRows(args, rowCount, (list, index) => {
        const items = list as Value[];
        const i = Number(index);
        const at = i > 0 ? i - 1 : i < 0 ? items.length + i : -1;
        return at >= 0 && at < items.length ? (items[at] ?? null) : null;
      }),
  };
}

/** A function of (list, needle): the needle is cast to the item type. */
function search(name: string, returnType: DataType, fn: (items: Value[], needle: Value) => Value): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 2) throw signatureError(name, argTypes);
      const item = itemOf(name, argTypes);
      const needle = commonType([item, argTypes[1] as DataType]);
      if (needle === null) throw signatureError(name, argTypes);
      return { argTypes: [listTypeOf(needle), needle], returnType };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, (list, needle) => fn(list as Value[], needle)),
  };
}

function positionOf(items: Value[], needle: Value): Value {
  const i = items.findIndex((v) => v !== null && compareValues(v, needle) === 0);
  return i < 0 ? null : BigInt(i + 1);
}

/** `array_to_string(list, sep[, null_text])`: NULL items are left out unless `null_text` is given. */
function toText(name: string): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const ok =
        argTypes.length >= 2 && argTypes.length <= 3 && argTypes.slice(1).every((t) => t === 'String' || t === 'Null');
      if (!ok) throw signatureError(name, argTypes);
      itemOf(name, argTypes);
      return {
        argTypes: [argTypes[0] as DataType, ...argTypes.slice(1).map((): DataType => 'String')],
        returnType: 'String',
      };
    },
    evaluate(args, rowCount, _ctx, _returnType, argTypes = []) {
      const item = listItemTypeOf(argTypes[0] ?? 'Null') ?? 'Null';
      const out = new Array<Value>(rowCount);
      for (let r = 0; r < rowCount; r++) {
        const list = (args[0] as Value[])[r] as Value[] | null;
        const sep = (args[1] as Value[])[r] as string | null;
        if (list === null || sep === null) {
          out[r] = null;
          continue;
        }
        const nullText = args[2] ? ((args[2][r] as string | null) ?? null) : null;
        const parts: string[] = [];
        for (const v of list) {
          if (v === null) {
            if (nullText !== null) parts.push(nullText);
          } else {
            parts.push(valueToText(v, item) ?? '');
          }
        }
        out[r] = parts.join(sep);
      }
      return out;
    },
  };
}

const arrayHas = search('array_has', 'Boolean', (items, needle) =>
  items.some((v) => v !== null && compareValues(v, needle) === 0),
);
const arrayPosition = search('array_position', 'UInt64', positionOf);

/** Array functions by SQL name. */
export const ARRAY_FUNCTIONS: Record<string, ScalarFunction> = {
  make_array: makeArray,
  make_list: { ...makeArray, name: 'make_list' },
  array_length: length('array_length'),
  list_length: length('list_length'),
  cardinality: length('cardinality'),
  array_element: element('array_element'),
  array_extract: element('array_element'),
  list_element: element('list_element'),
  list_extract: element('list_element'),
  array_has: arrayHas,
  list_has: { ...arrayHas, name: 'list_has' },
  array_contains: { ...arrayHas, name: 'array_contains' },
  array_position: arrayPosition,
  array_indexof: { ...arrayPosition, name: 'array_indexof' },
  list_position: { ...arrayPosition, name: 'list_position' },
  list_indexof: { ...arrayPosition, name: 'list_indexof' },
  array_to_string: toText('array_to_string'),
  array_join: toText('array_to_string'),
  list_to_string: toText('list_to_string'),
  list_join: toText('list_to_string'),
};
