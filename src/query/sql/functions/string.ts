/** String scalar functions. Lengths count characters (code points), as DataFusion does. */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf, isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { noMatch } from './no-match.js';
import { replacedLength, StringSizeGuard } from './string-size.js';
import { mapRows, type ScalarFunction } from './types.js';

function requireStrings(name: string, argTypes: DataType[], arity: number[]): void {
  const ok = arity.includes(argTypes.length) && argTypes.every((t) => t === 'String' || t === 'Null');
  if (!ok) {
    noMatch(name, argTypes);
  }
}

function unaryString(name: string, returnType: DataType, fn: (s: string) => Value): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      requireStrings(name, argTypes, [1]);
      return { argTypes: ['String'], returnType };
    },
    evaluate: (args, rowCount) => mapRows(args, rowCount, (s) => fn(s as string)),
  };
}

function characterCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const concat: ScalarFunction = {
  kind: 'scalar',
  name: 'concat',
  bind(argTypes) {
    if (argTypes.length === 0) throw planError('concat requires at least one argument');
    return { argTypes: argTypes.map((): DataType => 'String'), returnType: 'String' };
  },
  evaluate(args, rowCount) {
    // NULL arguments are skipped, as in DataFusion.
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      let s = '';
      for (const a of args) {
        const v = a[r];
        if (v !== null && v !== undefined) s += v as string;
      }
      out[r] = s;
    }
    return out;
  },
};

/**
 * A function with fixed parameter types (the trailing `optional` ones may be left out). String
 * parameters take String or NULL; integer parameters take any integer (cast to Int64). With
 * `resultLength`, a string-building function's output is counted (string-size.ts) before `fn`
 * builds it.
 */
