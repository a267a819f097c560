import t from 'tap';
import { parseExpression } from '../../../src/query/sql/parse/parser.js';
import { exprName, selectItemName } from '../../../src/query/sql/plan/naming.js';
import { Scope } from '../../../src/query/sql/plan/scope.js';

const scope = new Scope(
  ['a', 'b', 's', 'ts', 'Mixed'].map((name) => ({
    name,
    type: 'Int64' as const,
    qualifier: ['integers'],
    path: ['greptime', 'public', 'integers'],
    schema: null,
  })),
);
const name = (sql: string): string => selectItemName(parseExpression(sql), scope);

t.test('literals are named by their DataFusion type', async (t) => {
  t.equal(selectItemName(parseExpression('1'), null), 'Int64(1)');
  t.equal(selectItemName(parseExpression('-1'), null), 'Int64(-1)');
  t.equal(selectItemName(parseExpression('0.5'), null), 'Float64(0.5)');
  t.equal(selectItemName(parseExpression('1.0'), null), 'Float64(1)');
  t.equal(selectItemName(parseExpression('18446744073709551615'), null), 'UInt64(18446744073709551615)');
  t.equal(selectItemName(parseExpression("'x'"), null), 'Utf8("x")');
  t.equal(selectItemName(parseExpression('true'), null), 'Boolean(true)');
  t.equal(selectItemName(parseExpression('NULL'), null), 'NULL');
});

t.test('a plain column is named by its bare name, inside expressions it is qualified', async (t) => {
  t.equal(name('a'), 'a');
  t.equal(name('integers.a'), 'a');
  t.equal(name('(a)'), 'a');
  t.equal(name('"Mixed"'), 'Mixed');
  t.equal(name('a = NULL'), 'integers.a = NULL');
  t.equal(name('a % 2'), 'integers.a % Int64(2)');
  t.equal(name('a <> b'), 'integers.a != integers.b');
  t.equal(name('-a'), '(- integers.a)');
});

t.test('casts are invisible except casts to timestamps', async (t) => {
  t.equal(selectItemName(parseExpression("'0'::INT"), null), 'Utf8("0")');
  t.equal(name('a::DOUBLE'), 'integers.a');
  t.equal(
    selectItemName(parseExpression("'2021-01-01'::TIMESTAMP"), null),
    'arrow_cast(Utf8("2021-01-01"),Utf8("Timestamp(ms)"))',
  );
  t.equal(selectItemName(parseExpression("TIMESTAMP '  2017-07-23   13:10:11 '"), null), 'Utf8("2017-07-23 13:10:11")');
});

t.test('aggregates and functions list arguments without spaces', async (t) => {
  t.equal(name('count(*)'), 'count(*)');
  t.equal(name('COUNT(a)'), 'count(integers.a)');
  t.equal(name('count(DISTINCT a)'), 'count(DISTINCT integers.a)');
  t.equal(name('sum(a + 1)'), 'sum(integers.a + Int64(1))');
  t.equal(name("lpad(s, 10, '*')"), 'lpad(integers.s,Int64(10),Utf8("*"))');
  t.equal(name('SUBSTRING(s, 1, 2)'), 'substr(integers.s,Int64(1),Int64(2))');
  t.equal(name('TRIM(s)'), 'btrim(integers.s)');
  t.equal(name('EXTRACT(YEAR FROM ts)'), 'date_part(Utf8("YEAR"),integers.ts)');
});

t.test('length shows nested calls in display form', async (t) => {
  t.equal(name("length(repeat('a', 100))"), 'length(repeat(Utf8("a"), Int64(100)))');
});

t.test('predicates read like DataFusion prints them', async (t) => {
  t.equal(name('a BETWEEN 1 AND 2'), 'integers.a BETWEEN Int64(1) AND Int64(2)');
  t.equal(name("s LIKE '%x'"), 'integers.s LIKE Utf8("%x")');
  t.equal(name('a IS NOT NULL'), 'integers.a IS NOT NULL');
  t.equal(name('NOT a'), 'NOT integers.a');
  t.equal(
    name("CASE WHEN a > 1 THEN 'x' ELSE 'y' END"),
    'CASE WHEN integers.a > Int64(1) THEN Utf8("x") ELSE Utf8("y") END',
  );
});

t.test('an unknown column keeps its written parts', async (t) => {
  t.equal(exprName(parseExpression('x.y + 1'), scope), 'x.y + Int64(1)');
});

t.test('subscripts are named as DataFusion names array_element and array_slice', async (t) => {
  t.equal(name('make_array(a, b)[1]'), 'make_array(integers.a,integers.b)[Int64(1)]');
  t.equal(name('[a, b][a]'), 'make_array(integers.a,integers.b)[integers.a]');
  t.equal(name('make_array(a, b)[1:2]'), 'make_array(integers.a,integers.b)[Int64(1):Int64(2)]');
});
