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
