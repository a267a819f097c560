/**
 * Go RE2 regular expressions, as PromQL matchers and label_replace use them, run on re2js: RE2
 * syntax is native there and matching takes linear time, so a pattern such as `(a+)+` cannot pin
 * a thread the way a backtracking JS RegExp would.
 *
 * Prometheus checks a matcher's regex on its own (`syntax.Parse(re, Perl|DotNL)`), so error
 * messages quote the user's text, and then matches it anchored as `^(?s:<re>)$`;
 * `compileAnchoredRegex` does both.
 */
import { RE2JS, RE2JSException } from 're2js';
import { expandTemplate, PatternCache, type RegexMatch } from '../re2.js';

/** A regex RE2 would reject; the message follows Go's `error parsing regexp: ...` wording. */
export class GoRegexError extends Error {}

/** A matcher regex, fully anchored. */
export interface AnchoredRegex {
  /** Whether the whole value matches. */
  test(value: string): boolean;
  /** The groups of a whole-value match, or null. */
  exec(value: string): RegexMatch | null;
}

/** Compiles a Go regex (unanchored) with re2js flags; throws GoRegexError where Go would. */
export function compileGoRegex(source: string, flags = 0): RE2JS {
  try {
    return RE2JS.compile(source, flags);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    const message = error.message.startsWith('error parsing regexp: ')
      ? error.message
      : `error parsing regexp: ${error.message}`;
    throw new GoRegexError(message);
  }
}

const ANCHORED_CACHE_ENTRIES_MAX = 256;
const anchoredCache = new PatternCache<AnchoredRegex>(ANCHORED_CACHE_ENTRIES_MAX);

/** `^(?s:<source>)$`, compiled once per pattern; throws GoRegexError for patterns RE2 rejects. */
export function compileAnchoredRegex(source: string): AnchoredRegex {
  let regex = anchoredCache.get(source);
  if (regex === undefined) {
    // Checking the bare pattern first also refuses text such as `a)|(b`, which the wrapper
    // would otherwise balance into a valid regex. No flags: re2js would quote them as `(?s)`.
    compileGoRegex(source);
    const anchored = compileGoRegex(`^(?s:${source})$`);
    const exec = (value: string): RegexMatch | null => anchored.exec(value);
    regex = { test: literalTest(source) ?? ((value) => anchored.test(value)), exec };
    anchoredCache.set(source, regex);
  }
  return regex;
}

// Characters RE2 reads as themselves outside a bracket expression.
const LITERAL = /^[A-Za-z0-9_\-:/ ,=@#%&'"<>;!~`]*$/;

/**
 * String tests for the shapes dashboards use most (`foo`, `foo|bar`, `foo.*`, `.*foo`,
 * `.*foo.*`), as Prometheus' FastRegexMatcher does; null when the pattern needs the engine.
 * Under `(?s)` a `.*` matches any text, newlines included.
 */
function literalTest(source: string): ((value: string) => boolean) | null {
  if (LITERAL.test(source)) return (value) => value === source;
  const alternatives = source.split('|');
  if (alternatives.length > 1 && alternatives.every((a) => LITERAL.test(a))) {
    const set = new Set(alternatives);
    return (value) => set.has(value);
  }
  const prefixed = source.startsWith('.*');
  const suffixed = source.endsWith('.*') && source.length >= (prefixed ? 4 : 2);
  const middle = source.slice(prefixed ? 2 : 0, suffixed ? -2 : undefined);
  if (!(prefixed || suffixed) || !LITERAL.test(middle)) return null;
  if (prefixed && suffixed) return (value) => value.includes(middle);
  if (prefixed) return (value) => value.endsWith(middle);
  return (value) => value.startsWith(middle);
}

/**
 * Go's `Regexp.Expand` template syntax for label_replace: `$1`, `${1}`, `$name`, `${name}`,
 * `$$`. A `$name` takes the longest run of letters, digits and `_`, so `$1x` means `${1x}`,
 * which names no group and expands to nothing, as in Go.
 */
export function expandGoTemplate(template: string, match: RegexMatch): string {
  return expandTemplate(template, match);
}
