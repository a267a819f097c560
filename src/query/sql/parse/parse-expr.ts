/**
 * Expression and data-type parsing: a Pratt parser with sqlparser-rs's binding powers, so that
 * `a = 1 OR b = 2 AND c` and `NOT a LIKE 'x'` group the way GreptimeDB groups them.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { Expr, FillSpec, FrameBound, FunctionCall, Ident, OrderByItem, WindowSpec } from './ast.js';
import {
  ARITHMETIC_OPS,
  COMPARISON_OPS,
  INTERVAL_UNITS,
  NILADIC_FUNCTIONS,
  PREC_AND,
  PREC_BETWEEN,
  PREC_COMPARE,
  PREC_DOUBLE_COLON,
  PREC_IS,
  PREC_LIKE,
  PREC_MUL_DIV,
  PREC_NOT,
  PREC_OR,
  PREC_SUBSCRIPT,
  REGEX_OPS,
  TYPED_STRING_TYPES,
} from './expr-grammar.js';
import { parseDataType } from './parse-data-type.js';
import { atQueryStart, RESERVED_WORDS, type TokenStream } from './parser-base.js';

/** Parses one expression at the cursor. */
export function parseExpr(ts: TokenStream): Expr {
  return parseSubexpr(ts, 0);
}

/** Parses an expression whose operators bind tighter than `precedence`. */
export function parseSubexpr(ts: TokenStream, precedence: number): Expr {
  return ts.nested(() => parseSubexprAt(ts, precedence));
}

function parseSubexprAt(ts: TokenStream, precedence: number): Expr {
  let expr = parsePrefix(ts);
  for (;;) {
    const next = nextPrecedence(ts);
    if (precedence >= next) break;
    expr = parseInfix(ts, expr, next);
  }
  return expr;
}

function nextPrecedence(ts: TokenStream): number {
  const t = ts.peek();
  if (t.kind === 'op') {
    if (t.value === '[') return PREC_SUBSCRIPT;
    if (COMPARISON_OPS[t.value]) return PREC_COMPARE;
    if (REGEX_OPS[t.value]) return PREC_LIKE;
    const arith = ARITHMETIC_OPS[t.value];
    if (arith) return arith[1];
    if (t.value === '::') return PREC_DOUBLE_COLON;
    return 0;
  }
  if (t.kind !== 'word' || t.quote !== null) return 0;
  switch (t.value.toUpperCase()) {
    case 'OR':
      return PREC_OR;
    case 'AND':
      return PREC_AND;
    case 'IS':
      return PREC_IS;
    case 'IN':
    case 'BETWEEN':
      return PREC_BETWEEN;
    case 'LIKE':
    case 'ILIKE':
      return PREC_LIKE;
    case 'NOT':
      if (ts.isKeyword('IN', 1) || ts.isKeyword('BETWEEN', 1)) return PREC_BETWEEN;
      if (ts.isKeyword('LIKE', 1) || ts.isKeyword('ILIKE', 1)) return PREC_LIKE;
      return 0;
    default:
      return 0;
  }
}

