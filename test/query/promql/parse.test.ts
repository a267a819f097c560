import t from 'tap';
import type {
  BinaryExpr,
  Expr,
  MatrixSelector,
  NumberLiteral,
  SubqueryExpr,
  UnaryExpr,
  VectorSelector,
} from '../../../src/query/promql/ast.js';
import { parsePromql } from '../../../src/query/promql/engine.js';
import { exprToString } from '../../../src/query/promql/printer.js';
import { PromqlError } from '../../../src/query/promql/types.js';

function parseError(query: string): string {
  try {
    parsePromql(query);
  } catch (error) {
    if (error instanceof PromqlError && error.errorType === 'bad_data') return error.message;
    throw error;
  }
  throw new Error(`${query} parsed`);
}

t.test('syntax errors carry Prometheus wording and a line:col position', async (t) => {
  const cases: [string, string][] = [
    ['sum(x', '1:6: parse error: unclosed left parenthesis'],
    ['x{a="b"', '1:8: parse error: unexpected end of input inside braces'],
    ['1 +', '1:4: parse error: unexpected end of input'],
    ['foo(x)', '1:1: parse error: unknown function with name "foo"'],
    ['x{a="b}', '1:5: parse error: unterminated quoted string'],
    ['a ! b', "1:3: parse error: unexpected character after '!': ' '"],
    ['x)', "1:3: parse error: unexpected right parenthesis ')'"],
    ['sum by job (x)', '1:8: parse error: unexpected identifier "job" in grouping opts, expected "("'],
    ['sum by (a,,b) (x)', '1:11: parse error: unexpected "," in grouping opts, expected label'],
    ['x{a}', '1:4: parse error: unexpected "}" in label matching, expected label matching operator'],
    ['x{a="b" c="d"}', '1:9: parse error: unexpected identifier "c" in label matching, expected "," or "}"'],
    ['x[5m1h]', '1:3: parse error: not a valid duration string: "5m1h"'],
    ['x[5y1hs]', '1:3: parse error: unknown unit "hs" in duration "5y1hs"'],
    ['x[5m x]', "1:6: parse error: unexpected character: 'x', expected ':'"],
    [
      'x[step]',
      '1:7: parse error: unexpected "]" in subquery or range selector, expected number, duration, step(), or range()',
    ],
    ['1..2', '1:1: parse error: bad number or duration syntax: "1.."'],
    ['"\\c"', "1:1: parse error: unknown escape sequence U+0063 'c'"],
    ['1 * * 2', '1:5: parse error: unexpected <op:*>'],
    ['x offset', '1:9: parse error: unexpected end of input in offset, expected number, duration, step(), or range()'],
    ['x @', '1:4: parse error: unexpected end of input in @, expected timestamp'],
    ['rate(x[5m],)', '1:11: parse error: trailing commas not allowed in function call args'],
    ['x{a=~"(b"}', '1:3: parse error: error parsing regexp: missing closing ): `(b`'],
    ['', '1:1: parse error: no expression found in input'],
    ['sum(x)\n  + foo(y)', '2:5: parse error: unknown function with name "foo"'],
  ];
  for (const [query, message] of cases) t.equal(parseError(query), message, JSON.stringify(query));
});

