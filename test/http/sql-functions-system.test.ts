/**
 * GreptimeDB's session and build functions over HTTP: database() and current_schema() follow the
 * request's database; version() is package.json's version and build() GreptimeDB's five lines.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const cases: FunctionCase[] = [
  ['SELECT database(), current_schema(), timezone()', [['public', 'public', 'UTC']]],
  ['SELECT v, database() FROM t', [[1, 'public']]],
  ['SELECT database(1)', { status: 400, code: 3000, message: 'database function requires 0 arguments, got 1' }],
  [
    'SELECT version(), build()',
    [[VERSION, `branch: unknown\ncommit: unknown\ncommit short: unknown\ndirty: unknown\nversion: ${VERSION}`]],
  ],
  ['SELECT v, VERSION() FROM t', [[1, VERSION]]],
  [
    'SELECT current_schemas(false), current_schemas(true), current_schemas(NULL)',
    [[['public'], ['public', 'information_schema', 'pg_catalog', 'greptime_private'], ['public']]],
  ],
  ['SELECT current_schemas(1)', NO_SIGNATURE],
  ['SELECT version(1)', { status: 400, code: 3000, message: 'version function requires 0 arguments, got 1' }],
  ["SELECT build('x')", { status: 400, code: 3000, message: 'build function requires 0 arguments, got 1' }],
];

t.test('session functions', (t) =>
  checkFunctionCases(t, cases, ['CREATE TABLE t (ts TIMESTAMP TIME INDEX, v BIGINT)', 'INSERT INTO t VALUES (1, 1)']),
);

t.test('database() is the database the request names', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  t.equal((await sql(server.url, 'CREATE DATABASE metrics')).status, 200);
  const r = await sql(server.url, 'SELECT database(), current_schema()', 'metrics');
  t.equal(r.status, 200, r.text);
  t.same(rowsOf(r.body), [['metrics', 'metrics']]);
});
