/**
 * LIKE / ILIKE patterns (`%` any run, `_` one character, an escape character, `\` by default)
 * matched without a regex engine, so no pattern can blow up the way a backtracking RegExp built
 * from it could. Without `_`, a pattern is literal pieces between `%`s: the first must start the
 * text, the last end it, and each middle piece is taken at its leftmost place, which never loses
 * a match. With `_`, a two-pointer matcher that backtracks only to the last `%` takes
 * O(text × pattern) at worst. ILIKE lower-cases both sides.
 */
import { PatternCache } from '../../re2.js';

/** A compiled LIKE pattern. */
export interface LikePattern {
  /** Whether the whole value matches. */
  test(value: string): boolean;
}

/**
 * A pattern as parallel arrays: `kinds[i]` is LITERAL (text in `texts[i]`, consecutive characters
 * merged), ANY (`_`) or RUN (`%`, consecutive ones merged).
 */
interface Tokens {
  kinds: number[];
  texts: string[];
}
const LITERAL = 0;
const ANY = 1;
const RUN = 2;

const CACHE_ENTRIES_MAX = 1000;
const cache = new PatternCache<LikePattern>(CACHE_ENTRIES_MAX);

let last: { pattern: string; caseInsensitive: boolean; escapeChar: string | null; compiled: LikePattern } | undefined;

/** Compiles (and caches) a LIKE pattern; ILIKE compares lower-cased text. */
export function compileLike(pattern: string, caseInsensitive: boolean, escapeChar: string | null): LikePattern {
  // Rows of one batch nearly always share the pattern; skip building a cache key for them.
  if (last?.pattern === pattern && last.caseInsensitive === caseInsensitive && last.escapeChar === escapeChar) {
    return last.compiled;
  }
  const key = `${caseInsensitive ? 'i' : 's'}${escapeChar ?? '\\'}\u0000${pattern}`;
  let compiled = cache.get(key);
  if (compiled === undefined) {
    compiled = build(tokenize(pattern, escapeChar ?? '\\', caseInsensitive), caseInsensitive);
    cache.set(key, compiled);
  }
  last = { pattern, caseInsensitive, escapeChar, compiled };
  return compiled;
}

function tokenize(pattern: string, escapeChar: string, caseInsensitive: boolean): Tokens {
  const tokens: Tokens = { kinds: [], texts: [] };
  const push = (kind: number, text: string): void => {
    const n = tokens.kinds.length - 1;
    if (kind !== ANY && tokens.kinds[n] === kind) tokens.texts[n] += text;
    else {
      tokens.kinds.push(kind);
      tokens.texts.push(text);
    }
  };
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    // A trailing escape character has nothing to escape and stands for itself.
    if (c === escapeChar && i + 1 < chars.length) push(LITERAL, fold(chars[++i] as string, caseInsensitive));
    else if (c === '%') push(RUN, '');
    else if (c === '_') push(ANY, '');
    else push(LITERAL, fold(c, caseInsensitive));
  }
  return tokens;
}

function fold(text: string, caseInsensitive: boolean): string {
  return caseInsensitive ? text.toLowerCase() : text;
}

function build(tokens: Tokens, caseInsensitive: boolean): LikePattern {
  const folded = (value: string): string => fold(value, caseInsensitive);
  if (tokens.kinds.includes(ANY)) return { test: (value) => matchTokens(tokens, folded(value)) };
  // Literal pieces between `%`s: the first must start the text, the last end it.
  const pieces: string[] = [''];
  tokens.kinds.forEach((kind, i) => {
    if (kind === RUN) pieces.push('');
    else pieces[pieces.length - 1] += tokens.texts[i] as string;
  });
  if (pieces.length === 1) {
    const whole = pieces[0] as string;
    return { test: (value) => folded(value) === whole };
  }
  const head = pieces[0] as string;
  const tail = pieces[pieces.length - 1] as string;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  return {
    test: (raw) => {
      const value = folded(raw);
      if (value.length < head.length + tail.length || !value.startsWith(head) || !value.endsWith(tail)) return false;
      let at = head.length;
      const limit = value.length - tail.length;
      for (const piece of middle) {
        const found = value.indexOf(piece, at);
        if (found < 0 || found + piece.length > limit) return false;
        at = found + piece.length;
      }
      return true;
    },
  };
}

/** Greedy wildcard matching over code points; on a mismatch it retries from the last `%` only. */
function matchTokens(tokens: Tokens, value: string): boolean {
  const { kinds, texts } = tokens;
  let t = 0;
  let p = 0;
  let runToken = -1;
  let runText = 0;
  while (t < value.length) {
    const kind = kinds[p];
    if (kind === RUN) {
      runToken = p++;
      runText = t;
    } else if (kind === ANY) {
      t += codePointWidth(value, t);
      p++;
    } else if (kind === LITERAL && value.startsWith(texts[p] as string, t)) {
      t += (texts[p] as string).length;
      p++;
    } else if (runToken >= 0) {
      // Let the last `%` swallow one more character and try the rest again.
      p = runToken + 1;
      runText += codePointWidth(value, runText);
      t = runText;
    } else {
      return false;
    }
  }
  while (kinds[p] === RUN) p++;
  return p === kinds.length;
}

function codePointWidth(value: string, at: number): number {
  const high = value.charCodeAt(at);
  const low = value.charCodeAt(at + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
}
