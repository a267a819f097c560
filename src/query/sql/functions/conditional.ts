/**
 * Functions that choose among their arguments: coalesce, nullif, greatest, least, nvl/ifnull,
 * nvl2, and GreptimeDB's isnull.
 */
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

/** `nvl(a, b)` (also `ifnull`): `a` unless it is NULL; exactly two arguments, unlike coalesce. */
function nvl(name: string): ScalarFunction {
  return {
    ...coalesce,
    name,
    bind(argTypes) {
      if (argTypes.length !== 2) throw planError(`${name} expects 2 arguments, got ${argTypes.length}`);
      return unify(name, argTypes, 2);
    },
  };
}

/** `nvl2(a, b, c)`: `b` when `a` is not NULL, else `c`; `a` may have any type. */
const nvl2: ScalarFunction = {
  kind: 'scalar',
  name: 'nvl2',
  bind(argTypes) {
    if (argTypes.length !== 3) throw planError(`nvl2 expects 3 arguments, got ${argTypes.length}`);
    const sig = unify('nvl2', argTypes.slice(1), 2);
    return { argTypes: [argTypes[0] as DataType, ...sig.argTypes], returnType: sig.returnType };
  },
  evaluate(args, rowCount) {
    const [a, b, c] = args as [Value[], Value[], Value[]];
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) out[r] = (a[r] ?? null) !== null ? (b[r] as Value) : (c[r] as Value);
    return out;
  },
};

/** GreptimeDB's `isnull(x)`: whether `x` is NULL, never NULL itself. */
const isnull: ScalarFunction = {
  kind: 'scalar',
  name: 'isnull',
  bind(argTypes) {
    if (argTypes.length !== 1) throw planError(`isnull expects 1 argument, got ${argTypes.length}`);
    return { argTypes: [argTypes[0] as DataType], returnType: 'Boolean' };
  },
  evaluate: (args, rowCount) => (args[0] as Value[]).slice(0, rowCount).map((v) => v === null),
};

/** Conditional functions by SQL name. */
export const CONDITIONAL_FUNCTIONS: Record<string, ScalarFunction> = {
  coalesce,
  nullif,
  greatest: extremeOf('greatest', 1),
  least: extremeOf('least', -1),
  nvl: nvl('nvl'),
  ifnull: nvl('ifnull'),
  nvl2,
  isnull,
};
