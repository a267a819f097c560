/**
 * Numeric scalar functions. Rounding is half away from zero (Rust's `f64::round`, which DataFusion
 * uses), not JavaScript's half-up.
 */
import type { DataType } from '../../../shared/types.js';
import { planError } from '../coercion.js';
import { arrowNameOf, isNumeric } from '../type-names.js';
import type { Value } from '../values.js';
import { mapRows, type ScalarFunction, type Signature } from './types.js';

function requireNumeric(name: string, argTypes: DataType[], arity: number[]): void {
  const ok = arity.includes(argTypes.length) && argTypes.every((t) => t === 'Null' || isNumeric(t));
  if (!ok) {
    throw planError(
      `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
    );
  }
}

/** Float32 stays Float32; everything else computes in Float64. */
function floatOf(t: DataType): DataType {
  return t === 'Float32' ? 'Float32' : 'Float64';
}

function roundHalfAway(v: number): number {
  return v < 0 ? -Math.round(-v) : Math.round(v);
}

function unaryFloat(name: string, fn: (v: number) => number): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes): Signature {
      requireNumeric(name, argTypes, [1]);
      const t = floatOf(argTypes[0] as DataType);
      return { argTypes: [t], returnType: t };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, (v) => fn(v as number)),
  };
}

const abs: ScalarFunction = {
  kind: 'scalar',
  name: 'abs',
  bind(argTypes) {
    requireNumeric('abs', argTypes, [1]);
    const t = argTypes[0] === 'Null' ? 'Int64' : (argTypes[0] as DataType);
    return { argTypes: [t], returnType: t };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (v): Value => (typeof v === 'bigint' ? (v < 0n ? -v : v) : Math.abs(v as number))),
};

const round: ScalarFunction = {
  kind: 'scalar',
  name: 'round',
  bind(argTypes) {
    requireNumeric('round', argTypes, [1, 2]);
    const t = floatOf(argTypes[0] as DataType);
    return { argTypes: argTypes.length === 2 ? [t, 'Int64'] : [t], returnType: t };
  },
  evaluate(args, rowCount) {
    return mapRows(args, rowCount, (v, digits) => {
      if (digits === undefined) return roundHalfAway(v as number);
      const scale = 10 ** Number(digits);
      return roundHalfAway((v as number) * scale) / scale;
    });
  },
};

const power: ScalarFunction = {
  kind: 'scalar',
  name: 'power',
  bind(argTypes) {
    requireNumeric('power', argTypes, [2]);
    return { argTypes: ['Float64', 'Float64'], returnType: 'Float64' };
  },
  evaluate: (args, rowCount) => mapRows(args, rowCount, (a, b) => (a as number) ** (b as number)),
};

/** Math functions by SQL name. */
export const MATH_FUNCTIONS: Record<string, ScalarFunction> = {
  abs,
  ceil: unaryFloat('ceil', Math.ceil),
  floor: unaryFloat('floor', Math.floor),
  trunc: unaryFloat('trunc', Math.trunc),
  round,
  sqrt: unaryFloat('sqrt', Math.sqrt),
  ln: unaryFloat('ln', Math.log),
  log10: unaryFloat('log10', Math.log10),
  log2: unaryFloat('log2', Math.log2),
  exp: unaryFloat('exp', Math.exp),
  power,
  pow: { ...power, name: 'power' },
};
