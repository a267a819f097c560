/**
 * GreptimeDB's MySQL-compatible string functions: LOCATE, ELT, FIELD, INSERT, SPACE, FORMAT.
 * Positions count characters from 1; out-of-range positions follow MySQL (INSERT returns the
 * string unchanged, ELT returns NULL, FIELD returns 0).
 */
import type { DataType } from '../../../shared/types.js';
import { isInteger, isNumeric } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { noMatch } from './no-match.js';
import { chars, fixed } from './string.js';
import { mapRows, type ScalarFunction } from './types.js';

/** `LOCATE(substr, str[, pos])`: 1-based character position of substr in str at or after pos, else 0. */
const locate = fixed('locate', ['String', 'String', 'Int64'], 1, 'Int64', (sub, s, pos) => {
  const haystack = chars(s);
  const needle = chars(sub);
  const from = pos === undefined ? 0 : Number(pos) - 1;
  if (from < 0 || from > haystack.length) return 0n;
  for (let i = from; i + needle.length <= haystack.length; i++) {
    let match = true;
    for (let k = 0; k < needle.length; k++) {
      if (haystack[i + k] !== needle[k]) {
        match = false;
        break;
      }
    }
    if (match) return BigInt(i + 1);
  }
  return 0n;
});

/** `ELT(n, s1, s2, ...)`: the n-th string, NULL when out of range. */
const elt: ScalarFunction = {
  kind: 'scalar',
  name: 'elt',
  bind(argTypes) {
    const [n, ...rest] = argTypes;
    if (n === undefined || rest.length === 0 || !(n === 'Null' || isInteger(n))) noMatch('elt', argTypes);
    return { argTypes: ['Int64', ...rest.map((): DataType => 'String')], returnType: 'String' };
  },
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const n = (args[0] as Value[])[r];
      if (n === null || n === undefined) {
        out[r] = null;
        continue;
      }
      const i = Number(n);
      out[r] = i >= 1 && i < args.length ? ((args[i] as Value[])[r] ?? null) : null;
    }
    return out;
  },
};

/** `FIELD(s, s1, s2, ...)`: 1-based index of the first si equal to s; 0 when none (or s is NULL). */
const field: ScalarFunction = {
  kind: 'scalar',
  name: 'field',
  bind(argTypes) {
    if (argTypes.length < 2) noMatch('field', argTypes);
    return { argTypes: argTypes.map((): DataType => 'String'), returnType: 'Int64' };
  },
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const s = (args[0] as Value[])[r] ?? null;
      let found = 0;
      if (s !== null) {
        for (let i = 1; i < args.length; i++) {
          if ((args[i] as Value[])[r] === s) {
            found = i;
            break;
          }
        }
      }
      out[r] = BigInt(found);
    }
    return out;
  },
};

/** `INSERT(s, pos, len, new)`: replaces len characters at pos; s unchanged when pos is out of range. */
const insert = fixed('insert', ['String', 'Int64', 'Int64', 'String'], 0, 'String', (s, pos, len, replacement) => {
  const c = chars(s);
  const start = Number(pos);
  if (start < 1 || start > c.length) return s;
  const length = Number(len);
  const end = length < 0 || start - 1 + length > c.length ? c.length : start - 1 + length;
  return c.slice(0, start - 1).join('') + (replacement as string) + c.slice(end).join('');
});

/** `SPACE(n)`: n spaces (none for n ≤ 0). */
const space = fixed(
  'space',
  ['Int64'],
  0,
  'String',
  (n) => ' '.repeat(Math.max(0, Number(n))),
  (n) => Math.max(0, Number(n)),
);

/** Rounds half away from zero to `digits` decimals and groups thousands with commas (MySQL FORMAT). */
export function formatNumber(value: number, digits: number): string {
  const d = Math.max(0, Math.min(30, Math.trunc(digits)));
  const negative = value < 0;
  const scaled = Math.round(Math.abs(value) * 10 ** d);
  let text = Number.isFinite(scaled)
    ? BigInt(scaled)
        .toString()
        .padStart(d + 1, '0')
    : Math.abs(value).toFixed(d).replace('.', '');
  const whole = text.slice(0, text.length - d);
  const fraction = text.slice(text.length - d);
  text = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  if (d > 0) text += `.${fraction}`;
  return negative && /[1-9]/.test(text) ? `-${text}` : text;
}

const format: ScalarFunction = {
  kind: 'scalar',
  name: 'format',
  bind(argTypes) {
    const [x, d] = argTypes;
    if (argTypes.length !== 2 || !(x === 'Null' || (x && isNumeric(x))) || !(d === 'Null' || (d && isInteger(d)))) {
      noMatch('format', argTypes);
    }
    return { argTypes: ['Float64', 'Int64'], returnType: 'String' };
  },
  evaluate: (args, rowCount) => mapRows(args, rowCount, (x, d) => formatNumber(x as number, Number(d))),
};

/** MySQL-compatible string functions by SQL name. */
export const MYSQL_STRING_FUNCTIONS: Record<string, ScalarFunction> = {
  locate,
  elt,
  field,
  insert,
  space,
  format,
};
