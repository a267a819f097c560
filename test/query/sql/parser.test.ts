import t from 'tap';
import type { Expr, Statement } from '../../../src/query/sql/parse/ast.js';
import { parseExpression, parseSql } from '../../../src/query/sql/parse/parser.js';

function one(sql: string): Statement {
  const statements = parseSql(sql);
  if (statements.length !== 1) throw new Error(`expected one statement, got ${statements.length}`);
  return statements[0] as Statement;
}

function query(sql: string) {
  const s = one(sql);
  if (s.kind !== 'query') throw new Error('not a query');
  const body = s.query.body;
  if (body.kind !== 'select') throw new Error('not a plain SELECT');
  return { ...s.query, body };
}

t.test('splits a request into statements and skips empty ones', async (t) => {
  t.equal(parseSql('SELECT 1; ; SELECT 2;;').length, 2);
  t.equal(parseSql('  ').length, 0);
  t.equal(parseSql('-- only a comment').length, 0);
});

t.test('parses a full SELECT with every clause', async (t) => {
  const q = query(
    "SELECT DISTINCT host, avg(cpu) AS a FROM db.cpu c WHERE ts >= 10 AND host <> 'x' GROUP BY host HAVING count(*) > 1 ORDER BY a DESC NULLS LAST, 1 LIMIT 10 OFFSET 5",
  );
  t.equal(q.body.distinct, true);
  t.equal(q.body.projection.length, 2);
  t.same(q.body.from, {
    kind: 'table',
    name: [
      { value: 'db', quote: null },
      { value: 'cpu', quote: null },
    ],
    alias: { value: 'c', quote: null },
  });
  t.equal(q.body.groupBy.length, 1);
  t.ok(q.body.having);
  t.same(
    q.orderBy.map((o) => [o.asc, o.nullsFirst]),
    [
      [false, false],
      [null, null],
    ],
  );
  t.same(q.limit, { kind: 'number', text: '10' });
  t.same(q.offset, { kind: 'number', text: '5' });
});

t.test('MySQL LIMIT offset, count puts the first number in OFFSET', async (t) => {
  const q = query('SELECT a FROM t LIMIT 5, 10');
  t.same(q.offset, { kind: 'number', text: '5' });
  t.same(q.limit, { kind: 'number', text: '10' });
});

t.test('accepts a trailing comma before FROM', async (t) => {
  t.equal(query('select a, b, from t').body.projection.length, 2);
});

t.test('parses wildcards, qualified wildcards and implicit aliases', async (t) => {
  const q = query('SELECT *, t.*, a b FROM t');
  t.same(q.body.projection[0], { kind: 'wildcard', qualifier: [] });
  t.same(q.body.projection[1], { kind: 'wildcard', qualifier: [{ value: 't', quote: null }] });
  t.same(q.body.projection[2], {
    kind: 'expr',
    expr: { kind: 'identifier', parts: [{ value: 'a', quote: null }] },
    alias: { value: 'b', quote: null },
  });
});

t.test('keeps the quote style of identifiers', async (t) => {
  const e = parseExpression('"Ab".`Cd`.ef');
  t.same(e, {
    kind: 'identifier',
    parts: [
      { value: 'Ab', quote: '"' },
      { value: 'Cd', quote: '`' },
      { value: 'ef', quote: null },
    ],
  });
});

t.test('AND binds tighter than OR and NOT looser than comparison', async (t) => {
  const e = parseExpression('NOT a = 1 OR b = 2 AND c') as Extract<Expr, { kind: 'binary' }>;
  t.equal(e.op, 'OR');
  t.equal(e.left.kind, 'unary');
  t.equal((e.right as { op: string }).op, 'AND');
});

t.test('multiplication binds tighter than addition and unary minus tighter than both', async (t) => {
  const e = parseExpression('-a + b * c') as Extract<Expr, { kind: 'binary' }>;
  t.equal(e.op, '+');
  t.same(e.left, { kind: 'unary', op: '-', expr: { kind: 'identifier', parts: [{ value: 'a', quote: null }] } });
  t.equal((e.right as { op: string }).op, '*');
});

