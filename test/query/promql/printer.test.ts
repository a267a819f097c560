import t from 'tap';
import { formatPromql, parsePromql, promqlToJson } from '../../../src/query/promql/engine.js';
import { exprToString, prettify } from '../../../src/query/promql/printer.js';

t.test('expressions print in Prometheus canonical form and re-parse to the same text', async (t) => {
  const cases: [string, string][] = [
    ['sum by(job,foo) (x)', 'sum by (job, foo) (x)'],
    ['sum(x) without(a)', 'sum without (a) (x)'],
    ['sum by () (x)', 'sum(x)'],
    ['x{b="2",a="1"}', 'x{a="1",b="2"}'],
    ['{__name__="x"}', '{__name__="x"}'],
    ['a * on(x) group_left(y) b', 'a * on (x) group_left (y) b'],
    ['a > bool ignoring(z) b', 'a > bool ignoring (z) b'],
    ['a + ignoring() b', 'a + b'],
    ['x offset 90s', 'x offset 1m30s'],
    ['x offset -1w', 'x offset -1w'],
    ['x[14d]', 'x[2w]'],
    ['x[5m] @ start() offset 1m', 'x[5m] @ start() offset 1m'],
    ['rate(x[5m])[1h:]', 'rate(x[5m])[1h:]'],
    ['x @ 1.5', 'x @ 1.500'],
    ['1e3 + 0x10', '1000 + 16'],
    ['"a\\nb" ', '"a\\nb"'],
    ['-(a)', '-(a)'],
    ['x{"a.b"="c"}', 'x{"a.b"="c"}'],
  ];
  for (const [input, printed] of cases) {
    t.equal(exprToString(parsePromql(input)), printed, input);
    t.equal(exprToString(parsePromql(printed)), printed, `${printed} is stable`);
  }
});

t.test('format_query splits nodes longer than the line limit, two spaces per level', async (t) => {
  t.equal(prettify(parsePromql('sum(foo)'), 10), 'sum(foo)');
  t.equal(
    prettify(parsePromql('sum without(job,foo) (task:errors:rate10s{job="s"})'), 10),
    'sum without (job, foo) (\n  task:errors:rate10s{job="s"}\n)',
  );
  t.equal(
    prettify(parsePromql('topk(10, ask:errors:rate10s{job="s"})'), 10),
    'topk(\n  10,\n  ask:errors:rate10s{job="s"}\n)',
  );
  t.equal(
    prettify(parsePromql('a_long_metric + on(x) another_metric'), 10),
    '  a_long_metric\n+ on (x)\n  another_metric',
  );
  t.equal(
    prettify(parsePromql('-(a_long_metric + b_long_metric)'), 10),
    '-(\n    a_long_metric\n  +\n    b_long_metric\n)',
  );
  const short = 'sum by (job) (rate(x[5m]))';
  t.equal(formatPromql(parsePromql(short)), short, 'the production limit is 100 characters');
});

t.test('parse_query JSON has the shape of Prometheus translateAST', async (t) => {
  t.same(promqlToJson(parsePromql('up{job="a"} offset 5m')), {
    type: 'vectorSelector',
    name: 'up',
    offset: 300_000,
    offsetExpr: null,
    matchers: [
      { name: 'job', value: 'a', type: '=' },
      { name: '__name__', value: 'up', type: '=' },
    ],
    timestamp: null,
    startOrEnd: null,
    anchored: false,
    smoothed: false,
  });
  t.same(promqlToJson(parsePromql('sum by (x) (rate(m[5m+1m]))')), {
    type: 'aggregation',
    op: 'sum',
    expr: {
      type: 'call',
      func: { name: 'rate', argTypes: ['matrix'], variadic: 0, returnType: 'vector' },
      args: [
        {
          type: 'matrixSelector',
          name: 'm',
          range: 0,
          rangeExpr: {
            type: 'durationExpr',
            op: '+',
            lhs: { type: 'numberLiteral', val: '300', duration: true },
            rhs: { type: 'numberLiteral', val: '60', duration: true },
            wrapped: false,
          },
          offset: 0,
          offsetExpr: null,
          matchers: [{ name: '__name__', value: 'm', type: '=' }],
          timestamp: null,
          startOrEnd: null,
          anchored: false,
          smoothed: false,
        },
      ],
    },
    param: null,
    grouping: ['x'],
    without: false,
  });
  t.same(promqlToJson(parsePromql('a / on(b) group_left c')), {
    type: 'binaryExpr',
    op: '/',
    lhs: promqlToJson(parsePromql('a')),
    rhs: promqlToJson(parsePromql('c')),
    matching: { card: 'many-to-one', labels: ['b'], on: true, include: [], fillValues: { lhs: null, rhs: null } },
    bool: false,
  });
  t.same(promqlToJson(parsePromql('1 + 2')), {
    type: 'binaryExpr',
    op: '+',
    lhs: { type: 'numberLiteral', val: '1' },
    rhs: { type: 'numberLiteral', val: '2' },
    matching: null,
    bool: false,
  });
  t.same(promqlToJson(parsePromql('x[1h:] @ end()')), {
    type: 'subquery',
    expr: promqlToJson(parsePromql('x')),
    range: 3_600_000,
    rangeExpr: null,
    offset: 0,
    offsetExpr: null,
    step: 0,
    stepExpr: null,
    timestamp: null,
    startOrEnd: 'end',
  });
});
