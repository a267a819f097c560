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
  // PostgreSQL catalog helpers, answered as GreptimeDB's datafusion-pg-catalog answers them.
  ['SELECT session_user(), v FROM t', [['greptime', 1]]],
  ['SELECT session_user(1)', { status: 400, code: 3000, message: 'session_user function requires 0 arguments, got 1' }],
  [
    'SELECT pg_table_is_visible(v), pg_table_is_visible(NULL), pg_get_userbyid(v), pg_get_userbyid(NULL) FROM t',
    [[true, true, 'postgres', 'postgres']],
  ],
  [
    "SELECT has_table_privilege('greptime', 't', 'SELECT'), has_schema_privilege('public', 'USAGE'), has_database_privilege(NULL, 'CONNECT'), has_any_column_privilege('t', 'SELECT')",
    [[true, true, true, true]],
  ],
  ["SELECT has_table_privilege('t')", NO_SIGNATURE],
  ['SELECT has_table_privilege(1, 2)', NO_SIGNATURE],
  ['SELECT pg_encoding_to_char(6), pg_encoding_to_char(0), pg_encoding_to_char(NULL)', [['UTF-8', null, null]]],
  ["SELECT shobj_description(1, 'pg_database'), shobj_description(v, 'pg_database') FROM t", [[null, null]]],
  [
    'SELECT format_type(16, NULL), format_type(1043, 36), format_type(1043, -1), format_type(1700, 655366), format_type(1700, 655364)',
    [['boolean', 'character varying(32)', 'character varying', 'numeric(10,2)', 'numeric(10)']],
  ],
  [
    'SELECT format_type(1114, 3), format_type(1184, -1), format_type(1007, -1), format_type(18, -1), format_type(4242, -1), format_type(NULL, 1)',
    [['timestamp(3) without time zone', 'timestamp with time zone', 'integer[]', '"char"', 'oid(4242)', null]],
  ],
  ["SELECT format_type('x', 1)", NO_SIGNATURE],
  [
    "SELECT obj_description(table_id, 'pg_class'), col_description(table_id, 1) FROM information_schema.tables WHERE table_name = 't'",
    [[null, null]],
  ],
  [
    "SELECT obj_description(table_id, 'pg_class'), obj_description(table_id, 'pg_type') FROM information_schema.tables WHERE table_name = 'noted'",
    [['rolled up hourly', null]],
  ],
  ['SELECT obj_description(true)', NO_SIGNATURE],
  ['SELECT pg_table_is_visible(1.5)', NO_SIGNATURE],
];

t.test('session functions', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE t (ts TIMESTAMP TIME INDEX, v BIGINT)',
    'INSERT INTO t VALUES (1, 1)',
    "CREATE TABLE noted (ts TIMESTAMP TIME INDEX, v BIGINT) WITH ('comment' = 'rolled up hourly')",
  ]),
);

t.test('database() is the database the request names', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  t.equal((await sql(server.url, 'CREATE DATABASE metrics')).status, 200);
  const r = await sql(server.url, 'SELECT database(), current_schema()', 'metrics');
  t.equal(r.status, 200, r.text);
  t.same(rowsOf(r.body), [['metrics', 'metrics']]);
});

t.test('session_user() is the authenticated user', async (t) => {
  const server = await startServer({
    shards: 1,
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret"',
  });
  t.teardown(() => server.stop());
  const authorization = `Basic ${Buffer.from('admin:s3cret').toString('base64')}`;
  const r = await sql(server.url, 'SELECT session_user()', undefined, { authorization });
  t.equal(r.status, 200, r.text);
  t.same(rowsOf(r.body), [['admin']]);
  t.same(r.body.output?.[0]?.records?.schema.column_schemas, [{ name: 'session_user()', data_type: 'String' }]);
});
