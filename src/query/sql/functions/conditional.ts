/** Functions that choose among their arguments: coalesce, nullif, greatest, least. */
import type { DataType } from '../../../shared/types.js';
import { commonType, planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import { compareValues, type Value } from '../types/values.js';
import type { ScalarFunction, Signature } from './types.js';

function unify(name: string, argTypes: DataType[], minArgs: number): Signature {
  if (argTypes.length < minArgs) throw planError(`${name} requires at least ${minArgs} arguments`);
  const t = commonType(argTypes);
  if (t === null) {
    throw planError(`${name} arguments have no common type: ${argTypes.map(arrowNameOf).join(', ')}`);
  }
  return { argTypes: argTypes.map(() => t), returnType: t };
}

function extremeOf(name: string, sign: number): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind: (argTypes) => unify(name, argTypes, 1),
    evaluate(args, rowCount) {
      const out = new Array<Value>(rowCount);
      for (let r = 0; r < rowCount; r++) {
        let best: Value = null;
        for (const a of args) {
          const v = a[r] as Value;
          if (v !== null && (best === null || sign * compareValues(v, best) > 0)) best = v;
        }
        out[r] = best;
      }
      return out;
    },
  };
}

const coalesce: ScalarFunction = {
  kind: 'scalar',
  name: 'coalesce',
  bind: (argTypes) => unify('coalesce', argTypes, 1),
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount).fill(null);
    for (let r = 0; r < rowCount; r++) {
      for (const a of args) {
        const v = a[r] as Value;
        if (v !== null) {
          out[r] = v;
          break;
        }
      }
    }
    return out;
  },
};

const nullif: ScalarFunction = {
  kind: 'scalar',
  name: 'nullif',
  bind(argTypes) {
    if (argTypes.length !== 2) throw planError(`nullif expects 2 arguments, got ${argTypes.length}`);
    return unify('nullif', argTypes, 2);
  },
  evaluate(args, rowCount) {
    const [a, b] = args as [Value[], Value[]];
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const x = a[r] as Value;
      const y = b[r] as Value;
      out[r] = x !== null && y !== null && compareValues(x, y) === 0 ? null : x;
    }
    return out;
  },
};

/** Conditional functions by SQL name. */
export const CONDITIONAL_FUNCTIONS: Record<string, ScalarFunction> = {
  coalesce,
  nullif,
  greatest: extremeOf('greatest', 1),
  least: extremeOf('least', -1),
};
