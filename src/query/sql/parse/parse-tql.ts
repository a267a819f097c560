/**
 * `TQL EVAL|EVALUATE|EXPLAIN|ANALYZE [VERBOSE] [FORMAT f] [(start, end, step [, lookback])] <promql> [AS alias]`,
 * GreptimeDB's PromQL-in-SQL statement, parsed as its `tql_parser.rs` does:
 *
 * - The parameters are SQL expressions. Number and string literals are kept as text (seconds or
 *   RFC 3339 for times, seconds or a Prometheus duration for step and lookback); any other
 *   expression (`now() - interval '1' hour`, `'2024-01-01'::timestamp`) is evaluated when the
 *   statement runs and must give a timestamp or a duration, taken in whole seconds.
 * - Without parameters the statement evaluates at time 0 with a 5m step.
 * - The PromQL text is the raw source from the first token after the parameters up to an `AS`
 *   word (then an alias and the end of the statement must follow) or the end of the statement.
 *   GreptimeDB lets the query run to the end of the whole request; here a `;` ends it, which only
 *   differs for requests that put more statements after a TQL one.
 */
import { SqlSyntaxError } from '../../../shared/errors.js';
import type { Expr, Ident, Statement, TqlParameter } from './ast.js';
import { describeToken, type Token } from './lexer.js';
import { parseExpr } from './parse-expr.js';
import type { TokenStream } from './parser-base.js';

/** The statement's form; EXPLAIN and ANALYZE describe the evaluation instead of returning samples. */
export type TqlMode = 'eval' | 'explain' | 'analyze';

/** GreptimeDB's values when a TQL statement has no parameter list. */
const DEFAULT_START = '0';
const DEFAULT_END = '0';
const DEFAULT_STEP = '5m';

/** Offset in `sql` of a token's 1-based line and column. */
function offsetOf(sql: string, token: Token): number {
  if (token.kind === 'eof') return sql.length;
  let offset = 0;
  for (let line = 1; line < token.line; line++) {
    const next = sql.indexOf('\n', offset);
    if (next < 0) return sql.length;
    offset = next + 1;
  }
  return offset + token.column - 1;
}

/** A parameter as written: literal text, or an expression evaluated at execution. */
function parameterOf(expr: Expr): TqlParameter {
  if (expr.kind === 'number') return { kind: 'text', text: expr.text };
  if (expr.kind === 'string') return { kind: 'text', text: expr.value };
  if (expr.kind === 'identifier' && expr.parts.length === 1 && expr.parts[0]?.quote === '"') {
    // GreptimeDB accepts double-quoted strings here too.
    return { kind: 'text', text: expr.parts[0].value };
  }
  return { kind: 'expr', expr };
}

function tqlError(message: string): never {
  throw new SqlSyntaxError(message);
}

function isWord(token: Token, word: string): boolean {
  return token.kind === 'word' && token.quote === null && token.value.toUpperCase() === word;
}

/** Parses a TQL statement; the stream is at the `TQL` keyword. */
export function parseTql(ts: TokenStream): Statement {
  ts.next();
  const keyword = ts.peek();
  let mode: TqlMode;
  if (isWord(keyword, 'EVAL') || isWord(keyword, 'EVALUATE')) mode = 'eval';
  else if (isWord(keyword, 'EXPLAIN')) mode = 'explain';
  else if (isWord(keyword, 'ANALYZE')) mode = 'analyze';
  else return ts.unsupported(describeToken(keyword));
  ts.next();
  let verbose = false;
  let format: string | null = null;
  if (mode !== 'eval') {
    verbose = ts.consumeKeyword('VERBOSE');
    if (ts.consumeKeyword('FORMAT')) {
      const t = ts.peek();
      if (t.kind === 'word') {
        ts.next();
        const name = t.value.toUpperCase();
        // Unknown formats are ignored, as GreptimeDB does.
        if (name === 'JSON' || name === 'TEXT' || name === 'GRAPHVIZ') format = name;
      }
    }
  }

  let start: TqlParameter = { kind: 'text', text: DEFAULT_START };
  let end: TqlParameter = { kind: 'text', text: DEFAULT_END };
  let step: TqlParameter = { kind: 'text', text: DEFAULT_STEP };
  let lookback: TqlParameter | null = null;
  if (ts.consumeOp('(')) {
    const exprs: Expr[] = [parseExpr(ts)];
    while (ts.consumeOp(',')) exprs.push(parseExpr(ts));
    if (exprs.length !== 3 && exprs.length !== 4) {
      tqlError(
        `Expected 3 or 4 expressions in TQL parameters (start, end, step, [lookback]), but found ${exprs.length}`,
      );
    }
    [start, end, step] = exprs.slice(0, 3).map(parameterOf) as [TqlParameter, TqlParameter, TqlParameter];
    lookback = exprs[3] ? parameterOf(exprs[3]) : null;
    if (!ts.consumeOp(')')) tqlError(`Expected ')' after TQL parameters, but found: ${describeToken(ts.peek())}`);
  }

  while (ts.consumeOp(',')) {
    // GreptimeDB skips commas between the parameters and the query.
  }
  const first = ts.peek();
  if (first.kind === 'eof' || (first.kind === 'op' && first.value === ';')) tqlError('empty TQL query');
  const from = offsetOf(ts.sql, first);
  let alias: Ident | null = null;
  let to = ts.sql.length;
  for (;;) {
    const t = ts.peek();
    if (t.kind === 'eof' || (t.kind === 'op' && t.value === ';')) {
      to = offsetOf(ts.sql, t);
      break;
    }
    if (isWord(t, 'AS')) {
      to = offsetOf(ts.sql, t);
      ts.next();
      alias = ts.parseIdent();
      const after = ts.peek();
      if (after.kind !== 'eof' && !(after.kind === 'op' && after.value === ';')) {
        tqlError(`Unexpected token after alias: ${describeToken(after)}`);
      }
      break;
    }
    ts.next();
  }
  const query = ts.sql.slice(from, to).trim();
  if (query === '') tqlError('Empty promql query');
  return { kind: 'tql', mode, verbose, format, start, end, step, lookback, query, alias };
}
