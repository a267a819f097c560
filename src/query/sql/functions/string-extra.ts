/**
 * DataFusion's string functions beyond string.ts: searching (instr/position, contains,
 * find_in_set), rewriting (overlay, translate, substr_index), splitting into lists
 * (string_to_array), code points (ascii, chr), sizes (bit_length), edit distance (levenshtein)
 * and uuid(). Positions and lengths count characters (code points), as DataFusion does.
 */
import { randomUUID } from 'node:crypto';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import type { Value } from '../types/values.js';
import { chars, STRING_FUNCTIONS } from './string.js';
import { signatureError, typed } from './typed.js';
import type { ScalarFunction } from './types.js';

function executionError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Execution error: ${message}`);
}

/** `overlay(s, x, from[, for])`: `for` characters of `s` from `from` replaced by `x`. */
function overlay(s: Value, placing: Value, from: Value, count?: Value): Value {
  const c = chars(s);
  const p = chars(placing);
  const start = Number(from);
  const length = count === undefined ? p.length : Number(count);
  // DataFusion clamps both ends into the string, so a start before 1 keeps nothing in front.
  const head = c.slice(0, Math.max(0, Math.min(c.length, start - 1))).join('');
  const tailFrom = Math.max(0, Math.min(c.length, start - 1 + length));
  return head + (placing as string) + c.slice(tailFrom).join('');
}

/** `translate(s, from, to)`: each character of `from` becomes the one at its place in `to`, or goes. */
function translate(s: Value, from: Value, to: Value): Value {
  const map = new Map<string, string | null>();
  const target = chars(to);
  chars(from).forEach((ch, i) => {
    if (!map.has(ch)) map.set(ch, target[i] ?? null);
  });
  let out = '';
  for (const ch of s as string) {
    if (!map.has(ch)) out += ch;
    else out += map.get(ch) ?? '';
  }
  return out;
}

/** Edit distance in characters, with one row of the dynamic programme kept. */
function levenshtein(a: Value, b: Value): Value {
  const x = chars(a);
  const y = chars(b);
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const substitution = (previous[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[y.length] as number;
}

function chr(code: Value): Value {
  const n = Number(code);
  if (n === 0) throw executionError('null character not permitted.');
  if (n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) {
    throw executionError('requested character too large for encoding.');
  }
  return String.fromCodePoint(n);
}

/** `substr_index(s, delim, n)`: before the n-th delimiter from the left, or after the n-th from the right. */
function substrIndex(s: Value, delimiter: Value, count: Value): Value {
  const text = s as string;
  const d = delimiter as string;
  const n = Number(count);
  if (d === '' || n === 0) return '';
  const parts = text.split(d);
  if (Math.abs(n) >= parts.length) return text;
  return n > 0 ? parts.slice(0, n).join(d) : parts.slice(parts.length + n).join(d);
}

/** `find_in_set(s, list)`: the 1-based place of `s` in a comma-separated list, 0 when absent. */
function findInSet(s: Value, list: Value): Value {
  const i = (list as string).split(',').indexOf(s as string);
  return i + 1;
}

/**
 * `string_to_array(s, delim[, null_str])`: a NULL delimiter splits into characters, an empty one
 * keeps the whole string, and items equal to `null_str` become NULL.
 */
const stringToArray: ScalarFunction = {
  kind: 'scalar',
  name: 'string_to_array',
  bind(argTypes) {
    if (argTypes.length < 2 || argTypes.length > 3 || !argTypes.every((t) => t === 'String' || t === 'Null')) {
      throw signatureError('string_to_array', argTypes);
    }
    return { argTypes: argTypes.map((): DataType => 'String'), returnType: 'List<String>' };
  },
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const s = (args[0] as Value[])[r] as string | null;
      if (s === null) {
        out[r] = null;
        continue;
      }
      const d = (args[1] as Value[])[r] as string | null;
      const nullText = args[2] ? ((args[2][r] as string | null) ?? null) : null;
      let items: string[];
      if (d === null) items = Array.from(s);
      else if (d === '') items = s === '' ? [] : [s];
      else items = s === '' ? [] : s.split(d);
      out[r] = items.map((item) => (nullText !== null && item === nullText ? null : item));
    }
    return out;
  },
};

const uuid: ScalarFunction = {
  kind: 'scalar',
  name: 'uuid',
  bind(argTypes) {
    if (argTypes.length !== 0) throw signatureError('uuid', argTypes);
    return { argTypes: [], returnType: 'String' };
  },
  // Volatile: a fresh value per row, as DataFusion gives.
  evaluate: (_args, rowCount) => Array.from({ length: rowCount }, () => randomUUID()),
};

const strpos = STRING_FUNCTIONS.strpos as ScalarFunction;

/** The extra string functions by SQL name. */
export const STRING_EXTRA_FUNCTIONS: Record<string, ScalarFunction> = {
  instr: { ...strpos, name: 'instr' },
  position: { ...strpos, name: 'position' },
  contains: typed('contains', ['string', 'string'], 0, 'Boolean', (s, x) => (s as string).includes(x as string)),
  overlay: typed('overlay', ['string', 'string', 'integer', 'integer'], 1, 'String', overlay),
  translate: typed('translate', ['string', 'string', 'string'], 0, 'String', translate),
  levenshtein: typed('levenshtein', ['string', 'string'], 0, 'Int32', levenshtein),
  ascii: typed('ascii', ['string'], 0, 'Int32', (s) => (s as string).codePointAt(0) ?? 0),
  chr: typed('chr', ['integer'], 0, 'String', chr),
  bit_length: typed('bit_length', ['string'], 0, 'Int32', (s) => Buffer.byteLength(s as string, 'utf8') * 8),
  find_in_set: typed('find_in_set', ['string', 'string'], 0, 'Int32', findInSet),
  substr_index: typed('substr_index', ['string', 'string', 'integer'], 0, 'String', substrIndex),
  substring_index: typed('substr_index', ['string', 'string', 'integer'], 0, 'String', substrIndex),
  string_to_array: stringToArray,
  string_to_list: { ...stringToArray, name: 'string_to_list' },
  uuid,
};
