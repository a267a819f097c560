/**
 * Label matchers as predicates. Prometheus semantics: a missing label reads as the empty string,
 * so `{foo=""}` selects series without `foo`, and regexes are fully anchored RE2 (regex.ts).
 * Storage adapters use `compileMatchers` / `matchesAll` to filter series the same way the
 * in-memory source does.
 */

import { getLabel, goQuote, isLegacyLabelName } from './labels.js';
import { compileAnchoredRegex } from './regex.js';
import type { Labels, Matcher } from './types.js';

/** A matcher with its regex compiled once. */
export interface CompiledMatcher {
  readonly matcher: Matcher;
  matches(value: string): boolean;
}

/** Compiles one matcher; throws GoRegexError for a regex RE2 rejects. */
export function compileMatcher(matcher: Matcher): CompiledMatcher {
  switch (matcher.op) {
    case '=':
      return { matcher, matches: (value) => value === matcher.value };
    case '!=':
      return { matcher, matches: (value) => value !== matcher.value };
    case '=~': {
      const regex = compileAnchoredRegex(matcher.value);
      return { matcher, matches: (value) => regex.test(value) };
    }
    case '!~': {
      const regex = compileAnchoredRegex(matcher.value);
      return { matcher, matches: (value) => !regex.test(value) };
    }
  }
}

export function compileMatchers(matchers: readonly Matcher[]): CompiledMatcher[] {
  return matchers.map(compileMatcher);
}

/** Whether a series' labels satisfy every matcher. */
export function matchesAll(compiled: readonly CompiledMatcher[], labels: Labels): boolean {
  for (const m of compiled) if (!m.matches(getLabel(labels, m.matcher.name))) return false;
  return true;
}

/** Whether a matcher accepts the empty string (a selector needs one that does not). */
export function matchesEmpty(matcher: Matcher): boolean {
  return compileMatcher(matcher).matches('');
}

/** `labels.Matcher.String()`: `name="value"`, the name quoted when not a legacy name. */
export function formatMatcher(matcher: Matcher): string {
  const name = isLegacyLabelName(matcher.name) ? matcher.name : goQuote(matcher.name);
  return `${name}${matcher.op}${goQuote(matcher.value)}`;
}
