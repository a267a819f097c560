/**
 * Where lezer stopped, told the way Prometheus' parser tells it: `unexpected <token>` with the
 * grammar position's " in <context>, expected <what>" tail, and the few errors Prometheus names
 * specially (unknown function, trailing comma, bad duration).
 */
import type { PositionRange } from './ast.js';
import { FUNCTIONS } from './functions/registry.js';
import { GoSyntaxError, parseDurationMs } from './go-format.js';
import { describeToken, type Token } from './lexer.js';
import { ParseError } from './parse-error.js';

/** Keywords followed by a parenthesised label list. */
const GROUPING_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/** Whether token `index` sits inside the `(...)` of a grouping keyword (`by (a, b)`). */
function inGrouping(tokens: Token[], index: number): boolean {
  for (let i = index - 1; i >= 1; i--) {
    const t = tokens[i] as Token;
    if (t.text === ')') return false;
    if (t.text === '(') {
      const before = tokens[i - 1] as Token;
      return before.kind === 'keyword' && GROUPING_KEYWORDS.has(before.text.toLowerCase());
    }
    if (
      t.kind !== 'identifier' &&
      t.kind !== 'string' &&
      t.text !== ',' &&
      t.kind !== 'keyword' &&
      t.kind !== 'aggregator' &&
      t.kind !== 'operator'
    ) {
      return false;
    }
  }
  return false;
}

/** Prometheus-style message for where lezer stopped. */
export function syntaxErrorAt(tokens: Token[], offset: number): ParseError {
  let index = tokens.findIndex((t) => t.pos + Math.max(t.text.length, 1) > offset);
  if (index < 0) index = tokens.length - 1;
  // Durations the lexer took but Prometheus' duration parser rejects (`5m1h`, `5y1hs`).
  for (const t of tokens.slice(0, index + 1)) {
    if (t.kind !== 'duration') continue;
    try {
      parseDurationMs(t.text);
    } catch (error) {
      if (error instanceof GoSyntaxError) return new ParseError(error.message, tokenRange(t));
      throw error;
    }
  }
  const token = tokens[index] as Token;
  const previous = index > 0 ? (tokens[index - 1] as Token) : null;
  // An unknown function name shows up as a failure at the "(" after it.
  if (token.text === '(' && previous?.kind === 'identifier' && !previous.inBraces && !FUNCTIONS.has(previous.text)) {
    return new ParseError(`unknown function with name ${JSON.stringify(previous.text)}`, tokenRange(previous));
  }
  if (token.text === ')' && previous?.text === ',' && !token.inBraces && !inGrouping(tokens, index)) {
    return new ParseError('trailing commas not allowed in function call args', tokenRange(previous));
  }
  return new ParseError(`unexpected ${describeToken(token)}${context(tokens, index)}`, tokenRange(token));
}

/** The " in <context>, expected <what>" tail Prometheus adds for some grammar positions. */
function context(tokens: Token[], index: number): string {
  const token = tokens[index] as Token;
  const previous = index > 0 ? (tokens[index - 1] as Token) : null;
  if (previous === null) return '';
  if (token.inBraces) {
    if (previous.text === '{' || previous.text === ',') return ' in label matching, expected identifier or "}"';
    if (previous.kind === 'identifier') return ' in label matching, expected label matching operator';
    if (previous.text === '=' || previous.text === '!=' || previous.text === '=~' || previous.text === '!~') {
      return ' in label matching, expected string';
    }
    if (previous.kind === 'string') return ' in label matching, expected "," or "}"';
    return '';
  }
  if (inGrouping(tokens, index)) {
    if (previous.text === '(' || previous.text === ',') return ' in grouping opts, expected label';
    return ' in grouping opts, expected "," or ")"';
  }
  if (previous.kind === 'keyword' && previous.text.toLowerCase() === 'offset') {
    return ' in offset, expected number, duration, step(), or range()';
  }
  if (previous.text === '@') return ' in @, expected timestamp';
  const rangeStart = ' in subquery or range selector, expected number, duration, step(), or range()';
  if (previous.text === '[') return rangeStart;
  if (token.inBrackets && previous.kind === 'keyword' && tokens[index - 2]?.text === '[') return rangeStart;
  if (token.inBrackets && previous.text === ':') {
    return ' in subquery selector, expected number, duration, step(), range(), or "]"';
  }
  if (token.inBrackets && (previous.kind === 'duration' || previous.kind === 'number' || previous.text === ')')) {
    return ' in subquery or range, expected ":" or "]"';
  }
  const keyword = previous.text.toLowerCase();
  if (previous.kind === 'keyword' && GROUPING_KEYWORDS.has(keyword)) return ' in grouping opts, expected "("';
  return '';
}

function tokenRange(token: Token): PositionRange {
  return { start: token.pos, end: token.pos + token.text.length };
}
