/**
 * Regular expression functions: regexp_like, regexp_replace, regexp_extract, regexp_match (the
 * first match's capture groups as a `List<String>`, or the whole match when the pattern has no
 * groups; NULL without a match), regexp_count, and the `~` family of operators (bound to
 * regexp_like). DataFusion runs Rust's `regex` crate, an RE2-style linear-time engine, so these
 * run on re2js, whose syntax and guarantees match it: a pattern like `^(a+)+$` cannot stall a
 * query. Flags (`i`, `m`, `s`) become re2js flags; `regexp_replace` replaces the first match
 * unless the flags include `g`, and expands `$1` / `${name}` / `\1` as DataFusion does.
 */
import { RE2JS, RE2JSException } from 're2js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { type DataType, listTypeOf } from '../../../shared/types.js';
import { expandTemplate, PatternCache } from '../../re2.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { matches } from './matches.js';
import { mapRows, type ScalarFunction } from './types.js';

const CACHE_ENTRIES_MAX = 256;
const cache = new PatternCache<RE2JS>(CACHE_ENTRIES_MAX);
const FLAG_BITS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  g: 0,
};

let lastPattern: string | undefined;
let lastFlags: string | undefined;
let lastRegex: RE2JS | undefined;

/** Compiles a pattern with DataFusion flags (`i`, `g`, `m`, `s`), caching recent ones. */
export function compileRegex(pattern: string, flags = ''): RE2JS {
  // Rows of one batch nearly always share the pattern; skip building a cache key for them.
  if (pattern === lastPattern && flags === lastFlags && lastRegex !== undefined) return lastRegex;
  const key = flags === '' ? pattern : `${flags}\u0000${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = compileUncached(pattern, flags);
    cache.set(key, re);
  }
  lastPattern = pattern;
  lastFlags = flags;
  lastRegex = re;
  return re;
}

function compileUncached(pattern: string, flags: string): RE2JS {
  let bits = 0;
  for (const f of flags) {
    const bit = FLAG_BITS[f];
    if (bit === undefined) {
      throw new DbError(ErrorCode.EngineExecuteQuery, `Execution error: regexp flag '${f}' is not supported`);
    }
    bits |= bit;
  }
  try {
    // re2js quotes flags in its messages as a `(?i)` prefix; check the bare pattern first.
    if (bits !== 0) RE2JS.compile(pattern);
    return RE2JS.compile(pattern, bits);
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `Arrow error: Compute error: Regular expression did not compile: ${err.message}`,
    );
  }
}

/**
 * Successive matches as Rust's `find_iter` reports them: an empty match where the previous match
 * ended is skipped (`a*` in `baaac` matches at 0, 1..4 and 5, not at 4 as JS `matchAll` would).
 */
export function* rustMatches(re: RE2JS, text: string): Generator<RegExpMatchArray> {
  let lastEnd = -1;
  for (const m of re.matchAll(text)) {
    const start = m.index as number;
    const end = start + (m[0] as string).length;
    if (start === end && start === lastEnd) continue;
    lastEnd = end;
    yield m;
  }
}

/**
 * DataFusion rewrites `\N` in a replacement to `${N}` before Rust expands it; a backslash without
 * digits becomes `${}`, a reference to no group, so it disappears.
 */
function rustTemplate(replacement: string): string {
  return replacement.includes('\\')
    ? replacement.replace(/\\(\d*)/g, (_, digits: string) => (digits === '' ? '' : `\${${digits}}`))
    : replacement;
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
      const f = (flags as string | undefined) ?? '';
      const re = compileRegex(p as string, f);
      const text = s as string;
      const template = rustTemplate(replacement as string);
      let out = '';
      let last = 0;
      for (const m of rustMatches(re, text)) {
        out += text.slice(last, m.index) + expandTemplate(template, m);
        last = (m.index as number) + (m[0] as string).length;
        if (!f.includes('g')) break;
      }
      return out + text.slice(last);
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
    mapRows(args, rowCount, (s, p) => {
      let count = 0n;
      for (const _ of rustMatches(compileRegex(p as string), s as string)) count++;
      return count;
    }),
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
  matches,
};
