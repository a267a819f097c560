/**
 * Query parsing: `[WITH ...] SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ... [ALIGN ...]`,
 * set operations (`UNION [ALL]`, `EXCEPT`, `INTERSECT`), parenthesised queries, then ORDER BY,
 * LIMIT and OFFSET. FROM takes tables, derived tables (`(SELECT ...) AS t(x)`) and joins.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type {
  AlignClause,
  CommonTableExpr,
  Expr,
  FillSpec,
  Ident,
  JoinType,
  Query,
  QueryBody,
  Select,
  SelectItem,
  TableFactor,
} from './ast.js';
import { parseExpr, parseFill, parseOrderByItem, parseRangeDuration } from './parse-expr.js';
import { parseGroupByItems } from './parse-group-by.js';
import { atQueryStart, type TokenStream } from './parser-base.js';

/** Parses a query: WITH, body (with set operations), then ORDER BY, LIMIT and OFFSET. */
export function parseQuery(ts: TokenStream): Query {
  return ts.nested(() => parseQueryAt(ts));
}

function parseQueryAt(ts: TokenStream): Query {
  let withClause: Query['with'] = null;
  if (ts.consumeKeyword('WITH')) {
    const recursive = ts.consumeKeyword('RECURSIVE');
    const ctes: CommonTableExpr[] = [];
    do {
      const name = ts.parseIdent('CTE name');
      const columns = ts.isOp('(') ? ts.parseParenthesizedIdents() : [];
      ts.expectKeyword('AS');
      ts.expectOp('(');
      const query = parseQuery(ts);
      ts.expectOp(')');
      ctes.push({ name, columns, query });
    } while (ts.consumeOp(','));
    withClause = { recursive, ctes };
  }
  const body = parseSetExpr(ts, 0);
  const query: Query = { body, orderBy: [], limit: null, offset: null };
  if (withClause) query.with = withClause;
  if (ts.consumeKeywords('ORDER', 'BY')) {
    do query.orderBy.push(parseOrderByItem(ts));
    while (ts.consumeOp(','));
  }
  parseLimitOffset(ts, query);
  return query;
}

function setOperatorPrecedence(ts: TokenStream): number {
  if (ts.isKeyword('UNION') || ts.isKeyword('EXCEPT')) return 10;
  if (ts.isKeyword('INTERSECT')) return 20;
  return 0;
}

