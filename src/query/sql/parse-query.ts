/**
 * Query parsing: `SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ... ORDER BY ... LIMIT ...`.
 * Joins, subqueries in FROM, set operations and CTEs are recognised and refused as unsupported
 * (code 1001) so that clients get a clear answer instead of a confusing syntax error.
 */
import { DbError, ErrorCode } from '../../shared/errors.js';
import type { Expr, Ident, OrderByItem, Query, Select, SelectItem, TableFactor } from './ast.js';
import { parseExpr } from './parse-expr.js';
import type { TokenStream } from './parser-base.js';

/** Parses a query: SELECT body, then ORDER BY, LIMIT and OFFSET. */
export function parseQuery(ts: TokenStream): Query {
  if (ts.isKeyword('WITH'))
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: WITH (common table expressions)');
  const body = parseSelect(ts);
  if (ts.isKeyword('UNION') || ts.isKeyword('EXCEPT') || ts.isKeyword('INTERSECT')) {
    throw new DbError(ErrorCode.Unsupported, `This feature is not implemented: ${ts.peek().value.toUpperCase()}`);
  }
  const query: Query = { body, orderBy: [], limit: null, offset: null };
  if (ts.consumeKeywords('ORDER', 'BY')) {
    do query.orderBy.push(parseOrderByItem(ts));
    while (ts.consumeOp(','));
  }
  parseLimitOffset(ts, query);
  return query;
}

function parseLimitOffset(ts: TokenStream, query: Query): void {
  for (let round = 0; round < 2; round++) {
    if (query.limit === null && ts.consumeKeyword('LIMIT')) {
      if (ts.consumeKeyword('ALL')) continue;
      const first = parseExpr(ts);
      if (ts.consumeOp(',')) {
        // MySQL's `LIMIT offset, count`.
        query.offset = first;
        query.limit = parseExpr(ts);
      } else {
        query.limit = first;
      }
    } else if (query.offset === null && ts.consumeKeyword('OFFSET')) {
      query.offset = parseExpr(ts);
      if (!ts.consumeKeyword('ROWS')) ts.consumeKeyword('ROW');
    }
  }
}

function parseOrderByItem(ts: TokenStream): OrderByItem {
  const expr = parseExpr(ts);
  let asc: boolean | null = null;
  if (ts.consumeKeyword('ASC')) asc = true;
  else if (ts.consumeKeyword('DESC')) asc = false;
  let nullsFirst: boolean | null = null;
  if (ts.consumeKeywords('NULLS', 'FIRST')) nullsFirst = true;
  else if (ts.consumeKeywords('NULLS', 'LAST')) nullsFirst = false;
  return { expr, asc, nullsFirst };
}

function parseSelect(ts: TokenStream): Select {
  ts.expectKeyword('SELECT');
  let distinct = false;
  if (ts.consumeKeyword('DISTINCT')) {
    if (ts.isKeyword('ON')) throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: DISTINCT ON');
    distinct = true;
  } else {
    ts.consumeKeyword('ALL');
  }
  const projection: SelectItem[] = [];
  for (;;) {
    projection.push(parseSelectItem(ts));
    if (!ts.consumeOp(',')) break;
    // GreptimeDB accepts a trailing comma before FROM (and before the end of the statement).
    if (ts.isKeyword('FROM') || ts.atEnd()) break;
  }
  let from: TableFactor | null = null;
  if (ts.consumeKeyword('FROM')) {
    from = parseTableFactor(ts);
    if (
      ts.isOp(',') ||
      ts.isKeyword('JOIN') ||
      ts.isKeyword('INNER') ||
      ts.isKeyword('LEFT') ||
      ts.isKeyword('RIGHT') ||
      ts.isKeyword('FULL') ||
      ts.isKeyword('CROSS')
    ) {
      throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: joins');
    }
  }
  const where = ts.consumeKeyword('WHERE') ? parseExpr(ts) : null;
  const groupBy: Expr[] = [];
  if (ts.consumeKeywords('GROUP', 'BY')) {
    do groupBy.push(parseExpr(ts));
    while (ts.consumeOp(','));
  }
  const having = ts.consumeKeyword('HAVING') ? parseExpr(ts) : null;
  if (ts.isKeyword('RANGE') || ts.isKeyword('ALIGN')) {
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: RANGE queries');
  }
  return { kind: 'select', distinct, projection, from, where, groupBy, having };
}

function parseSelectItem(ts: TokenStream): SelectItem {
  if (ts.consumeOp('*')) return { kind: 'wildcard', qualifier: [] };
  // `t.*` and `db.t.*`: look ahead over `word (. word)* . *`.
  let k = 0;
  while (ts.peek(k).kind === 'word' && ts.isOp('.', k + 1)) {
    if (ts.isOp('*', k + 2)) {
      const qualifier: Ident[] = [];
      for (let i = 0; i <= k; i += 2) {
        qualifier.push(ts.parseIdent());
        ts.expectOp('.');
      }
      ts.expectOp('*');
      return { kind: 'wildcard', qualifier };
    }
    k += 2;
  }
  const expr = parseExpr(ts);
  return { kind: 'expr', expr, alias: parseAlias(ts) };
}

/** `AS name`, or a bare non-reserved word. */
export function parseAlias(ts: TokenStream): Ident | null {
  if (ts.consumeKeyword('AS')) return ts.parseIdent();
  const t = ts.peek();
  if (t.kind === 'word' && !ts.nextIsReserved()) return ts.parseIdent();
  return null;
}

function parseTableFactor(ts: TokenStream): TableFactor {
  if (ts.isOp('(')) throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: subqueries in FROM');
  const name = ts.parseObjectName();
  if (ts.isOp('(')) throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: table functions');
  return { kind: 'table', name, alias: parseAlias(ts) };
}
