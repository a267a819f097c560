/**
 * Entry point of SQL parsing: splits a request into statements and dispatches on the leading
 * keyword. Statement-level behaviour follows GreptimeDB's parser wrapper: empty statements between
 * `;` are skipped, and anything left after a complete statement is refused as
 * `SQL statement is not supported, keyword: <token>` (code 1001).
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { Expr, FunctionCall, Ident, ShowFilter, Statement } from './ast.js';
import { describeToken } from './lexer.js';
import { parseAlter, parseCreate, parseDrop } from './parse-ddl.js';
import { parseExpr } from './parse-expr.js';
import { parseQuery } from './parse-query.js';
import { parseTql } from './parse-tql.js';
import { atQueryStart, TokenStream } from './parser-base.js';

/** Statements GreptimeDB has that this engine does not implement yet (answered with code 1001). */
const NOT_YET_SUPPORTED = new Set([
  'ANALYZE',
  'COPY',
  'UPDATE',
  'KILL',
  'PREPARE',
  'EXECUTE',
  'DEALLOCATE',
  'DECLARE',
  'FETCH',
  'CLOSE',
  'COMMENT',
]);

/** Parses every statement of a request. Throws a DbError (2000 or 1001) on the first problem. */
export function parseSql(sql: string): Statement[] {
  const ts = new TokenStream(sql);
  ts.queryParser = parseQuery;
  const statements: Statement[] = [];
  let expectingDelimiter = false;
  for (;;) {
    while (ts.consumeOp(';')) expectingDelimiter = false;
    const t = ts.peek();
    if (t.kind === 'eof') break;
    if (expectingDelimiter) ts.unsupported(describeToken(t));
    statements.push(parseStatement(ts));
    expectingDelimiter = true;
  }
  return statements;
}

/** Parses a standalone expression (used for column DEFAULT texts kept in the catalog). */
export function parseExpression(sql: string): Expr {
  const ts = new TokenStream(sql);
  ts.queryParser = parseQuery;
  const expr = parseExpr(ts);
  const t = ts.peek();
  if (t.kind !== 'eof') ts.expected('end of expression', t);
  return expr;
}

function parseStatement(ts: TokenStream): Statement {
  const t = ts.peek();
  if (t.kind === 'op' && t.value === '(') return { kind: 'query', query: parseQuery(ts) };
  if (t.kind !== 'word' || t.quote !== null) return ts.expected('an SQL statement', t);
  const keyword = t.value.toUpperCase();
  switch (keyword) {
    case 'SELECT':
    case 'WITH':
      return { kind: 'query', query: parseQuery(ts) };
    case 'INSERT':
    case 'REPLACE':
      return parseInsert(ts);
    case 'DELETE': {
      ts.next();
      ts.expectKeyword('FROM');
      const table = ts.parseObjectName();
      const where = ts.consumeKeyword('WHERE') ? parseExpr(ts) : null;
      return { kind: 'delete', table, where };
    }
    case 'CREATE':
      return parseCreate(ts);
    case 'DROP':
      return parseDrop(ts);
    case 'SHOW':
      return parseShow(ts);
    case 'DESC':
    case 'DESCRIBE':
      ts.next();
      ts.consumeKeyword('TABLE');
      return { kind: 'describe', name: ts.parseObjectName() };
    case 'USE':
      ts.next();
      return { kind: 'use', db: parseDatabaseIdent(ts) };
    case 'SET':
      return parseSet(ts);
    case 'ALTER':
      return parseAlter(ts);
    case 'TRUNCATE':
      ts.next();
      ts.consumeKeyword('TABLE');
      return { kind: 'truncate_table', name: ts.parseObjectName() };
    case 'EXPLAIN': {
      ts.next();
      const analyze = ts.consumeKeyword('ANALYZE');
      const verbose = ts.consumeKeyword('VERBOSE');
      return { kind: 'explain', analyze, verbose, statement: parseStatement(ts) };
    }
    case 'TQL':
      return parseTql(ts);
    case 'ADMIN': {
      ts.next();
      const call = parseExpr(ts);
      if (call.kind !== 'function') return ts.expected('a function call after ADMIN', ts.peek());
      return { kind: 'admin', call: call as FunctionCall };
    }
    default:
      if (NOT_YET_SUPPORTED.has(keyword)) return ts.unsupported(keyword);
      return ts.expected('an SQL statement', t);
  }
}

function parseDatabaseIdent(ts: TokenStream): Ident {
  const t = ts.peek();
  if (t.kind === 'string') {
    ts.next();
    return { value: t.value, quote: "'" };
  }
  return ts.parseIdent('database name');
}