t.test('parses IN, NOT IN, BETWEEN, LIKE, ILIKE and IS forms', async (t) => {
  t.same(parseExpression('a NOT IN (1, 2)'), {
    kind: 'in_list',
    expr: { kind: 'identifier', parts: [{ value: 'a', quote: null }] },
    list: [
      { kind: 'number', text: '1' },
      { kind: 'number', text: '2' },
    ],
    negated: true,
  });
  const between = parseExpression('a BETWEEN 1 AND 2 AND b') as Extract<Expr, { kind: 'binary' }>;
  t.equal(between.op, 'AND');
  t.equal(between.left.kind, 'between');
  t.match(parseExpression("s NOT ILIKE 'x%' ESCAPE '!'"), {
    kind: 'like',
    negated: true,
    caseInsensitive: true,
    escape: '!',
  });
  t.match(parseExpression('a IS NOT NULL'), { kind: 'is', test: 'NULL', negated: true });
  t.match(parseExpression('a IS TRUE'), { kind: 'is', test: 'TRUE', negated: false });
});

t.test('parses CAST, TRY_CAST and the :: shorthand', async (t) => {
  t.match(parseExpression('CAST(a AS TIMESTAMP(3))'), {
    kind: 'cast',
    style: 'cast',
    dataType: { name: 'TIMESTAMP', args: [3] },
  });
  t.match(parseExpression('TRY_CAST(a AS INT UNSIGNED)'), {
    kind: 'cast',
    style: 'try_cast',
    dataType: { name: 'INT', unsigned: true },
  });
  t.match(parseExpression("'1'::BIGINT"), { kind: 'cast', style: 'double_colon', dataType: { name: 'BIGINT' } });
  t.match(parseExpression('a::DOUBLE PRECISION'), { kind: 'cast', dataType: { name: 'DOUBLE' } });
});

t.test('parses typed literals and niladic functions', async (t) => {
  t.same(parseExpression("TIMESTAMP '2023-01-01 00:00:00'"), {
    kind: 'typed_string',
    dataType: { name: 'TIMESTAMP', args: [], unsigned: false },
    value: '2023-01-01 00:00:00',
  });
  t.match(parseExpression('CURRENT_TIMESTAMP'), { kind: 'function', parens: false, args: [] });
  t.match(parseExpression('now()'), { kind: 'function', parens: true, args: [] });
});

t.test('a keyword-named column is still a column when no string follows', async (t) => {
  t.same(parseExpression('timestamp'), { kind: 'identifier', parts: [{ value: 'timestamp', quote: null }] });
});

t.test('parses function calls with DISTINCT and *', async (t) => {
  t.match(parseExpression('count(*)'), { kind: 'function', star: true });
  t.match(parseExpression('count(DISTINCT a)'), { kind: 'function', distinct: true, args: [{ kind: 'identifier' }] });
});

t.test('EXTRACT, SUBSTRING and TRIM special forms become ordinary calls', async (t) => {
  t.match(parseExpression('EXTRACT(YEAR FROM ts)'), {
    kind: 'function',
    name: [{ value: 'date_part' }],
    args: [{ kind: 'string', value: 'YEAR' }, {}],
  });
  t.match(parseExpression('SUBSTRING(s FROM 2 FOR 3)'), { kind: 'function', args: [{}, { text: '2' }, { text: '3' }] });
  t.match(parseExpression("TRIM(LEADING 'x' FROM s)"), { kind: 'function', name: [{ value: 'ltrim' }] });
});

t.test('POSITION(x IN s) and OVERLAY(s PLACING x FROM a FOR b) become ordinary calls', async (t) => {
  t.match(parseExpression("POSITION('l' IN s)"), {
    kind: 'function',
    name: [{ value: 'strpos' }],
    args: [{ kind: 'identifier' }, { kind: 'string', value: 'l' }],
  });
  // The needle stops at IN instead of starting an IN list.
  t.match(parseExpression('POSITION(a IN b) = 1'), { kind: 'binary', left: { kind: 'function' } });
  t.match(parseExpression('position(s, x)'), { kind: 'function', args: [{}, {}] });
  t.match(parseExpression("OVERLAY(s PLACING 'x' FROM 2 FOR 3)"), {
    kind: 'function',
    name: [{ value: 'OVERLAY' }],
    args: [{}, { kind: 'string' }, { text: '2' }, { text: '3' }],
  });
  t.match(parseExpression("OVERLAY(s PLACING 'x' FROM 2)"), { kind: 'function', args: [{}, {}, {}] });
});

