/**
 * A builder for functions with a fixed list of parameter kinds, for the families that take more
 * than strings and integers (string.ts's `fixed` takes only those). Argument checks fail with the
 * same planning error DataFusion gives for an unmatched signature, so every family reports a
 * wrong call the same way.
 */
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf, isInteger, isNumericOrDecimal } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { mapRows, type ScalarFunction } from './types.js';

/** What one parameter accepts, and the type its argument is cast to. */
export type ParamKind = 'string' | 'integer' | 'float' | 'boolean';

const CAST_TO: Record<ParamKind, DataType> = {
  string: 'String',
  integer: 'Int64',
  float: 'Float64',
  boolean: 'Boolean',
};

function accepts(kind: ParamKind, t: DataType): boolean {
  if (t === 'Null') return true;
  switch (kind) {
    case 'string':
      return t === 'String';
    case 'integer':
      return isInteger(t);
    case 'float':
      return isNumericOrDecimal(t);
    case 'boolean':
      return t === 'Boolean';
  }
}

/** The planning error for a call no signature of `name` matches. */
export function signatureError(name: string, argTypes: DataType[]): Error {
  return planError(
    `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
  );
}

/**
 * Binds a call with one argument per parameter, each argument type mapped to the type it is cast
 * to by `bindParam` (null: the parameter refuses it, and the call fails as no signature matching).
 */
export function bindEach<P>(
  name: string,
  argTypes: DataType[],
  params: readonly P[],
  bindParam: (param: P, t: DataType) => DataType | null,
): DataType[] {
  const bound = argTypes.length === params.length ? argTypes.map((t, i) => bindParam(params[i] as P, t)) : [];
  if (argTypes.length !== params.length || bound.some((t) => t === null)) throw signatureError(name, argTypes);
  return bound as DataType[];
}

/**
 * A row-wise function over `params` (the trailing `optional` ones may be left out). Any NULL
 * argument gives NULL, which is DataFusion's rule for every function built this way.
 */
export function typed(
  name: string,
  params: ParamKind[],
  optional: number,
  returnType: DataType,
  fn: (...values: Value[]) => Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const ok =
        argTypes.length >= params.length - optional &&
        argTypes.length <= params.length &&
        argTypes.every((t, i) => accepts(params[i] as ParamKind, t));
      if (!ok) throw signatureError(name, argTypes);
      return { argTypes: params.slice(0, argTypes.length).map((k) => CAST_TO[k]), returnType };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, fn),
  };
}