function parseInfix(ts: TokenStream, left: Expr, precedence: number): Expr {
  const t = ts.next();
  if (t.kind === 'op') {
    const cmp = COMPARISON_OPS[t.value];
    if (cmp) return { kind: 'binary', op: cmp, left, right: parseSubexpr(ts, precedence) };
    const regex = REGEX_OPS[t.value];
    if (regex) return { kind: 'binary', op: regex, left, right: parseSubexpr(ts, precedence) };
    const arith = ARITHMETIC_OPS[t.value];
    if (arith) return { kind: 'binary', op: arith[0], left, right: parseSubexpr(ts, precedence) };
    if (t.value === '::') return { kind: 'cast', expr: left, dataType: parseDataType(ts), style: 'double_colon' };
    if (t.value === '[') {
      // `list[i]` is DataFusion's array_element (1-based), `list[from:to]` its array_slice.
      const index = parseExpr(ts);
      if (ts.consumeOp(':')) {
        const to = parseExpr(ts);
        ts.expectOp(']');
        return { ...call('array_slice', [left, index, to]), syntax: 'subscript' };
      }
      ts.expectOp(']');
      return { ...call('array_element', [left, index]), syntax: 'subscript' };
    }
  }
  const word = t.value.toUpperCase();
  if (word === 'AND' || word === 'OR') return { kind: 'binary', op: word, left, right: parseSubexpr(ts, precedence) };
  if (word === 'IS') {
    const negated = ts.consumeKeyword('NOT');
    if (ts.consumeKeyword('DISTINCT')) {
      ts.expectKeyword('FROM');
      return { kind: 'is_distinct', left, right: parseSubexpr(ts, precedence), negated };
    }
    for (const test of ['NULL', 'TRUE', 'FALSE', 'UNKNOWN'] as const) {
      if (ts.consumeKeyword(test)) return { kind: 'is', expr: left, test, negated };
    }
    return ts.expected('[NOT] NULL | TRUE | FALSE | DISTINCT | [form] NORMALIZED FROM after IS', ts.peek());
  }
  let negated = false;
  let op = word;
  if (word === 'NOT') {
    negated = true;
    op = ts.next().value.toUpperCase();
  }
  switch (op) {
    case 'IN': {
      ts.expectOp('(');
      if (atQueryStart(ts)) {
        const query = ts.parseNestedQuery();
        ts.expectOp(')');
        return { kind: 'in_subquery', expr: left, query, negated };
      }
      const list: Expr[] = [];
      if (!ts.isOp(')')) {
        do list.push(parseExpr(ts));
        while (ts.consumeOp(','));
      }
      ts.expectOp(')');
      return { kind: 'in_list', expr: left, list, negated };
    }
    case 'BETWEEN': {
      const low = parseSubexpr(ts, PREC_BETWEEN);
      ts.expectKeyword('AND');
      const high = parseSubexpr(ts, PREC_BETWEEN);
      return { kind: 'between', expr: left, low, high, negated };
    }
    case 'LIKE':
    case 'ILIKE': {
      const pattern = parseSubexpr(ts, PREC_LIKE);
      let escapeChar: string | null = null;
      if (ts.consumeKeyword('ESCAPE')) {
        const e = ts.next();
        if (e.kind !== 'string') ts.expected('escape char', e);
        escapeChar = e.value;
      }
      return { kind: 'like', expr: left, pattern, negated, caseInsensitive: op === 'ILIKE', escape: escapeChar };
    }
    default:
      return ts.expected('an infix operator', t);
  }
}

function parsePrefix(ts: TokenStream): Expr {
  const t = ts.peek();
  switch (t.kind) {
    case 'number':
      ts.next();
      return { kind: 'number', text: t.value };
    case 'string':
      ts.next();
      return { kind: 'string', value: t.value };
    case 'op':
      if (t.value === '-' || t.value === '+') {
        ts.next();
        return { kind: 'unary', op: t.value, expr: parseSubexpr(ts, PREC_MUL_DIV) };
      }
      if (t.value === '(') {
        ts.next();
        if (atQueryStart(ts)) {
          const query = ts.parseNestedQuery();
          ts.expectOp(')');
          return { kind: 'subquery', query };
        }
        const inner = parseExpr(ts);
        if (ts.isOp(','))
          throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: tuple expressions');
        ts.expectOp(')');
        if (ts.isKeyword('RANGE') && !ts.isKeyword('BETWEEN', 1) && !ts.isKeyword('UNBOUNDED', 1)) {
          // `(avg(a) + sum(b)) RANGE '5m'`: the range applies to every aggregate inside.
          ts.next();
          const duration = parseRangeDuration(ts);
          const fill = ts.consumeKeyword('FILL') ? parseFill(ts) : null;
          distributeRange(inner, { duration, fill, inherited: true });
        }
        return { kind: 'nested', expr: inner };
      }
      if (t.value === '[') {
        ts.next();
        return parseArrayLiteral(ts);
      }
      return ts.expected('an expression', t);
    case 'word':
      return parseWordPrefix(ts);
    default:
      return ts.expected('an expression', t);
  }
}