t.test('type and arity errors follow Prometheus checkAST', async (t) => {
  const cases: [string, string][] = [
    ['rate(x)', '1:6: parse error: expected type range vector in call to function "rate", got instant vector'],
    ['abs(x, 1)', '1:1: parse error: expected 1 argument(s) in call to "abs", got 2'],
    ['label_join(x)', '1:1: parse error: expected at least 3 argument(s) in call to "label_join", got 1'],
    ['round(x, 1, 2)', '1:1: parse error: expected at most 2 argument(s) in call to "round", got 3'],
    ['1 < 2', '1:3: parse error: comparisons between scalars must use BOOL modifier'],
    ['a + bool b', '1:3: parse error: bool modifier can only be used on comparison operators'],
    ['a and on(x) group_left b', '1:1: parse error: no grouping allowed for "and" operation'],
    ['1 and x', '1:1: parse error: set operator "and" not allowed in binary scalar expression'],
    ['{}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
    ['{a=~".*"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
    ['x{__name__="y"}', '1:1: parse error: metric name must not be set twice: "x" or "y"'],
    ['x offset 1m [5m]', '1:13: parse error: no offset modifiers allowed before range'],
    ['(x)[5m]', '1:4: parse error: ranges only allowed for vector selectors'],
    ['x[5m][5m:1m]', '1:1: parse error: subquery is only allowed on instant vector, got matrix instead'],
    [
      'sum(x) offset 1m',
      '1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery',
    ],
    ['x offset 1m offset 2m', '1:1: parse error: offset may not be set multiple times'],
    ['x @ 1 @ 2', '1:1: parse error: @ <timestamp> may not be set multiple times'],
    ['x[0s]', '1:3: parse error: duration must be greater than 0'],
    ['x[5m / 0]', '1:6: parse error: division by zero'],
    ['topk(x)', '1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1'],
    ['count_values(1, x)', '1:14: parse error: expected type string in aggregation parameter, got scalar'],
    [
      '-"a"',
      '1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "string"',
    ],
  ];
  for (const [query, message] of cases) t.equal(parseError(query), message, JSON.stringify(query));
});

t.test('-1 ^ 2 means -(1 ^ 2), not (-1) ^ 2', async (t) => {
  const expr = parsePromql('-1 ^ 2') as UnaryExpr;
  t.equal(expr.type, 'UnaryExpr');
  t.equal(expr.op, '-');
  const power = expr.expr as BinaryExpr;
  t.equal(power.op, '^');
  t.equal((power.lhs as NumberLiteral).value, 1);
  t.equal(exprToString(parsePromql('2 ^ -1 ^ 2')), '2 ^ -1 ^ 2', 'the sign stays on the inner power');
  t.equal(((parsePromql('2 ^ -1 ^ 2') as BinaryExpr).rhs as UnaryExpr).type, 'UnaryExpr');
  t.equal((parsePromql('- - - 1') as NumberLiteral).value, -1, 'signs on a literal fold into it');
  t.equal(parsePromql('-(1)').type, 'UnaryExpr', 'a parenthesised literal does not fold');
});

t.test('offset, @ and ranges bind tighter than every binary operator', async (t) => {
  const sum = parsePromql('a + r @ 60 * 0') as BinaryExpr;
  t.equal(sum.op, '+');
  const product = sum.rhs as BinaryExpr;
  t.equal(product.op, '*');
  t.equal((product.lhs as VectorSelector).atMs, 60_000);
  const or = parsePromql('m1 offset 15m or m2 offset 45m') as BinaryExpr;
  t.equal((or.lhs as VectorSelector).offsetMs, 900_000);
  t.equal((or.rhs as VectorSelector).offsetMs, 2_700_000);
  const negated = parsePromql('-a offset 1m') as UnaryExpr;
  t.equal((negated.expr as VectorSelector).offsetMs, 60_000);
  t.equal(
    parseError('a + b[5m]'),
    '1:5: parse error: binary expression must contain only scalar and instant vector types',
  );
  t.equal(
    parseError('a + b[5m:]'),
    '1:5: parse error: binary expression must contain only scalar and instant vector types',
  );
  const subquery = parsePromql('(a + b)[5m:] offset 1m') as SubqueryExpr;
  t.equal(subquery.offsetMs, 60_000, 'a parenthesised operand takes the whole modifier');
});

t.test('precedence: ^ is right-associative, and/unless above or, unary like *', async (t) => {
  t.equal(exprToString(parsePromql('(1 + 2) * 3')), '(1 + 2) * 3');
  const pow = parsePromql('2 ^ 3 ^ 2') as BinaryExpr;
  t.equal((pow.rhs as BinaryExpr).op, '^');
  const or = parsePromql('a or b and c unless d') as BinaryExpr;
  t.equal(or.op, 'or');
  t.equal((or.rhs as BinaryExpr).op, 'unless');
  const negated = parsePromql('-a * b') as BinaryExpr;
  t.equal(negated.op, '*');
  t.equal(negated.lhs.type, 'UnaryExpr');
  t.equal((parsePromql('-a ^ b') as UnaryExpr).type, 'UnaryExpr');
});

t.test('duration arithmetic in ranges, steps and offsets stays an expression', async (t) => {
  const matrix = (parsePromql('rate(x[5m + 1m])') as Extract<Expr, { type: 'Call' }>).args[0] as MatrixSelector;
  t.equal(matrix.rangeMs, 0);
  t.equal(matrix.rangeExpr?.op, '+');
  t.equal(exprToString(matrix), 'x[5m + 1m]');
  const subquery = parsePromql('x[1h:step() * 2] offset -(10m)') as SubqueryExpr;
  t.equal(exprToString(subquery), 'x[1h:step() * 2] offset -(10m)');
  t.equal(subquery.offsetExpr?.op, '-');
  const plain = parsePromql('x[90s] offset -5m') as MatrixSelector;
  t.equal(plain.rangeMs, 90_000);
  t.equal(plain.selector.offsetMs, -300_000);
  t.equal((parsePromql('x[600]') as MatrixSelector).rangeMs, 600_000, 'a bare number is seconds');
  t.equal(exprToString(parsePromql('x[max_of(1m, 2m)]')), 'x[max_of(1m, 2m)]');
});

t.test('number literals follow Go: hex, octal, durations, Inf and NaN', async (t) => {
  const value = (q: string): number => (parsePromql(q) as NumberLiteral).value;
  t.equal(value('0x1f'), 31);
  t.equal(value('010'), 8);
  t.equal(value('1_000'), 1000);
  t.equal(value('2.'), 2);
  t.equal(value('.5'), 0.5);
  t.equal(value('1e3'), 1000);
  t.equal(value('1h30m'), 5400);
  t.equal(value('-Inf'), Number.NEGATIVE_INFINITY);
  t.ok(Number.isNaN(value('nan')));
  t.equal((parsePromql('5m') as NumberLiteral).duration, true);
});

t.test('strings unquote with Go escapes in all three quote styles', async (t) => {
  const value = (q: string): string => (parsePromql(q) as Extract<Expr, { type: 'StringLiteral' }>).value;
  t.equal(value('"a\\tb\\u00e9\\x41"'), 'a\tbéA');
  t.equal(value("'it\\'s'"), "it's");
  t.equal(value('`raw\\n`'), 'raw\\n');
  t.equal(value('"\\xc3\\xa9"'), 'é', 'escaped bytes decode as UTF-8');
  t.equal(parseError('"\\q"'), "1:1: parse error: unknown escape sequence U+0071 'q'");
  t.equal(parseError('"\\x4"'), "1:1: parse error: illegal character U+0022 '\"' in escape sequence");
});

t.test('selectors keep written matchers and append the name matcher last', async (t) => {
  const selector = parsePromql('up{job="a", instance=~"i.*"}') as VectorSelector;
  t.same(selector.matchers, [
    { name: 'job', op: '=', value: 'a' },
    { name: 'instance', op: '=~', value: 'i.*' },
    { name: '__name__', op: '=', value: 'up' },
  ]);
  const quoted = parsePromql('{"my.metric", "a.b"="c"}') as VectorSelector;
  t.same(quoted.matchers, [
    { name: '__name__', op: '=', value: 'my.metric' },
    { name: 'a.b', op: '=', value: 'c' },
  ]);
  t.equal((parsePromql('x @ start()') as VectorSelector).startOrEnd, 'start');
  t.equal((parsePromql('x @ 1.5') as VectorSelector).atMs, 1500);
});

t.test('comments are ignored wherever they appear', async (t) => {
  t.equal(exprToString(parsePromql('# leading\nsum(x) # trailing\n+ 1 # end')), 'sum(x) + 1');
  t.equal(exprToString(parsePromql('rate(\n  x[5m] # window\n)')), 'rate(x[5m])');
  t.equal(parseError('# only a comment'), '1:1: parse error: no expression found in input');
});

t.test('a repeated expression is parsed once: the same frozen tree comes back', async (t) => {
  const text = 'sum by (job) (rate(http_requests_total{code="500"}[5m]))';
  const first = parsePromql(text);
  t.equal(parsePromql(text), first, 'the cached tree');
  t.ok(Object.isFrozen(first), 'frozen, so no caller can change what the next one gets');
  t.throws(() => {
    (first as { type: string }).type = 'NumberLiteral';
  }, TypeError);
  t.not(parsePromql(`${text} `), first, 'another text is parsed on its own');
});
