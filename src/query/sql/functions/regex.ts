/**
 * Regular expression functions: regexp_like, regexp_replace, regexp_extract, regexp_match (the
 * first match's capture groups as a `List<String>`, or the whole match when the pattern has no
 * groups; NULL without a match), regexp_count, and the `~` family of operators (bound to
 * regexp_like). Patterns use Rust's
 * `regex` syntax, which JavaScript's `u`-mode RegExp reads the same way for common patterns;
 * leading inline flags (`(?i)`) become RegExp flags. `regexp_replace` replaces the first match
 * unless the flags include `g`, as in DataFusion.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, listTypeOf } from '../../../shared/types.js';
import { planError } from '../coercion.js';
import { arrowNameOf } from '../type-names.js';
import type { Value } from '../values.js';
import { mapRows, type ScalarFunction } from './types.js';

const cache = new Map<string, RegExp>();
const CACHE_ENTRIES_MAX = 1000;

/** Compiles a pattern with DataFusion flags (`i`, `g`, `m`, `s`), caching recent ones. */
export function compileRegex(pattern: string, flags = ''): RegExp {
  const key = `${flags}\u0000${pattern}`;
  let re = cache.get(key);
  if (re) return re;
  let source = pattern;
  let jsFlags = 'u';
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of inline[1] as string) if (f !== 'x' && !jsFlags.includes(f)) jsFlags += f;
  }
  for (const f of flags) {
    if (!'igms'.includes(f)) {
      throw new DbError(ErrorCode.EngineExecuteQuery, `Execution error: regexp flag '${f}' is not supported`);
    }
    if (!jsFlags.includes(f)) jsFlags += f;
  }
  try {
    re = new RegExp(source, jsFlags);
  } catch (err) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `Arrow error: Compute error: Regular expression did not compile: ${(err as Error).message}`,
    );
  }
  if (cache.size >= CACHE_ENTRIES_MAX) cache.clear();
  cache.set(key, re);
  return re;
}

function strings(name: string, argTypes: DataType[], min: number, max: number): DataType[] {
  if (argTypes.length < min || argTypes.length > max || !argTypes.every((t) => t === 'String' || t === 'Null')) {
    throw planError(
      `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
    );
  }
  return argTypes.map((): DataType => 'String');
}

const regexpLike: ScalarFunction = {
  kind: 'scalar',
  name: 'regexp_like',
  bind: (argTypes) => ({ argTypes: strings('regexp_like', argTypes, 2, 3), returnType: 'Boolean' }),
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (s, p, flags) =>
      compileRegex(p as string, (flags as string | undefined)?.replace('g', '')).test(s as string),
    ),
};

const regexpReplace: ScalarFunction = {
  kind: 'scalar',
  name: 'regexp_replace',
  bind: (argTypes) => ({ argTypes: strings('regexp_replace', argTypes, 3, 4), returnType: 'String' }),
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (s, p, replacement, flags) => {
      const re = compileRegex(p as string, (flags as string | undefined) ?? '');
      // Rust's `${1}` / `$1` group references read the same in JavaScript; `\\1` does not exist there.
      return (s as string).replace(re, (replacement as string).replace(/\$\{(\d+)\}/g, '$$$1'));
    }),
};

const regexpExtract: ScalarFunction = {
  kind: 'scalar',
  name: 'regexp_extract',
  bind: (argTypes) => ({ argTypes: strings('regexp_extract', argTypes, 2, 2), returnType: 'String' }),
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (s, p) => compileRegex(p as string).exec(s as string)?.[0] ?? null),
};

const regexpMatch: ScalarFunction = {
  kind: 'scalar',
  name: 'regexp_match',
  bind: (argTypes) => ({ argTypes: strings('regexp_match', argTypes, 2, 3), returnType: listTypeOf('String') }),
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (s, p, flags): Value => {
      if ((flags as string | undefined)?.includes('g')) {
        throw new DbError(
          ErrorCode.EngineExecuteQuery,
          'Error during planning: regexp_match() does not support the "global" option',
        );
      }
      const m = compileRegex(p as string, (flags as string | undefined) ?? '').exec(s as string);
      if (!m) return null;
      return m.length > 1 ? m.slice(1).map((g) => g ?? null) : [m[0]];
    }),
};

const regexpCount: ScalarFunction = {
  kind: 'scalar',
  name: 'regexp_count',
  bind: (argTypes) => ({ argTypes: strings('regexp_count', argTypes, 2, 2), returnType: 'Int64' }),
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (s, p) => BigInt([...(s as string).matchAll(compileRegex(p as string, 'g'))].length)),
};

/**
 * `matches_term(text, term)`: GreptimeDB's full-text term match — the term occurs in the text
 * bounded by non-alphanumeric characters (or the ends).
 */
const matchesTerm: ScalarFunction = {
  kind: 'scalar',
  name: 'matches_term',
  bind: (argTypes) => ({ argTypes: strings('matches_term', argTypes, 2, 2), returnType: 'Boolean' }),
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (s, term) => {
      const text = s as string;
      const t = term as string;
      if (t.length === 0) return false;
      const isWord = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);
      for (let i = text.indexOf(t); i >= 0; i = text.indexOf(t, i + 1)) {
        const before = i === 0 ? undefined : text[i - 1];
        const after = text[i + t.length];
        if ((!isWord(before) || !isWord(t[0])) && (!isWord(after) || !isWord(t[t.length - 1]))) return true;
      }
      return false;
    }),
};

/** Regular expression functions by SQL name. */
export const REGEX_FUNCTIONS: Record<string, ScalarFunction> = {
  regexp_like: regexpLike,
  regexp_replace: regexpReplace,
  regexp_extract: regexpExtract,
  regexp_match: regexpMatch,
  regexp_count: regexpCount,
  matches_term: matchesTerm,
};