function parseWordPrefix(ts: TokenStream): Expr {
  const t = ts.peek();
  if (t.quote === null) {
    const upper = t.value.toUpperCase();
    switch (upper) {
      case 'NOT':
        ts.next();
        if (ts.isKeyword('EXISTS') && ts.isOp('(', 1) && atQueryStart(ts, 2)) {
          const inner = parsePrefix(ts) as Extract<Expr, { kind: 'exists' }>;
          return { ...inner, negated: true };
        }
        return { kind: 'unary', op: 'NOT', expr: parseSubexpr(ts, PREC_NOT) };
      case 'TRUE':
      case 'FALSE':
        ts.next();
        return { kind: 'boolean', value: upper === 'TRUE' };
      case 'NULL':
        ts.next();
        return { kind: 'null' };
      case 'DEFAULT':
        ts.next();
        return { kind: 'default' };
      case 'CASE':
        ts.next();
        return parseCase(ts);
      case 'ARRAY':
        // PostgreSQL's `ARRAY[a, b]`, the same make_array as `[a, b]` (ARRAY is a reserved word there).
        if (ts.isOp('[', 1)) {
          ts.next();
          ts.next();
          return parseArrayLiteral(ts);
        }
        break;
      case 'CAST':
      case 'TRY_CAST':
        if (ts.isOp('(', 1)) {
          ts.next();
          ts.expectOp('(');
          const inner = parseExpr(ts);
          ts.expectKeyword('AS');
          const dataType = parseDataType(ts);
          ts.expectOp(')');
          return { kind: 'cast', expr: inner, dataType, style: upper === 'CAST' ? 'cast' : 'try_cast' };
        }
        break;
      case 'EXTRACT':
        if (ts.isOp('(', 1)) return parseExtract(ts);
        break;
      case 'SUBSTRING':
        if (ts.isOp('(', 1)) return parseSubstring(ts);
        break;
      case 'TRIM':
        if (ts.isOp('(', 1)) return parseTrim(ts);
        break;
      case 'POSITION':
        if (ts.isOp('(', 1)) return parsePosition(ts);
        break;
      case 'OVERLAY':
        if (ts.isOp('(', 1)) return parseOverlay(ts);
        break;
      case 'LEFT':
      case 'RIGHT':
      case 'RANGE':
        // Reserved for joins and range queries, but also functions when called (`range(1, 5)`).
        if (ts.isOp('(', 1)) return parseFunctionArgs(ts, [ts.parseIdent()]);
        break;
      case 'INTERVAL':
        if (ts.peek(1).kind === 'string' || ts.isOp('(', 1) || ts.peek(1).kind === 'number') return parseInterval(ts);
        break;
      case 'EXISTS':
        if (ts.isOp('(', 1) && atQueryStart(ts, 2)) {
          ts.next();
          ts.expectOp('(');
          const query = ts.parseNestedQuery();
          ts.expectOp(')');
          return { kind: 'exists', query, negated: false };
        }
        break;
      default:
        if (RESERVED_WORDS.has(upper)) return ts.expected('an expression', t);
        if (TYPED_STRING_TYPES.has(upper) && ts.peek(1).kind === 'string') {
          const dataType = parseDataType(ts);
          const value = ts.next().value;
          return { kind: 'typed_string', dataType, value };
        }
        if (NILADIC_FUNCTIONS.has(upper) && !ts.isOp('(', 1) && !ts.isOp('.', 1)) {
          ts.next();
          return {
            kind: 'function',
            name: [{ value: t.value, quote: null }],
            args: [],
            star: false,
            distinct: false,
            parens: false,
          };
        }
    }
  }
  const parts: Ident[] = [ts.parseIdent()];
  while (ts.isOp('.') && ts.peek(1).kind === 'word') {
    ts.next();
    parts.push(ts.parseIdent());
  }
  if (ts.isOp('(')) return parseFunctionArgs(ts, parts);
  return { kind: 'identifier', parts };
}

