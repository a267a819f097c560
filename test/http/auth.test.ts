/** Static-user authentication over HTTP (reference §9): transports, failures, exemptions, modes. */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startServer, tempDir, writeLines } from '../helpers/server.js';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

async function sqlAs(url: string, statement: string, headers: Record<string, string>) {
  const res = await fetch(`${url}/v1/sql?sql=${encodeURIComponent(statement)}`, { headers });
  return { status: res.status, body: (await res.json()) as { code?: number; error?: string }, headers: res.headers };
}

t.test('with a cmd user provider, /v1 requests need valid credentials', async (t) => {
  const server = await startServer({
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret,reader:ro=rpw,writer:wo=wpw"',
  });
  t.teardown(() => server.stop());

  const none = await sqlAs(server.url, 'SELECT 1', {});
  t.equal(none.status, 401);
  t.equal(none.body.code, 7003);
  t.equal(none.body.error, 'Not found http or grpc authorization header');
  t.equal(none.headers.get('x-greptime-err-code'), '7003');
  t.equal(none.headers.get('www-authenticate'), null);

  const wrong = await sqlAs(server.url, 'SELECT 1', { authorization: basic('admin', 'nope') });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.code, 7002);
  t.equal(wrong.body.error, 'Username and password does not match, username: admin');

  const unknown = await sqlAs(server.url, 'SELECT 1', { authorization: basic('ghost', 'x') });
  t.equal(unknown.body.code, 7000);
  t.equal(unknown.body.error, 'User not found, username: ghost');

  const scheme = await sqlAs(server.url, 'SELECT 1', { authorization: 'Digest abc' });
  t.equal(scheme.status, 401);
  t.equal(scheme.body.code, 7004);

  const bearer = await sqlAs(server.url, 'SELECT 1', { authorization: 'Bearer tok' });
  t.equal(bearer.status, 401);
  t.equal(bearer.body.code, 7002);

  t.equal((await sqlAs(server.url, 'SELECT 1', { authorization: basic('admin', 's3cret') })).status, 200);
  t.equal((await sqlAs(server.url, 'SELECT 1', { 'x-greptime-auth': basic('admin', 's3cret') })).status, 200);
});

t.test('line protocol accepts u/p parameters and Token auth', async (t) => {
  const server = await startServer({ topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret"' });
  t.teardown(() => server.stop());
  const missing = await writeLines(server.url, 'a v=1 1');
  t.equal(missing.status, 401);
  t.match(missing.text, /Not found influx http authorization info/);
  t.equal((await writeLines(server.url, 'a v=1 1', 'db=public&u=admin&p=s3cret')).status, 204);
  t.equal((await writeLines(server.url, 'a v=1 1', 'db=public&u=admin&p=bad')).status, 401);
  const onlyUser = await writeLines(server.url, 'a v=1 1', 'db=public&u=admin');
  t.equal(onlyUser.status, 401);
  t.match(onlyUser.text, /"code":1004/);
  const v2 = await fetch(`${server.url}/v1/lineproto/api/v2/write?bucket=public&precision=s`, {
    method: 'POST',
    headers: { authorization: 'Token admin:s3cret' },
    body: 'a v=2 2',
  });
  t.equal(v2.status, 204);
  t.equal(
    (await writeLines(server.url, 'a v=1 1', 'db=public', { authorization: basic('admin', 's3cret') })).status,
    204,
  );
});

t.test('exempt paths need no credentials even with auth on', async (t) => {
  const server = await startServer({ topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret"' });
  t.teardown(() => server.stop());
  for (const p of [
    '/health',
    '/status',
    '/metrics',
    '/config',
    '/v1/health',
    '/v1/lineproto/ping',
    '/v1/lineproto/health',
  ]) {
    const res = await fetch(`${server.url}${p}`);
    t.ok(res.status < 300, `${p} answers ${res.status}`);
  }
});

t.test('read-only users cannot write and write-only users cannot read', async (t) => {
  const server = await startServer({
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret,reader:ro=rpw,writer:wo=wpw"',
  });
  t.teardown(() => server.stop());
  const roWrite = await writeLines(server.url, 'x v=1 1', 'db=public', { authorization: basic('reader', 'rpw') });
  t.equal(roWrite.status, 403);
  t.match(roWrite.text, /not authorized/);
  t.equal(
    (await writeLines(server.url, 'x v=1 1', 'db=public', { authorization: basic('writer', 'wpw') })).status,
    204,
  );
  const woRead = await sqlAs(server.url, 'SELECT * FROM x', { authorization: basic('writer', 'wpw') });
  t.equal(woRead.status, 403);
  t.equal(woRead.body.code, 7006);
  const roRead = await sqlAs(server.url, 'SELECT v FROM x', { authorization: basic('reader', 'rpw') });
  t.equal(roRead.status, 200);
  const roDdl = await sqlAs(server.url, 'CREATE DATABASE nope', { authorization: basic('reader', 'rpw') });
  t.equal(roDdl.status, 403);
  // Permission is a property of the statement, not of what it happens to touch (GreptimeDB's
  // is_readonly): a write-only user reads nothing, not even a constant or the table list.
  const writer = { authorization: basic('writer', 'wpw') };
  const reader = { authorization: basic('reader', 'rpw') };
  for (const statement of ['SELECT 1', 'SHOW TABLES', 'SHOW DATABASES', 'DESCRIBE TABLE x', 'EXPLAIN SELECT 1']) {
    const answer = await sqlAs(server.url, statement, writer);
    t.equal(answer.status, 403, `a write-only user may not run ${statement}`);
    t.equal(answer.body.code, 7006);
    t.equal((await sqlAs(server.url, statement, reader)).status, 200, `a read-only user may run ${statement}`);
  }
  t.equal((await sqlAs(server.url, 'USE public', writer)).status, 200, 'USE needs neither');
  t.equal(
    (await sqlAs(server.url, 'INSERT INTO x (greptime_timestamp, v) VALUES (2, 2)', writer)).status,
    200,
    'a write-only user inserts',
  );
  t.equal((await sqlAs(server.url, 'INSERT INTO x (greptime_timestamp, v) VALUES (3, 3)', reader)).status, 403);
});

t.test('a users file provider authenticates, and /config never shows a password', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'users');
  fs.writeFileSync(file, '# users\nalice=plain:wonderland\n\nbob:ro=builder\n');
  const server = await startServer({ topLevelToml: `user_provider = "static_user_provider:file:${file}"` });
  t.teardown(() => server.stop());
  t.equal((await sqlAs(server.url, 'SELECT 1', { authorization: basic('alice', 'wonderland') })).status, 200);
  t.equal((await sqlAs(server.url, 'SELECT 1', { authorization: basic('bob', 'builder') })).status, 200);
  t.equal((await sqlAs(server.url, 'SELECT 1', { authorization: basic('alice', 'builder') })).status, 401);

  const cmdServer = await startServer({ topLevelToml: 'user_provider = "static_user_provider:cmd:admin=topsecretpw"' });
  t.teardown(() => cmdServer.stop());
  const config = await (await fetch(`${cmdServer.url}/config`)).text();
  t.notMatch(config, /topsecretpw/);
  t.match(config, /user_provider/);
});

t.test('without a user provider every request is accepted', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  t.equal((await sqlAs(server.url, 'SELECT 1', {})).status, 200);
  t.equal((await sqlAs(server.url, 'SELECT 1', { authorization: basic('any', 'thing') })).status, 200);
});