t.test('IS [NOT] DISTINCT FROM binds like a comparison', async (t) => {
  t.match(parseExpression('a IS DISTINCT FROM b + 1'), {
    kind: 'is_distinct',
    negated: false,
    right: { kind: 'binary', op: '+' },
  });
  t.match(parseExpression('a IS NOT DISTINCT FROM b AND c'), {
    kind: 'binary',
    op: 'AND',
    left: { kind: 'is_distinct', negated: true },
  });
});

t.test('range(...) in an expression is a function call, not the RANGE keyword', async (t) => {
  t.match(parseExpression('range(1, 5)'), { kind: 'function', name: [{ value: 'range' }], args: [{}, {}] });
});

t.test('parses simple and searched CASE', async (t) => {
  t.match(parseExpression("CASE a WHEN 1 THEN 'x' ELSE 'y' END"), {
    kind: 'case',
    operand: { kind: 'identifier' },
    whens: [{}],
  });
  t.match(parseExpression('CASE WHEN a > 1 THEN 1 END'), { kind: 'case', operand: null, elseResult: null });
});

t.test('parses INSERT with columns, several rows, DEFAULT and TABLE keyword', async (t) => {
  const s = one("INSERT INTO TABLE db.t (a, b) VALUES (1, 'x'), (DEFAULT, -2)");
  t.match(s, {
    kind: 'insert',
    table: [{ value: 'db' }, { value: 't' }],
    columns: [{ value: 'a' }, { value: 'b' }],
    replace: false,
  });
  t.match(s, {
    source: {
      kind: 'values',
      rows: [
        [{ kind: 'number' }, { kind: 'string' }],
        [{ kind: 'default' }, { kind: 'unary' }],
      ],
    },
  });
  t.match(one('REPLACE INTO t VALUES (1)'), { kind: 'insert', replace: true });
  t.match(one('INSERT INTO t SELECT * FROM s'), { kind: 'insert', source: { kind: 'query' } });
});

t.test('parses CREATE TABLE with inline and table-level constraints and options', async (t) => {
  const s = one(
    "CREATE TABLE IF NOT EXISTS m (host STRING, ts TIMESTAMP(9) DEFAULT CURRENT_TIMESTAMP() TIME INDEX, cpu DOUBLE DEFAULT 0 NOT NULL, PRIMARY KEY(host)) ENGINE=mito WITH(ttl='7d', 'compaction.type'='twcs')",
  );
  t.match(s, {
    kind: 'create_table',
    ifNotExists: true,
    engine: 'mito',
    constraints: [{ kind: 'primary_key', columns: [{ value: 'host' }] }],
    options: [
      { key: 'ttl', value: '7d' },
      { key: 'compaction.type', value: 'twcs' },
    ],
  });
  const cols = (s as Extract<Statement, { kind: 'create_table' }>).columns;
  t.same(
    cols.map((c) => c.options.map((o) => o.kind)),
    [[], ['default', 'time_index'], ['default', 'not_null']],
  );
});

t.test('a trailing comma in the column list is accepted', async (t) => {
  t.match(one('CREATE TABLE t (ts TIMESTAMP TIME INDEX, v DOUBLE,)'), { kind: 'create_table', columns: [{}, {}] });
});

t.test('PARTITION ON COLUMNS is accepted and kept as text', async (t) => {
  t.match(
    one("CREATE TABLE t (a STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a < 'm', a >= 'm')"),
    {
      partition: "PARTITION ON COLUMNS ( a ) ( a < 'm' , a >= 'm' )",
    },
  );
});