/** Gives every function call in `expr` without its own RANGE the range `spec` (see RangeSpec). */
function distributeRange(expr: Expr, spec: NonNullable<FunctionCall['range']>): void {
  switch (expr.kind) {
    case 'function':
      if (!expr.range) expr.range = spec;
      for (const a of expr.args) distributeRange(a, spec);
      return;
    case 'unary':
    case 'nested':
    case 'cast':
      distributeRange(expr.expr, spec);
      return;
    case 'binary':
      distributeRange(expr.left, spec);
      distributeRange(expr.right, spec);
      return;
    case 'case':
      for (const e of [expr.operand, expr.elseResult, ...expr.whens.flatMap((w) => [w.when, w.result])]) {
        if (e) distributeRange(e, spec);
      }
      return;
    default:
      return;
  }
}

/** `INTERVAL '1 day'`, `INTERVAL '1' DAY`, `INTERVAL (expr) HOUR`. */
function parseInterval(ts: TokenStream): Expr {
  ts.next();
  const value = parsePrefix(ts);
  let unit: string | null = null;
  const t = ts.peek();
  if (t.kind === 'word' && t.quote === null && INTERVAL_UNITS.has(t.value.toUpperCase())) {
    unit = t.value.toUpperCase();
    ts.next();
  }
  return { kind: 'interval', value, unit };
}

/** The items of `[a, b]` after its `[`: DataFusion's make_array. */
function parseArrayLiteral(ts: TokenStream): Expr {
  const items: Expr[] = [];
  if (!ts.isOp(']')) {
    do items.push(parseExpr(ts));
    while (ts.consumeOp(','));
  }
  ts.expectOp(']');
  return { ...call('make_array', items), syntax: 'array_literal' };
}

function call(name: string, args: Expr[]): FunctionCall {
  return { kind: 'function', name: [{ value: name, quote: null }], args, star: false, distinct: false, parens: true };
}

/** `EXTRACT(field FROM expr)` is `date_part('field', expr)`, as DataFusion plans it. */
function parseExtract(ts: TokenStream): Expr {
  ts.next();
  ts.expectOp('(');
  const field = ts.next();
  if (field.kind !== 'word' && field.kind !== 'string') ts.expected('date/time field', field);
  ts.expectKeyword('FROM');
  const expr = parseExpr(ts);
  ts.expectOp(')');
  return call('date_part', [
    { kind: 'string', value: field.kind === 'word' ? field.value.toUpperCase() : field.value },
    expr,
  ]);
}

/**
 * `POSITION(sub IN s)` is `strpos(s, sub)`, as DataFusion plans it; the plain call form
 * `position(s, sub)` stays a function call. The needle is read above IN's precedence so that
 * `IN` ends it instead of starting an IN list.
 */
function parsePosition(ts: TokenStream): Expr {
  const name = ts.parseIdent();
  ts.expectOp('(');
  const first = parseSubexpr(ts, PREC_BETWEEN);
  if (!ts.consumeKeyword('IN')) {
    const args = [first];
    while (ts.consumeOp(',')) args.push(parseExpr(ts));
    ts.expectOp(')');
    return { ...call('position', args), name: [name] };
  }
  const haystack = parseExpr(ts);
  ts.expectOp(')');
  return call('strpos', [haystack, first]);
}

/** `OVERLAY(s PLACING x FROM a [FOR b])` is `overlay(s, x, a[, b])`; the comma form is kept. */
function parseOverlay(ts: TokenStream): Expr {
  const name = ts.parseIdent();
  ts.expectOp('(');
  const args = [parseExpr(ts)];
  if (ts.consumeKeyword('PLACING')) {
    args.push(parseExpr(ts));
    ts.expectKeyword('FROM');
    args.push(parseExpr(ts));
    if (ts.consumeKeyword('FOR')) args.push(parseExpr(ts));
  } else {
    while (ts.consumeOp(',')) args.push(parseExpr(ts));
  }
  ts.expectOp(')');
  return { ...call('overlay', args), name: [name] };
}

