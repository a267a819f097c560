/**
 * The token cursor every parsing function shares, with sqlparser-rs style error reporting:
 * `Expected: <what>, found: <token> at Line: L, Column: C`.
 */
import { DbError, ErrorCode, SqlSyntaxError } from '../../../shared/errors.js';
import type { Ident, ObjectName, Query } from './ast.js';
import { describeToken, locationSuffix, type Token, tokenize } from './lexer.js';

/**
 * Bare words that never start an expression or serve as an implicit alias. Anything else may
 * be a column or table name (`timestamp`, `value`, `time` are common column names).
 */
export const RESERVED_WORDS = new Set([
  'ALL',
  'AND',
  'AS',
  'ASC',
  'BETWEEN',
  'BY',
  'CROSS',
  'DESC',
  'DISTINCT',
  'ELSE',
  'END',
  'EXCEPT',
  'FETCH',
  'FROM',
  'FULL',
  'GROUP',
  'HAVING',
  'ILIKE',
  'IN',
  'INNER',
  'INTERSECT',
  'INTO',
  'IS',
  'JOIN',
  'LEFT',
  'LIKE',
  'LIMIT',
  'NATURAL',
  'OFFSET',
  'ON',
  'OR',
  'ORDER',
  'OUTER',
  'RIGHT',
  'SELECT',
  'THEN',
  'UNION',
  'USING',
  'VALUES',
  'WHEN',
  'WHERE',
  'WINDOW',
  'WITH',
  'ALIGN',
  'RANGE',
  'FILL',
  'QUALIFY',
]);

/** A cursor over the tokens of one request. */
/** sqlparser's DEFAULT_REMAINING_DEPTH. */
const RECURSION_LIMIT = 50;

export class TokenStream {
  private readonly tokens: Token[];
  private pos = 0;
  /**
   * Parses a query nested in an expression (subqueries, EXISTS, IN): parse-query.ts, set by
   * whoever starts parsing, since the expression parser cannot import the query parser that
   * imports it.
   */
  queryParser: ((ts: TokenStream) => Query) | null = null;
  /** Nested expressions and queries still allowed (sqlparser's recursion limit, which GreptimeDB keeps). */
  private depthLeft = RECURSION_LIMIT;

  /**
   * Runs `parse` one level deeper, or refuses past the limit as sqlparser does: without a limit a
   * statement of nested parentheses would overflow the stack (found by test/fuzz).
   */
  nested<T>(parse: () => T): T {
    if (this.depthLeft === 0) throw new SqlSyntaxError('recursion limit exceeded');
    this.depthLeft--;
    try {
      return parse();
    } finally {
      this.depthLeft++;
    }
  }

  /** A nested query at the cursor. */
  parseNestedQuery(): Query {
    if (this.queryParser === null) return this.unsupported('a subquery here');
    return this.queryParser(this);
  }

  constructor(
    readonly sql: string,
    tokens?: Token[],
  ) {
    this.tokens = tokens ?? tokenize(sql);
  }

  peek(offset = 0): Token {
    const i = Math.min(this.pos + offset, this.tokens.length - 1);
    return this.tokens[i] as Token;
  }

  next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.pos++;
    return token;
  }

  /** Moves back one token (used after a speculative `next`). */
  back(): void {
    if (this.pos > 0) this.pos--;
  }

  atEnd(): boolean {
    const t = this.peek();
    return t.kind === 'eof' || (t.kind === 'op' && t.value === ';');
  }

  /** A bare (unquoted) word equal, case-insensitively, to `keyword`. */
  isKeyword(keyword: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'word' && t.quote === null && t.value.toUpperCase() === keyword;
  }

  isOp(op: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'op' && t.value === op;
  }

  consumeKeyword(keyword: string): boolean {
    if (!this.isKeyword(keyword)) return false;
    this.pos++;
    return true;
  }

  /** Consumes a run of keywords only when all of them are present. */
  consumeKeywords(...keywords: string[]): boolean {
    for (let i = 0; i < keywords.length; i++) if (!this.isKeyword(keywords[i] as string, i)) return false;
    this.pos += keywords.length;
    return true;
  }

  expectKeyword(keyword: string): void {
    if (!this.consumeKeyword(keyword)) this.expected(keyword, this.peek());
  }

  expectKeywords(...keywords: string[]): void {
    for (const k of keywords) this.expectKeyword(k);
  }

  consumeOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.pos++;
    return true;
  }

  expectOp(op: string): void {
    if (!this.consumeOp(op)) this.expected(op, this.peek());
  }

  /** Throws sqlparser's `Expected: ..., found: ...` syntax error. */
  expected(what: string, found: Token): never {
    throw new SqlSyntaxError(
      `Expected: ${what}, found: ${describeToken(found)}${locationSuffix(found.line, found.column)}`,
    );
  }

  /** A statement form GreptimeDB has but this engine does not implement yet. */
  unsupported(keyword: string): never {
    throw new DbError(ErrorCode.Unsupported, `SQL statement is not supported, keyword: ${keyword}`);
  }

  /** An identifier: a bare non-reserved word or a quoted one. */
  parseIdent(what = 'identifier'): Ident {
    const t = this.peek();
    if (t.kind === 'word') {
      this.pos++;
      return { value: t.value, quote: t.quote };
    }
    return this.expected(what, t);
  }

  /**
   * `a.b.c`. With `allowString`, a single-quoted string also counts as a name part: GreptimeDB
   * accepts `CREATE TABLE 'x' (...)` and `CREATE DATABASE 'x'`.
   */
  parseObjectName(allowString = false): ObjectName {
    const parts: Ident[] = [];
    for (;;) {
      const t = this.peek();
      if (allowString && t.kind === 'string') {
        this.pos++;
        parts.push({ value: t.value, quote: "'" });
      } else {
        parts.push(this.parseIdent());
      }
      if (!this.consumeOp('.')) break;
    }
    return parts;
  }

  /** `( a, b, c )` of identifiers. */
  parseParenthesizedIdents(): Ident[] {
    this.expectOp('(');
    const out: Ident[] = [];
    if (this.consumeOp(')')) return out;
    do out.push(this.parseIdent());
    while (this.consumeOp(','));
    this.expectOp(')');
    return out;
  }

  /** True when the next token is a bare reserved word (not usable as an implicit alias). */
  nextIsReserved(): boolean {
    const t = this.peek();
    return t.kind === 'word' && t.quote === null && RESERVED_WORDS.has(t.value.toUpperCase());
  }
}

/** True when the cursor is at the start of a query (`SELECT`, `WITH`, or `(` followed by one). */
export function atQueryStart(ts: TokenStream, offset = 0): boolean {
  // A loop, not recursion: a run of parentheses may be as long as the statement.
  let at = offset;
  while (ts.isOp('(', at)) at++;
  return ts.isKeyword('SELECT', at) || ts.isKeyword('WITH', at);
}