export function fixed(
  name: string,
  params: DataType[],
  optional: number,
  returnType: DataType,
  fn: (...values: Value[]) => Value,
  resultLength?: (...values: Value[]) => number,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const ok =
        argTypes.length >= params.length - optional &&
        argTypes.length <= params.length &&
        argTypes.every((t, i) => t === 'Null' || (params[i] === 'String' ? t === 'String' : isInteger(t)));
      if (!ok) {
        throw planError(
          `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
        );
      }
      return { argTypes: params.slice(0, argTypes.length), returnType };
    },
    evaluate: (args, rowCount) => {
      if (!resultLength) return mapRows(args, rowCount, fn);
      const guard = new StringSizeGuard(name);
      return mapRows(args, rowCount, (...values) => {
        guard.reserve(resultLength(...values));
        return fn(...values);
      });
    },
  };
}

/** The characters (code points) of a string value. */
export function chars(s: Value): string[] {
  return Array.from(s as string);
}

function substr(s: Value, start: Value, length?: Value): Value {
  const c = chars(s);
  const from = Number(start) - 1;
  if (length !== undefined && Number(length) < 0) throw planError('negative substring length not allowed');
  const end = length === undefined ? c.length : from + Number(length);
  return c.slice(Math.max(0, from), Math.max(Math.max(0, from), Math.min(c.length, end))).join('');
}

function pad(left: boolean) {
  return (s: Value, length: Value, fill: Value = ' '): Value => {
    const c = chars(s);
    const n = Math.max(0, Number(length));
    if (n <= c.length) return c.slice(0, n).join('');
    const f = chars(fill);
    if (f.length === 0) return s;
    // Whole copies of the fill, then its first characters (counted in code points).
    const missing = n - c.length;
    const padding = (fill as string).repeat(Math.floor(missing / f.length)) + f.slice(0, missing % f.length).join('');
    return left ? padding + (s as string) : (s as string) + padding;
  };
}

/** An upper bound of lpad/rpad's result in UTF-16 units (the fill's characters may take two each). */
function padLength(_s: Value, length: Value, fill: Value = ' '): number {
  const n = Math.max(0, Number(length));
  const f = fill as string;
  return f.length === 0 ? 0 : Math.ceil((n * f.length) / chars(f).length);
}

function initcap(s: Value): Value {
  let out = '';
  let startOfWord = true;
  for (const ch of s as string) {
    if (/[\p{L}\p{N}]/u.test(ch)) {
      out += startOfWord ? ch.toUpperCase() : ch.toLowerCase();
      startOfWord = false;
    } else {
      out += ch;
      startOfWord = true;
    }
  }
  return out;
}

const concatWs: ScalarFunction = {
  kind: 'scalar',
  name: 'concat_ws',
  bind(argTypes) {
    if (argTypes.length < 2) throw planError('concat_ws requires at least two arguments');
    return { argTypes: argTypes.map((): DataType => 'String'), returnType: 'String' };
  },
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const sep = (args[0] as Value[])[r] as string | null;
      if (sep === null) {
        out[r] = null;
        continue;
      }
      out[r] = args
        .slice(1)
        .map((a) => a[r] as Value)
        .filter((v) => v !== null)
        .join(sep);
    }
    return out;
  },
};

/** Trims `chars` (default: spaces) from the start and/or end. */
function trimmer(name: string, start: boolean, end: boolean): ScalarFunction {
  return fixed(name, ['String', 'String'], 1, 'String', (s, set = ' ') => {
    const strip = new Set(chars(set));
    const c = chars(s);
    let from = 0;
    let to = c.length;
    if (start) while (from < to && strip.has(c[from] as string)) from++;
    if (end) while (to > from && strip.has(c[to - 1] as string)) to--;
    return c.slice(from, to).join('');
  });
}

/** String functions by SQL name. */
export const STRING_FUNCTIONS: Record<string, ScalarFunction> = {
  lower: unaryString('lower', 'String', (s) => s.toLowerCase()),
  upper: unaryString('upper', 'String', (s) => s.toUpperCase()),
  length: unaryString('character_length', 'Int32', characterCount),
  char_length: unaryString('character_length', 'Int32', characterCount),
  character_length: unaryString('character_length', 'Int32', characterCount),
  octet_length: unaryString('octet_length', 'Int32', (s) => Buffer.byteLength(s, 'utf8')),
  trim: trimmer('btrim', true, true),
  btrim: trimmer('btrim', true, true),
  ltrim: trimmer('ltrim', true, false),
  rtrim: trimmer('rtrim', false, true),
  reverse: unaryString('reverse', 'String', (s) => Array.from(s).reverse().join('')),
  concat,
  concat_ws: concatWs,
  repeat: fixed(
    'repeat',
    ['String', 'Int64'],
    0,
    'String',
    (s, n) => (s as string).repeat(Math.max(0, Number(n))),
    (s, n) => (s as string).length * Math.max(0, Number(n)),
  ),
  replace: fixed(
    'replace',
    ['String', 'String', 'String'],
    0,
    'String',
    (s, from, to) => (s as string).replaceAll(from as string, to as string),
    (s, from, to) => replacedLength(s as string, from as string, to as string),
  ),
  initcap: fixed('initcap', ['String'], 0, 'String', initcap),
  substr: fixed('substr', ['String', 'Int64', 'Int64'], 1, 'String', substr),
  substring: fixed('substr', ['String', 'Int64', 'Int64'], 1, 'String', substr),
  left: fixed('left', ['String', 'Int64'], 0, 'String', (s, n) => {
    const c = chars(s);
    const k = Number(n);
    return (k >= 0 ? c.slice(0, k) : c.slice(0, Math.max(0, c.length + k))).join('');
  }),
  right: fixed('right', ['String', 'Int64'], 0, 'String', (s, n) => {
    const c = chars(s);
    const k = Number(n);
    return (k >= 0 ? c.slice(Math.max(0, c.length - k)) : c.slice(Math.min(c.length, -k))).join('');
  }),
  lpad: fixed('lpad', ['String', 'Int64', 'String'], 1, 'String', pad(true), padLength),
  rpad: fixed('rpad', ['String', 'Int64', 'String'], 1, 'String', pad(false), padLength),
  starts_with: fixed('starts_with', ['String', 'String'], 0, 'Boolean', (s, p) =>
    (s as string).startsWith(p as string),
  ),
  ends_with: fixed('ends_with', ['String', 'String'], 0, 'Boolean', (s, p) => (s as string).endsWith(p as string)),
  split_part: fixed('split_part', ['String', 'String', 'Int64'], 0, 'String', (s, delimiter, n) => {
    const parts = (delimiter as string) === '' ? [s as string] : (s as string).split(delimiter as string);
    const i = Number(n);
    if (i === 0) throw new DbError(ErrorCode.EngineExecuteQuery, 'Execution error: field position must not be zero');
    const part = i > 0 ? parts[i - 1] : parts[parts.length + i];
    return part ?? '';
  }),
  strpos: fixed('strpos', ['String', 'String'], 0, 'Int64', (s, sub) => {
    const i = (s as string).indexOf(sub as string);
    return BigInt(i < 0 ? 0 : Array.from((s as string).slice(0, i)).length + 1);
  }),
};