/** `SUBSTRING(s FROM a [FOR b])` or `SUBSTRING(s, a[, b])`. */
function parseSubstring(ts: TokenStream): Expr {
  const name = ts.parseIdent();
  ts.expectOp('(');
  const args = [parseExpr(ts)];
  if (ts.consumeKeyword('FROM')) {
    args.push(parseExpr(ts));
    if (ts.consumeKeyword('FOR')) args.push(parseExpr(ts));
  } else {
    while (ts.consumeOp(',')) args.push(parseExpr(ts));
  }
  ts.expectOp(')');
  return { ...call('substring', args), name: [name] };
}

/** `TRIM([BOTH|LEADING|TRAILING] [chars FROM] s)` → `btrim`/`ltrim`/`rtrim(s[, chars])`. */
function parseTrim(ts: TokenStream): Expr {
  const name = ts.parseIdent();
  ts.expectOp('(');
  let fn: string | null = null;
  if (ts.consumeKeyword('BOTH')) fn = 'btrim';
  else if (ts.consumeKeyword('LEADING')) fn = 'ltrim';
  else if (ts.consumeKeyword('TRAILING')) fn = 'rtrim';
  let args: Expr[];
  if (fn && ts.consumeKeyword('FROM')) {
    args = [parseExpr(ts)];
  } else {
    const first = parseExpr(ts);
    if (ts.consumeKeyword('FROM')) args = [parseExpr(ts), first];
    else {
      args = [first];
      while (ts.consumeOp(',')) args.push(parseExpr(ts));
    }
  }
  ts.expectOp(')');
  return fn ? call(fn, args) : { ...call('trim', args), name: [name] };
}

function parseFunctionArgs(ts: TokenStream, name: Ident[]): FunctionCall {
  ts.expectOp('(');
  const call: FunctionCall = { kind: 'function', name, args: [], star: false, distinct: false, parens: true };
  if (ts.consumeOp(')')) return finishFunction(ts, call);
  if (ts.consumeKeyword('DISTINCT')) call.distinct = true;
  else ts.consumeKeyword('ALL');
  if (ts.isOp('*') && ts.isOp(')', 1)) {
    ts.next();
    call.star = true;
  } else {
    do call.args.push(parseExpr(ts));
    while (ts.consumeOp(','));
  }
  if (ts.consumeKeywords('ORDER', 'BY')) {
    call.orderBy = [];
    do call.orderBy.push(parseOrderByItem(ts));
    while (ts.consumeOp(','));
  }
  ts.expectOp(')');
  return finishFunction(ts, call);
}

function finishFunction(ts: TokenStream, call: FunctionCall): FunctionCall {
  if (ts.consumeKeyword('WITHIN')) {
    // `approx_percentile_cont(0.5) WITHIN GROUP (ORDER BY x)`: the ordered value comes first.
    ts.expectKeyword('GROUP');
    ts.expectOp('(');
    ts.expectKeywords('ORDER', 'BY');
    const item = parseOrderByItem(ts);
    ts.expectOp(')');
    call.args = [item.expr, ...call.args];
    if (item.asc === false) call.orderBy = [item];
  }
  if (ts.isKeyword('FILTER') && ts.isOp('(', 1)) {
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: FILTER clause of aggregate functions');
  }
  if (ts.consumeKeyword('OVER')) call.over = parseWindowSpec(ts);
  if (ts.isKeyword('RANGE') && !ts.isKeyword('BETWEEN', 1) && !ts.isKeyword('UNBOUNDED', 1)) {
    ts.next();
    const duration = parseRangeDuration(ts);
    const fill = ts.consumeKeyword('FILL') ? parseFill(ts) : null;
    call.range = { duration, fill };
  }
  return call;
}