t.test('parses CREATE TABLE LIKE, CREATE DATABASE and the DROP forms', async (t) => {
  t.match(one('CREATE TABLE a LIKE b'), { kind: 'create_table_like' });
  t.match(one("CREATE DATABASE IF NOT EXISTS d WITH (ttl='1d')"), {
    kind: 'create_database',
    ifNotExists: true,
    options: [{ key: 'ttl' }],
  });
  t.match(one("CREATE SCHEMA 'odd-name'"), { kind: 'create_database', name: [{ value: 'odd-name', quote: "'" }] });
  t.match(one('DROP TABLE IF EXISTS a, b'), {
    kind: 'drop_table',
    ifExists: true,
    names: [[{ value: 'a' }], [{ value: 'b' }]],
  });
  t.match(one('DROP DATABASE d'), { kind: 'drop_database', ifExists: false });
});

t.test('parses SHOW, DESCRIBE, USE and SET statements', async (t) => {
  t.match(one("SHOW DATABASES LIKE 'p%'"), { kind: 'show_databases', filter: { kind: 'like', pattern: 'p%' } });
  t.match(one('SHOW FULL TABLES FROM d WHERE Tables = 1'), {
    kind: 'show_tables',
    full: true,
    db: [{ value: 'd' }],
    filter: { kind: 'where' },
  });
  t.match(one('SHOW CREATE TABLE t'), { kind: 'show_create_table' });
  t.match(one('SHOW COLUMNS FROM t IN d'), { kind: 'show_columns', db: [{ value: 'd' }] });
  t.match(one('DESC t'), { kind: 'describe' });
  t.match(one('DESCRIBE TABLE d.t'), { kind: 'describe', name: [{ value: 'd' }, { value: 't' }] });
  t.match(one('USE d'), { kind: 'use', db: { value: 'd' } });
  t.match(one("SET time_zone = 'UTC'"), { kind: 'set', variable: 'time_zone' });
  t.match(one("SET SESSION TIME ZONE '+08:00'"), { kind: 'set', variable: 'time_zone' });
});

t.test('a missing expression reports what was found and where', async (t) => {
  t.throws(() => parseSql('SELECT FROM t'), {
    code: 2000,
    message: 'Invalid SQL syntax: sql parser error: Expected: an expression, found: FROM at Line: 1, Column: 8',
  });
});

t.test('errors on a later line report that line', async (t) => {
  t.throws(() => parseSql('SELECT a\nFROM t\nWHERE (a = 1'), {
    message: 'Invalid SQL syntax: sql parser error: Expected: ), found: EOF',
  });
  t.throws(() => parseSql('SELECT a\nFROM t\nWHERE a IN 1'), {
    message: 'Invalid SQL syntax: sql parser error: Expected: (, found: 1 at Line: 3, Column: 12',
  });
});

t.test('an unknown statement is a syntax error', async (t) => {
  t.throws(() => parseSql('FROB t'), {
    code: 2000,
    message: /Expected: an SQL statement, found: FROB at Line: 1, Column: 1/,
  });
});

t.test('text after a complete statement is refused as unsupported', async (t) => {
  t.throws(() => parseSql('create database illegal-database'), {
    code: 1001,
    message: 'SQL statement is not supported, keyword: -',
  });
});

t.test('statements of later slices are refused with code 1001', async (t) => {
  for (const sql of ['SELECT * FROM a NATURAL JOIN b']) {
    t.throws(() => parseSql(sql), { code: 1001 }, sql);
  }
});

t.test('parses joins left-deep, with ON, USING and comma-separated tables', async (t) => {
  const q = query('SELECT * FROM a JOIN b ON a.x = b.x LEFT OUTER JOIN c USING (y), d');
  const from = q.body.from;
  if (from?.kind !== 'join') throw new Error('expected a join');
  t.equal(from.joinType, 'cross');
  if (from.left.kind !== 'join') throw new Error('expected a nested join');
  t.equal(from.left.joinType, 'left');
  t.same(from.left.using, [{ value: 'y', quote: null }]);
  t.equal(from.left.left.kind === 'join' && from.left.left.joinType, 'inner');
});

