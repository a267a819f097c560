import t from 'tap';
import { parseSql } from '../../../src/query/sql/parse/parser.js';
import { formatSql, printStatement } from '../../../src/query/sql/parse/printer.js';

const CORPUS = [
  'select 1',
  'select 1 + 2 as x',
  "SELECT DISTINCT host, avg(cpu) a FROM db.cpu AS c WHERE ts >= '2023-01-01' and not (host <> 'x' or cpu is null) GROUP BY host, 2 HAVING count(*) > 1 ORDER BY a desc nulls last, 1 LIMIT 10 OFFSET 5",
  'SELECT * , t.* FROM t',
  'select a from t limit 3, 4',
  'SELECT -a, - -1, -(1), +b, a - -1, NOT NOT c FROM t',
  'SELECT a::INT, CAST(b AS TIMESTAMP(9)), TRY_CAST(c AS BIGINT UNSIGNED), d::double precision FROM t',
  "SELECT x IN (1, 2), y NOT IN ('a'), z BETWEEN 1 AND 2, w NOT BETWEEN a AND b AND c FROM t",
  "SELECT s LIKE 'a%', s NOT ILIKE '%b' ESCAPE '!', s IS NULL, s IS NOT TRUE FROM t",
  "SELECT CASE a WHEN 1 THEN 'one' ELSE 'other' END, CASE WHEN a > 1 THEN 1 END FROM t",
  'SELECT count(*), count(DISTINCT a), CURRENT_TIMESTAMP, now(), "Weird""Name", `back``tick` FROM "T"',
  "SELECT TIMESTAMP '2023-01-01 00:00:00', DATE '2023-01-01', 'it''s', 1.5e3, .5, a || b FROM t",
  "SELECT EXTRACT(YEAR FROM ts), SUBSTRING(s FROM 1 FOR 2), TRIM(s), TRIM(BOTH 'x' FROM s), LEFT(s, 2) FROM t",
  "INSERT INTO db.t (a, b) VALUES (1, 'x'), (DEFAULT, -2.5), (NULL, now())",
  'REPLACE INTO t VALUES (1)',
  'INSERT INTO t SELECT a, b FROM s WHERE a > 1',
  "CREATE DATABASE IF NOT EXISTS d WITH (ttl = '7d')",
  "CREATE DATABASE 'illegal-name'",
  "CREATE TABLE IF NOT EXISTS m (host STRING NULL, ts TIMESTAMP(9) DEFAULT CURRENT_TIMESTAMP() TIME INDEX, cpu FLOAT64 DEFAULT -1 NOT NULL COMMENT 'c', PRIMARY KEY(host)) ENGINE=mito WITH (ttl='7d', 'compaction.type'='twcs', append_mode = true)",
  'CREATE TABLE t (ts TIMESTAMP, v INT PRIMARY KEY, TIME INDEX (ts)) PARTITION ON COLUMNS (v) (v < 10, v >= 10)',
  'CREATE TABLE a LIKE b',
  'DROP TABLE IF EXISTS a, db.b',
  'DROP DATABASE IF EXISTS d',
  "SHOW DATABASES LIKE 'p%'",
  "SHOW FULL TABLES FROM d WHERE Tables = 'x'",
  'SHOW CREATE TABLE t',
  "SHOW FULL COLUMNS FROM t IN d LIKE '%a'",
  'DESC TABLE t',
  'USE d',
  "SET time_zone = 'Asia/Shanghai'",
  'WITH RECURSIVE c (x) AS (SELECT 1), d AS (SELECT * FROM c) SELECT x FROM c UNION ALL (SELECT 2 ORDER BY 1) ORDER BY 1',
  'SELECT 1 EXCEPT SELECT 2 INTERSECT SELECT 3',
  'SELECT * FROM a AS x (p, q) LEFT JOIN (SELECT 1 AS k) AS y ON x.p = y.k CROSS JOIN c, d FULL OUTER JOIN e USING (k)',
  'SELECT (SELECT max(k) FROM b), EXISTS (SELECT 1), NOT EXISTS (SELECT 2), a IN (SELECT k FROM b) FROM a',
  "SELECT ts + INTERVAL '1 day', ts - INTERVAL '1' HOUR, '1 day'::INTERVAL, a ~ 'x', a !~* 'y' FROM t",
  "SELECT ts, first_value(v ORDER BY ts DESC NULLS LAST) RANGE '5s' FILL PREV, max(v) RANGE (INTERVAL '1' day) FROM t ALIGN '5s' TO '2024-01-01 00:00:00' BY (host) FILL LINEAR",
  'SELECT rank() OVER (PARTITION BY g ORDER BY x DESC), sum(x) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING), count(*) OVER () FROM t',
  'SELECT DISTINCT ON (a, 2) a, b FROM t ORDER BY a',
  'ALTER TABLE t ADD COLUMN IF NOT EXISTS k INT DEFAULT 1 PRIMARY KEY AFTER i, ADD COLUMN z STRING FIRST',
  "ALTER TABLE db.t RENAME 'x y'",
  'ALTER TABLE t DROP COLUMN "I"',
  'ALTER TABLE t MODIFY COLUMN c DOUBLE',
  "ALTER TABLE t MODIFY COLUMN c SET DEFAULT 'x', MODIFY COLUMN d DROP DEFAULT",
  "ALTER TABLE t SET 'ttl' = '1d', compaction.twcs.time_window = '1h'",
  "ALTER TABLE t UNSET 'ttl'",
  'TRUNCATE TABLE t',
  'EXPLAIN VERBOSE SELECT 1',
  "SHOW COLLATION LIKE 'utf8%'",
  "SHOW CHARSET WHERE Charset = 'utf8'",
  "ADMIN flush_table('t')",
  "SELECT [1, 2, 3], [], a[1], [a, b][2], c[a + 1], [['x']][1][1], c[2:3], ARRAY[1, 2] FROM t",
];

for (const sql of CORPUS) {
  t.test(`printing and re-parsing gives the same tree: ${sql}`, async (t) => {
    const first = parseSql(sql);
    const printed = first.map(printStatement).join(';\n');
    t.same(parseSql(printed), first, printed);
  });
}

t.test('format upper-cases keywords, normalises spacing and ends statements with ;', async (t) => {
  t.equal(formatSql('select 1 as x'), 'SELECT 1 AS x;');
  t.equal(formatSql('select 1; select 2'), 'SELECT 1;\nSELECT 2;');
  t.equal(
    formatSql('select   a ,b\n from   t  where a>1 order by b desc limit 2'),
    'SELECT a, b FROM t WHERE a > 1 ORDER BY b DESC LIMIT 2;',
  );
});

t.test('format keeps identifier quoting and string escapes', async (t) => {
  t.equal(formatSql(`select "A", \`b\`, 'it''s' from "T"`), `SELECT "A", \`b\`, 'it''s' FROM "T";`);
});

t.test('format refuses text that does not parse', async (t) => {
  t.throws(() => formatSql('select from'), { code: 2000 });
});
