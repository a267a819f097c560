/**
 * regexp_instr and regexp_substr: where the N-th match of a pattern starts, and its text. Both
 * count positions in characters (code points), 1-based, as DataFusion does over UTF-8, so a
 * string with characters outside the BMP gives the same answers as GreptimeDB.
 */
import type { RE2JS } from 're2js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import { isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { compileRegex, rustMatches } from './regex.js';
import { signatureError } from './typed.js';
import type { ScalarFunction } from './types.js';

/** Parameter order of both: (str, regexp[, start[, N[, flags[, subexpr]]]]). */
const PARAMS: Array<'string' | 'integer'> = ['string', 'string', 'integer', 'integer', 'string', 'integer'];

function bindArgs(name: string, argTypes: DataType[]): DataType[] {
  const ok =
    argTypes.length >= 2 &&
    argTypes.length <= PARAMS.length &&
    argTypes.every((t, i) => t === 'Null' || (PARAMS[i] === 'string' ? t === 'String' : isInteger(t)));
  if (!ok) throw signatureError(name, argTypes);
  return argTypes.map((_, i): DataType => (PARAMS[i] === 'string' ? 'String' : 'Int64'));
}

function computeError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Arrow error: Compute error: ${message}`);
}

/** The UTF-16 offset of the `n`-th (1-based) code point, or -1 when the text is shorter. */
function offsetOfChar(text: string, n: number): number {
  let offset = 0;
  for (let i = 1; i < n; i++) {
    if (offset >= text.length) return -1;
    const code = text.codePointAt(offset) as number;
    offset += code > 0xffff ? 2 : 1;
  }
  return offset < text.length ? offset : -1;
}

function charCount(text: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    // A high surrogate and its low half are one character.
    if (code < 0xdc00 || code > 0xdfff) count++;
  }
  return count;
}

function argAt(args: Value[][], i: number, r: number): Value | undefined {
  return args[i] === undefined ? undefined : ((args[i] as Value[])[r] ?? null);
}

/**
 * DataFusion reads a NULL start, N or subexpr as the zero under its null slot (an error for start
 * and N, the whole match for subexpr) rather than giving NULL; only a NULL string or pattern does.
 */
const intArg = (v: Value | undefined, missing: number): number => (v === undefined ? missing : Number(v ?? 0));

const regexpInstr: ScalarFunction = {
  kind: 'scalar',
  name: 'regexp_instr',
  bind: (argTypes) => ({ argTypes: bindArgs('regexp_instr', argTypes), returnType: 'Int64' }),
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const pattern = argAt(args, 1, r) as string | null;
      const text = argAt(args, 0, r) as string | null;
      // DataFusion checks the pattern before the string: an empty pattern is 0 even for NULL text.
      if (pattern === null) out[r] = null;
      else if (pattern === '') out[r] = 0n;
      else if (text === null) out[r] = null;
      else if (text === '') out[r] = 0n;
      else {
        const flags = (argAt(args, 4, r) as string | null | undefined) ?? '';
        const re = compileRegex(pattern, flags);
        const start = intArg(argAt(args, 2, r), 1);
        const nth = intArg(argAt(args, 3, r), 1);
        const subexpr = intArg(argAt(args, 5, r), 0);
        if (start < 1) throw computeError('regexp_instr() requires start to be 1-based');
        if (nth < 1) throw computeError('N must be 1 or greater');
        const from = offsetOfChar(text, start);
        if (from < 0) {
          out[r] = 0n;
          continue;
        }
        const slice = text.slice(from);
        let at = -1;
        if (subexpr > 0) {
          // A capture group of the first match wins over N, as in DataFusion.
          const m = re.matcher(slice);
          if (m.find() && subexpr <= m.groupCount()) at = m.start(subexpr);
        } else {
          let seen = 0;
          for (const m of rustMatches(re, slice)) {
            if (++seen === nth) {
              at = m.index as number;
              break;
            }
          }
        }
        out[r] = at < 0 ? 0n : BigInt(charCount(text, from + at) + 1);
      }
    }
    return out;
  },
};

/**
 * `regexp_substr`: the N-th match's text (the named group's with group_num; each group's in turn
 * when the pattern has groups and no group_num is given), NULL when there is none.
 */
const regexpSubstr: ScalarFunction = {
  kind: 'scalar',
  name: 'regexp_substr',
  bind: (argTypes) => ({ argTypes: bindArgs('regexp_substr', argTypes), returnType: 'String' }),
  evaluate(args, rowCount) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const text = argAt(args, 0, r) as string | null;
      const pattern = argAt(args, 1, r) as string | null;
      const flags = ((argAt(args, 4, r) as string | null | undefined) ?? '').replaceAll('c', '');
      if (flags.includes('g')) {
        throw new DbError(
          ErrorCode.EngineExecuteQuery,
          'Error during planning: regexp_substr() does not support the "global" option',
        );
      }
      if (text === null || pattern === null || pattern === '') {
        out[r] = null;
        continue;
      }
      const re = compileRegex(pattern, flags);
      const startArg = argAt(args, 2, r);
      const start = intArg(startArg, 1);
      if (start < 1) throw computeError('regexp_substr() requires start to be 1 based');
      const occurrence = intArg(argAt(args, 3, r), 1);
      if (occurrence < 1) throw computeError('regexp_substr() requires occurrence to be 1 or greater');
      const groupArg = argAt(args, 5, r);
      const group = groupArg === undefined || groupArg === null ? undefined : Number(groupArg);
      const from = offsetOfChar(text, start);
      const slice = from < 0 ? '' : text.slice(from);
      out[r] = nthPiece(re, slice, occurrence, group);
    }
    return out;
  },
};

/** The `occurrence`-th piece (1-based) the matches yield, as regexp_substr counts them. */
function nthPiece(re: RE2JS, text: string, occurrence: number, group?: number): Value {
  const groups = re.groupCount();
  const wanted = group !== undefined ? [group] : groups > 0 ? Array.from({ length: groups }, (_, i) => i + 1) : [0];
  let seen = 0;
  for (const m of rustMatches(re, text)) {
    for (const g of wanted) {
      const piece = g <= groups ? m[g] : undefined;
      if (piece !== undefined && piece !== null && ++seen === occurrence) return piece;
    }
  }
  return null;
}

/** Occurrence-based regular expression functions by SQL name. */
export const REGEX_OCCURRENCE_FUNCTIONS: Record<string, ScalarFunction> = {
  regexp_instr: regexpInstr,
  regexp_substr: regexpSubstr,
};