/** `term (op [ALL|DISTINCT] term)*`, INTERSECT binding tighter than UNION and EXCEPT. */
function parseSetExpr(ts: TokenStream, precedence: number): QueryBody {
  let left: QueryBody;
  if (ts.isOp('(')) {
    ts.next();
    const inner = parseQuery(ts);
    ts.expectOp(')');
    left = { kind: 'nested_query', query: inner };
  } else {
    left = parseSelect(ts);
  }
  for (;;) {
    const next = setOperatorPrecedence(ts);
    if (next === 0 || next <= precedence) break;
    const op = ts.next().value.toUpperCase() as 'UNION' | 'EXCEPT' | 'INTERSECT';
    let all = false;
    if (ts.consumeKeyword('ALL')) all = true;
    else ts.consumeKeyword('DISTINCT');
    if (ts.consumeKeywords('BY', 'NAME'))
      throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: UNION BY NAME');
    const right = parseSetExpr(ts, next);
    left = { kind: 'set_operation', op, all, left, right };
  }
  return left;
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

function parseSelect(ts: TokenStream): Select {
  ts.expectKeyword('SELECT');
  let distinct = false;
  let distinctOn: Expr[] | undefined;
  if (ts.consumeKeyword('DISTINCT')) {
    if (ts.consumeKeyword('ON')) {
      ts.expectOp('(');
      distinctOn = [];
      do distinctOn.push(parseExpr(ts));
      while (ts.consumeOp(','));
      ts.expectOp(')');
    } else distinct = true;
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
    from = parseJoinedFactor(ts);
    while (ts.consumeOp(',')) {
      from = { kind: 'join', joinType: 'cross', left: from, right: parseJoinedFactor(ts), on: null, using: null };
    }
  }
  const where = ts.consumeKeyword('WHERE') ? parseExpr(ts) : null;
  const groupBy: Expr[] = ts.consumeKeywords('GROUP', 'BY') ? parseGroupByItems(ts) : [];
  const having = ts.consumeKeyword('HAVING') ? parseExpr(ts) : null;
  const select: Select = { kind: 'select', distinct, projection, from, where, groupBy, having };
  if (distinctOn) select.distinctOn = distinctOn;
  if (ts.consumeKeyword('ALIGN')) select.align = parseAlign(ts);
  return select;
}

/** `ALIGN <duration> [TO <origin>] [BY (exprs)] [FILL <fill>]` (after ALIGN). */
function parseAlign(ts: TokenStream): AlignClause {
  const duration = parseRangeDuration(ts);
  let to: Expr | null = null;
  let by: Expr[] | null = null;
  let fill: FillSpec | null = null;
  if (ts.consumeKeyword('TO')) to = parseRangeDuration(ts);
  if (ts.consumeKeyword('BY')) {
    ts.expectOp('(');
    by = [];
    if (!ts.isOp(')')) {
      do by.push(parseExpr(ts));
      while (ts.consumeOp(','));
    }
    ts.expectOp(')');
  }
  if (ts.consumeKeyword('FILL')) fill = parseFill(ts);
  return { duration, to, by, fill };
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

/** A join type keyword sequence ending in JOIN, or null when the cursor is not at one. */
function parseJoinType(ts: TokenStream): JoinType | null {
  if (ts.consumeKeyword('JOIN')) return 'inner';
  if (ts.consumeKeywords('INNER', 'JOIN')) return 'inner';
  if (ts.consumeKeywords('CROSS', 'JOIN')) return 'cross';
  for (const [word, type] of [
    ['LEFT', 'left'],
    ['RIGHT', 'right'],
    ['FULL', 'full'],
  ] as const) {
    if (ts.consumeKeywords(word, 'JOIN') || ts.consumeKeywords(word, 'OUTER', 'JOIN')) return type;
  }
  if (ts.isKeyword('NATURAL') || (ts.isKeyword('LEFT') && (ts.isKeyword('SEMI', 1) || ts.isKeyword('ANTI', 1)))) {
    throw new DbError(ErrorCode.Unsupported, `This feature is not implemented: ${ts.peek().value.toUpperCase()} joins`);
  }
  return null;
}

/** A factor followed by any number of JOIN clauses. */
function parseJoinedFactor(ts: TokenStream): TableFactor {
  let left = parseTableFactor(ts);
  for (;;) {
    const joinType = parseJoinType(ts);
    if (!joinType) break;
    const right = parseTableFactor(ts);
    let on: Expr | null = null;
    let using: Ident[] | null = null;
    if (joinType !== 'cross') {
      if (ts.consumeKeyword('ON')) on = parseExpr(ts);
      else if (ts.consumeKeyword('USING')) using = ts.parseParenthesizedIdents();
    }
    left = { kind: 'join', joinType, left, right, on, using };
  }
  return left;
}

function parseFactorAlias(ts: TokenStream): { alias: Ident | null; columnAliases?: Ident[] } {
  const alias = parseAlias(ts);
  if (alias && ts.isOp('(')) return { alias, columnAliases: ts.parseParenthesizedIdents() };
  return { alias };
}

function parseTableFactor(ts: TokenStream): TableFactor {
  if (ts.isOp('(')) {
    if (atQueryStart(ts, 1)) {
      ts.expectOp('(');
      const query = parseQuery(ts);
      ts.expectOp(')');
      return { kind: 'derived', query, ...parseFactorAlias(ts) };
    }
    ts.expectOp('(');
    const inner = parseJoinedFactor(ts);
    ts.expectOp(')');
    return inner;
  }
  const name = ts.parseObjectName();
  if (ts.isOp('(')) throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: table functions');
  return { kind: 'table', name, ...parseFactorAlias(ts) };
}
