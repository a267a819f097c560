import t from 'tap';
import type { Statement } from '../../../src/query/sql/parse/ast.js';
import { parseSql } from '../../../src/query/sql/parse/parser.js';
import { formatSql } from '../../../src/query/sql/parse/printer.js';

function tql(sql: string): Extract<Statement, { kind: 'tql' }> {
  const [statement] = parseSql(sql);
  if (statement?.kind !== 'tql') throw new Error(`expected TQL, got ${JSON.stringify(statement)}`);
  return statement;
}

t.test('TQL EVAL keeps literal parameters as text and the PromQL as written', async (t) => {
  const s = tql(
    "TQL EVAL (1676887657.1, '2015-07-01T20:11:00.781Z', '30s') http_requests_total{environment=~'staging|testing',method!='GET'} @ 1609746000 offset 5m",
  );
  t.equal(s.mode, 'eval');
  t.strictSame(
    [s.start, s.end, s.step, s.lookback],
    [
      { kind: 'text', text: '1676887657.1' },
      { kind: 'text', text: '2015-07-01T20:11:00.781Z' },
      { kind: 'text', text: '30s' },
      null,
    ],
  );
  t.equal(s.query, "http_requests_total{environment=~'staging|testing',method!='GET'} @ 1609746000 offset 5m");
  t.equal(s.alias, null);
  t.equal(tql("tql evaluate (0, 10, 5, '2m') up;").lookback?.kind, 'text', 'EVALUATE, a lookback, a trailing ;');
});

t.test('other parameter expressions are kept for evaluation', async (t) => {
  const s = tql("TQL EVAL (now() - '10 minutes'::interval, now(), '1m') up");
  t.equal(s.start.kind, 'expr');
  t.equal(s.end.kind, 'expr');
  t.strictSame(s.step, { kind: 'text', text: '1m' });
});

t.test('without parameters the statement evaluates at 0 with a 5m step', async (t) => {
  const s = tql('TQL EVAL up');
  t.strictSame(
    [s.start, s.end, s.step],
    [
      { kind: 'text', text: '0' },
      { kind: 'text', text: '0' },
      { kind: 'text', text: '5m' },
    ],
  );
});

t.test('AS names the value column and must end the statement', async (t) => {
  const s = tql("TQL EVAL (0, 10, '5s') sum by (k) (test) AS c");
  t.equal(s.query, 'sum by (k) (test)');
  t.strictSame(s.alias, { value: 'c', quote: null });
  t.throws(() => parseSql("TQL EVAL (0, 10, '5s') test AS c d"), {
    code: 2000,
    message: /Unexpected token after alias/,
  });
});

t.test('EXPLAIN and ANALYZE take VERBOSE and FORMAT', async (t) => {
  const s = tql("TQL ANALYZE VERBOSE FORMAT JSON (0, 10, '1m', '1h') up");
  t.strictSame([s.mode, s.verbose, s.format], ['analyze', true, 'JSON']);
  t.strictSame([tql('TQL EXPLAIN (0, 10, 5) up').mode, tql('TQL EXPLAIN (0, 10, 5) up').verbose], ['explain', false]);
});

t.test('a semicolon ends the query and later statements run', async (t) => {
  const statements = parseSql("TQL EVAL (0, 10, '5s') up; SELECT 1");
  t.strictSame(
    statements.map((s) => s.kind),
    ['tql', 'query'],
  );
});

t.test('malformed TQL is a syntax error or unsupported', async (t) => {
  t.throws(() => parseSql('TQL EVAL (0, 10) up'), {
    code: 2000,
    message: /Expected 3 or 4 expressions in TQL parameters \(start, end, step, \[lookback\]\), but found 2/,
  });
  t.throws(() => parseSql("TQL EVAL (0, 10, '5s')"), { code: 2000, message: /empty TQL query/ });
  t.throws(() => parseSql("TQL EVAL (0, 10, '5s' up"), { code: 2000 });
  t.throws(() => parseSql('TQL FOO up'), { code: 1001 });
});

t.test('the printer writes TQL back in a form that parses to the same statement', async (t) => {
  for (const sql of [
    "TQL EVAL (0, 10, '5s') test AS c",
    "TQL EXPLAIN VERBOSE (now() - '1 hour'::interval, now(), '1m', '5m') rate(x[5m])",
    'TQL ANALYZE FORMAT TEXT (0, 10, 5) {__name__="x", job=~\'a|b\'}',
  ]) {
    const formatted = formatSql(sql);
    t.strictSame(parseSql(formatted), parseSql(sql), formatted);
  }
  t.equal(formatSql("tql eval (0, 10, '5s') test"), "TQL EVAL ('0', '10', '5s') test;");
});