t.test('parses WITH, set operations and parenthesised queries', async (t) => {
  const s = one('WITH RECURSIVE c(x) AS (SELECT 1) SELECT x FROM c UNION ALL (SELECT 2) ORDER BY 1');
  if (s.kind !== 'query') throw new Error('not a query');
  t.equal(s.query.with?.recursive, true);
  t.same(
    s.query.with?.ctes.map((c) => c.columns),
    [[{ value: 'x', quote: null }]],
  );
  t.equal(s.query.body.kind, 'set_operation');
  if (s.query.body.kind === 'set_operation') {
    t.equal(s.query.body.op, 'UNION');
    t.equal(s.query.body.all, true);
    t.equal(s.query.body.right.kind, 'nested_query');
  }
  t.equal(s.query.orderBy.length, 1);
});

t.test('INTERSECT binds tighter than UNION', async (t) => {
  const s = one('SELECT 1 UNION SELECT 2 INTERSECT SELECT 3');
  if (s.kind !== 'query' || s.query.body.kind !== 'set_operation') throw new Error('expected a set operation');
  t.equal(s.query.body.op, 'UNION');
  t.equal(s.query.body.right.kind, 'set_operation');
});

t.test('parses subquery expressions: scalar, EXISTS, NOT EXISTS and IN', async (t) => {
  const q = query(
    'SELECT (SELECT 1) FROM t WHERE EXISTS (SELECT 1) AND NOT EXISTS (SELECT 2) AND a IN (SELECT b FROM u)',
  );
  t.equal(q.body.projection[0]?.kind === 'expr' && q.body.projection[0].expr.kind, 'subquery');
  const where = q.body.where;
  t.ok(where && JSON.stringify(where).includes('"kind":"in_subquery"'));
  t.ok(where && JSON.stringify(where).includes('"negated":true'));
});

t.test('parses RANGE, FILL and ALIGN ... TO ... BY ... FILL of range queries', async (t) => {
  const q = query("SELECT ts, min(v) RANGE '5s' FILL PREV FROM t ALIGN '5s' TO NOW BY (host) FILL NULL");
  const item = q.body.projection[1];
  if (item?.kind !== 'expr' || item.expr.kind !== 'function') throw new Error('expected a call');
  t.same(item.expr.range, { duration: { kind: 'string', value: '5s' }, fill: { kind: 'prev' } });
  t.same(q.body.align?.fill, { kind: 'null' });
  t.equal(q.body.align?.by?.length, 1);
  t.same(q.body.align?.to, { kind: 'identifier', parts: [{ value: 'NOW', quote: null }] });
});

t.test('parses OVER clauses with partitions, ordering and frames', async (t) => {
  const q = query('SELECT sum(x) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t');
  const item = q.body.projection[0];
  if (item?.kind !== 'expr' || item.expr.kind !== 'function') throw new Error('expected a call');
  t.equal(item.expr.over?.partitionBy.length, 1);
  t.same(item.expr.over?.frame, {
    units: 'ROWS',
    start: { kind: 'preceding', offset: { kind: 'number', text: '1' } },
    end: { kind: 'current_row' },
  });
});

t.test('parses ALTER TABLE operations', async (t) => {
  const s = one('ALTER TABLE t ADD COLUMN IF NOT EXISTS k INT DEFAULT 1 PRIMARY KEY AFTER i, ADD COLUMN z STRING');
  if (s.kind !== 'alter_table') throw new Error('expected ALTER TABLE');
  t.equal(s.operations.length, 2);
  t.equal(s.operations[0]?.kind === 'add_column' && s.operations[0].ifNotExists, true);
  t.same(one("ALTER TABLE t RENAME 'x'"), {
    kind: 'alter_table',
    name: [{ value: 't', quote: null }],
    operations: [{ kind: 'rename_table', newName: { value: 'x', quote: "'" } }],
  });
  t.equal(
    (one('ALTER TABLE t MODIFY COLUMN c DROP DEFAULT') as { operations: Array<{ kind: string }> }).operations[0]?.kind,
    'drop_default',
  );
  t.equal(
    (one("ALTER TABLE t SET 'ttl' = '1d'") as { operations: Array<{ kind: string }> }).operations[0]?.kind,
    'set_options',
  );
});

t.test('SHOW COLUMNS without a table names the expected token', async (t) => {
  t.throws(() => parseSql('SHOW COLUMNS;'), {
    code: 2000,
    message: "Unexpected token while parsing SQL statement, expected: '{FROM | IN} table', found: ;",
  });
});