function parseInsert(ts: TokenStream): Statement {
  const replace = ts.next().value.toUpperCase() === 'REPLACE';
  ts.consumeKeyword('INTO');
  ts.consumeKeyword('TABLE');
  const table = ts.parseObjectName();
  let columns: Ident[] = [];
  if (ts.isOp('(') && !atQueryStart(ts)) columns = ts.parseParenthesizedIdents();
  if (ts.consumeKeyword('VALUES')) {
    const rows: Expr[][] = [];
    do {
      ts.expectOp('(');
      const row: Expr[] = [];
      if (!ts.isOp(')')) {
        do row.push(parseExpr(ts));
        while (ts.consumeOp(','));
      }
      ts.expectOp(')');
      rows.push(row);
    } while (ts.consumeOp(','));
    return { kind: 'insert', table, columns, source: { kind: 'values', rows }, replace };
  }
  if (ts.isKeyword('SELECT') || ts.isKeyword('WITH')) {
    return { kind: 'insert', table, columns, source: { kind: 'query', query: parseQuery(ts) }, replace };
  }
  if (ts.isOp('('))
    return { kind: 'insert', table, columns, source: { kind: 'query', query: parseQuery(ts) }, replace };
  return ts.expected('SELECT, VALUES, or a subquery in the query body', ts.peek());
}

function parseShowFilter(ts: TokenStream): ShowFilter | null {
  if (ts.consumeKeyword('LIKE')) {
    const t = ts.next();
    if (t.kind !== 'string') return ts.expected('literal string', t);
    return { kind: 'like', pattern: t.value };
  }
  if (ts.consumeKeyword('WHERE')) return { kind: 'where', expr: parseExpr(ts) };
  return null;
}

function parseShow(ts: TokenStream): Statement {
  ts.expectKeyword('SHOW');
  const full = ts.consumeKeyword('FULL');
  if (ts.consumeKeyword('DATABASES') || ts.consumeKeyword('SCHEMAS')) {
    return { kind: 'show_databases', full, filter: parseShowFilter(ts) };
  }
  if (ts.consumeKeyword('TABLES')) {
    let db = null;
    if (ts.consumeKeyword('FROM') || ts.consumeKeyword('IN')) db = ts.parseObjectName();
    return { kind: 'show_tables', full, db, filter: parseShowFilter(ts) };
  }
  if (!full && (ts.consumeKeywords('CREATE', 'DATABASE') || ts.consumeKeywords('CREATE', 'SCHEMA'))) {
    return { kind: 'show_create_database', name: ts.parseObjectName() };
  }
  if (!full && ts.consumeKeywords('CREATE', 'TABLE')) return { kind: 'show_create_table', name: ts.parseObjectName() };
  if (!full && ts.consumeKeyword('COLLATION')) return { kind: 'show_collation', filter: parseShowFilter(ts) };
  if (!full && (ts.consumeKeyword('CHARSET') || ts.consumeKeywords('CHARACTER', 'SET'))) {
    return { kind: 'show_charset', filter: parseShowFilter(ts) };
  }
  if (ts.consumeKeyword('COLUMNS') || ts.consumeKeyword('FIELDS')) {
    if (!ts.consumeKeyword('FROM') && !ts.consumeKeyword('IN')) {
      throw new DbError(
        ErrorCode.InvalidSyntax,
        `Unexpected token while parsing SQL statement, expected: '{FROM | IN} table', found: ${describeToken(ts.peek())}`,
      );
    }
    const table = ts.parseObjectName();
    let db = null;
    if (ts.consumeKeyword('FROM') || ts.consumeKeyword('IN')) db = ts.parseObjectName();
    return { kind: 'show_columns', full, table, db, filter: parseShowFilter(ts) };
  }
  const t = ts.peek();
  return ts.unsupported(`SHOW ${t.kind === 'eof' ? 'EOF' : t.value.toUpperCase()}`);
}

function parseSet(ts: TokenStream): Statement {
  ts.expectKeyword('SET');
  if (!ts.consumeKeyword('SESSION')) ts.consumeKeyword('LOCAL');
  if (ts.consumeKeywords('TIME', 'ZONE')) return { kind: 'set', variable: 'time_zone', value: parseExpr(ts) };
  let variable = ts.parseIdent('variable name').value.toLowerCase();
  while (ts.consumeOp('.')) variable += `.${ts.parseIdent().value.toLowerCase()}`;
  if (!ts.consumeOp('=')) ts.expectKeyword('TO');
  return { kind: 'set', variable, value: parseExpr(ts) };
}
