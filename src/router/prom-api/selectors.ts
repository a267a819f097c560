/**
 * `match[]` series selectors (labels, label values, series): each must be a plain selector such as
 * `up{job="node"}` or `{__name__=~"http_.*"}`, without offset or `@`, and with at least one
 * matcher that does not match the empty string, as Prometheus' `parseMatchersParam` requires.
 */
import { unwrapParens } from '../../query/promql/ast.js';
import { parsePromql } from '../../query/promql/engine.js';
import { matchesEmpty } from '../../query/promql/matchers.js';
import type { Matcher } from '../../query/promql/types.js';
import { PromqlError } from '../../query/promql/types.js';
import { badData } from './errors.js';

/** Parses one selector; throws a bad_data refusal with the parser's text. */
export function parseSeriesSelector(text: string): Matcher[] {
  let expr: ReturnType<typeof parsePromql>;
  try {
    expr = parsePromql(text);
  } catch (err) {
    if (err instanceof PromqlError) throw badData(err.message);
    throw err;
  }
  const selector = unwrapParens(expr);
  if (selector !== expr || selector.type !== 'VectorSelector') {
    throw badData(`1:1: parse error: expected a series selector, got ${JSON.stringify(text)}`);
  }
  if (selector.offsetMs !== 0 || selector.offsetExpr || selector.atMs !== null || selector.startOrEnd !== null) {
    throw badData(`1:1: parse error: a series selector takes no offset or @ modifier`);
  }
  return selector.matchers;
}

/** Every `match[]` value parsed, checking each set has a matcher that selects something. */
export function parseSeriesSelectors(texts: readonly string[]): Matcher[][] {
  const sets = texts.map(parseSeriesSelector);
  for (const set of sets) {
    if (set.every(matchesEmpty)) throw badData('match[] must contain at least one non-empty matcher');
  }
  return sets;
}