/** `( [PARTITION BY ...] [ORDER BY ...] [ROWS|RANGE frame] )` after OVER. */
function parseWindowSpec(ts: TokenStream): WindowSpec {
  if (ts.peek().kind === 'word') {
    throw new DbError(ErrorCode.Unsupported, 'This feature is not implemented: named windows');
  }
  ts.expectOp('(');
  const spec: WindowSpec = { partitionBy: [], orderBy: [], frame: null };
  if (ts.consumeKeywords('PARTITION', 'BY')) {
    do spec.partitionBy.push(parseExpr(ts));
    while (ts.consumeOp(','));
  }
  if (ts.consumeKeywords('ORDER', 'BY')) {
    do spec.orderBy.push(parseOrderByItem(ts));
    while (ts.consumeOp(','));
  }
  if (ts.isKeyword('ROWS') || ts.isKeyword('RANGE')) {
    const units = ts.next().value.toUpperCase() as 'ROWS' | 'RANGE';
    if (ts.consumeKeyword('BETWEEN')) {
      const start = parseFrameBound(ts);
      ts.expectKeyword('AND');
      spec.frame = { units, start, end: parseFrameBound(ts) };
    } else {
      spec.frame = { units, start: parseFrameBound(ts), end: { kind: 'current_row' } };
    }
  }
  ts.expectOp(')');
  return spec;
}

function parseFrameBound(ts: TokenStream): FrameBound {
  if (ts.consumeKeywords('CURRENT', 'ROW')) return { kind: 'current_row' };
  let offset: Expr | null = null;
  if (!ts.consumeKeyword('UNBOUNDED')) offset = parsePrefix(ts);
  if (ts.consumeKeyword('PRECEDING')) return { kind: 'preceding', offset };
  ts.expectKeyword('FOLLOWING');
  return { kind: 'following', offset };
}

function parseCase(ts: TokenStream): Expr {
  let operand: Expr | null = null;
  if (!ts.isKeyword('WHEN')) operand = parseExpr(ts);
  const whens: Array<{ when: Expr; result: Expr }> = [];
  ts.expectKeyword('WHEN');
  do {
    const when = parseExpr(ts);
    ts.expectKeyword('THEN');
    whens.push({ when, result: parseExpr(ts) });
  } while (ts.consumeKeyword('WHEN'));
  let elseResult: Expr | null = null;
  if (ts.consumeKeyword('ELSE')) elseResult = parseExpr(ts);
  ts.expectKeyword('END');
  return { kind: 'case', operand, whens, elseResult };
}

/** Binding power of a RANGE/ALIGN duration: one literal or one parenthesised expression. */
const DURATION_PRECEDENCE = 100;

/** One `expr [ASC|DESC] [NULLS FIRST|LAST]`. */
export function parseOrderByItem(ts: TokenStream): OrderByItem {
  const expr = parseExpr(ts);
  let asc: boolean | null = null;
  if (ts.consumeKeyword('ASC')) asc = true;
  else if (ts.consumeKeyword('DESC')) asc = false;
  let nullsFirst: boolean | null = null;
  if (ts.consumeKeywords('NULLS', 'FIRST')) nullsFirst = true;
  else if (ts.consumeKeywords('NULLS', 'LAST')) nullsFirst = false;
  return { expr, asc, nullsFirst };
}

/** The argument of FILL (after the keyword). */
export function parseFill(ts: TokenStream): FillSpec {
  if (ts.consumeKeyword('NULL')) return { kind: 'null' };
  if (ts.consumeKeyword('PREV')) return { kind: 'prev' };
  if (ts.consumeKeyword('LINEAR')) return { kind: 'linear' };
  return { kind: 'constant', value: parseSubexpr(ts, DURATION_PRECEDENCE) };
}

/** A RANGE or ALIGN duration (or ALIGN's TO origin): one literal or one parenthesised expression. */
export function parseRangeDuration(ts: TokenStream): Expr {
  return parseSubexpr(ts, DURATION_PRECEDENCE);
}
