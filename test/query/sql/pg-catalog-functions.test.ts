import t from 'tap';
import { rows, run, session, TestEnv } from './helpers/test-env.js';

// PostgreSQL catalog helpers as GreptimeDB registers them (datafusion-pg-catalog's answers), and
// session_user() from the session.

t.test("session_user() is the session user, GreptimeDB's default user without one", async (t) => {
  const env = TestEnv.memory(2);
  t.same(await rows(env, 'SELECT session_user()'), [['greptime']]);
  t.same(await rows(env, 'SELECT session_user()', { ...session(), user: 'admin' }), [['admin']]);
  await t.rejects(run(env, 'SELECT session_user(1)'), { code: 3000 });
});

t.test('fixed answers ignore their arguments, NULL ones included, over table rows', async (t) => {
  const env = TestEnv.memory(2);
  await run(env, 'CREATE TABLE t (host STRING, v BIGINT, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  await run(env, "INSERT INTO t (host, v, ts) VALUES ('a', 1, 1), ('b', NULL, 2)");
  t.same(
    await rows(
      env,
      "SELECT host, pg_table_is_visible(v), pg_get_userbyid(v), has_table_privilege(host, 'SELECT'), shobj_description(v, 'pg_database') FROM t ORDER BY host",
    ),
    [
      ['a', true, 'postgres', true, null],
      ['b', true, 'postgres', true, null],
    ],
  );
  await t.rejects(run(env, "SELECT pg_table_is_visible('t')"), { code: 3000 });
});

t.test('pg_encoding_to_char names only UTF8', async (t) => {
  const env = TestEnv.memory(1);
  t.same(await rows(env, 'SELECT pg_encoding_to_char(6), pg_encoding_to_char(7), pg_encoding_to_char(NULL)'), [
    ['UTF-8', null, null],
  ]);
});

t.test("format_type decodes PostgreSQL's type modifiers", async (t) => {
  const env = TestEnv.memory(1);
  // numeric(p,s) is stored as ((p << 16) | s) + 4, character(n) as n + 4 (PostgreSQL's typmod).
  const numeric = ((12 << 16) | 3) + 4;
  t.same(
    await rows(
      env,
      `SELECT format_type(1700, ${numeric}), format_type(1042, 14), format_type(1083, 6), format_type(1266, -1), format_type(1560, 8), format_type(1015, 20), format_type(-5, -1)`,
    ),
    [
      [
        'numeric(12,3)',
        'character(10)',
        'time(6) without time zone',
        'time with time zone',
        'bit(8)',
        'character varying[]',
        'oid(-5)',
      ],
    ],
  );
});

t.test('obj_description reads a table comment by table id; col_description finds no column comment', async (t) => {
  const env = TestEnv.memory(2);
  await run(env, "CREATE TABLE c (v BIGINT, ts TIMESTAMP TIME INDEX) WITH ('comment' = 'cpu samples')");
  await run(env, 'CREATE TABLE plain (v BIGINT, ts TIMESTAMP TIME INDEX)');
  await run(env, 'INSERT INTO c (v, ts) VALUES (1, 1)');
  const id = (env.getTable('public', 'c') as { id: number }).id;
  t.same(
    await rows(
      env,
      "SELECT table_name, obj_description(table_id, 'pg_class'), obj_description(table_id), obj_description(table_id, 'pg_namespace') FROM information_schema.tables WHERE table_name IN ('c', 'plain') ORDER BY table_name",
    ),
    [
      ['c', 'cpu samples', 'cpu samples', null],
      ['plain', null, null, null],
    ],
  );
  t.same(await rows(env, `SELECT obj_description(${id}), obj_description(NULL), obj_description(${id + 1000})`), [
    ['cpu samples', null, null],
  ]);
  t.same(await rows(env, `SELECT v, obj_description(${id}, 'pg_class'), col_description(${id}, 1) FROM c`), [
    [1n, 'cpu samples', null],
  ]);
  await t.rejects(run(env, "SELECT obj_description('c')"), { code: 3000 });
  await t.rejects(run(env, "SELECT obj_description(1, 'pg_class', 'x')"), { code: 3000 });
});
