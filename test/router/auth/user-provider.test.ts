import { pbkdf2Sync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import {
  createUserProvider,
  parseCredentialLine,
  parseMode,
  type UserProvider,
  UserProviderError,
} from '../../../src/router/auth/user-provider.js';
import { ConfigError } from '../../../src/shared/config-load.js';
import { DbError } from '../../../src/shared/errors.js';

const noWarn = (): void => {};

function pbkdf2Verifier(password: string): string {
  const salt = Buffer.from('salt');
  const hash = pbkdf2Sync(password, salt, 4096, 32, 'sha256');
  return `pbkdf2_sha256:4096:${salt.toString('hex')}:${hash.toString('hex')}`;
}

function provider(spec: string, warn: (m: string) => void = noWarn): UserProvider {
  const made = createUserProvider(spec, warn);
  if (made === null) throw new Error('expected a provider');
  return made;
}

/** The DbError an authentication attempt throws, as {code, message}. */
function failure(p: UserProvider, username: string, password: string): { code: number; message: string } | undefined {
  try {
    p.authenticate(username, password);
    return undefined;
  } catch (err) {
    if (!(err instanceof DbError)) throw err;
    return { code: err.code, message: err.message };
  }
}

t.test('returns no provider when user_provider is unset or empty', async (t) => {
  t.equal(createUserProvider(undefined, noWarn), null);
  t.equal(createUserProvider('', noWarn), null);
});

t.test('accepts every mode spelling, case-insensitively, defaulting to rw', async (t) => {
  const spellings: [string, 'rw' | 'ro' | 'wo'][] = [
    ['rw', 'rw'],
    ['readwrite', 'rw'],
    ['read_write', 'rw'],
    ['RW', 'rw'],
    ['ReadWrite', 'rw'],
    ['READ_WRITE', 'rw'],
    ['ro', 'ro'],
    ['readonly', 'ro'],
    ['read_only', 'ro'],
    ['RO', 'ro'],
    ['ReadOnly', 'ro'],
    ['Read_Only', 'ro'],
    ['wo', 'wo'],
    ['writeonly', 'wo'],
    ['write_only', 'wo'],
    ['Wo', 'wo'],
    ['WriteOnly', 'wo'],
    ['WRITE_ONLY', 'wo'],
  ];
  for (const [text, mode] of spellings) {
    t.equal(parseMode(text), mode, text);
    t.equal(parseCredentialLine(`u:${text}=pw`)?.mode, mode, `u:${text}=pw`);
  }
  t.equal(parseCredentialLine('u=pw')?.mode, 'rw');
  for (const bad of ['', 'r', 'admin', 'read-only', 'toString'])
    t.equal(parseMode(bad), undefined, JSON.stringify(bad));
});

t.test('parses credential lines and rejects the invalid ones', async (t) => {
  t.same(parseCredentialLine('admin=password123'), {
    username: 'admin',
    mode: 'rw',
    verifier: { kind: 'plain', password: 'password123' },
  });
  t.equal(parseCredentialLine('user name:wo=pw')?.username, 'user name', 'spaces inside a name are kept');
  t.same(parseCredentialLine('admin:rw=p@ss:w0rd!')?.verifier, { kind: 'plain', password: 'p@ss:w0rd!' });
  for (const bad of [
    'admin',
    'a=b=c',
    'admin:superuser=pw',
    '=pw',
    ':ro=pw',
    'u=pbkdf2_sha256:1:zz:00',
    'u=mysql_native_password:ab',
  ]) {
    t.equal(parseCredentialLine(bad), undefined, bad);
  }
});

t.test('authenticates inline cmd users with their modes', async (t) => {
  const p = provider(
    `static_user_provider:cmd:admin=pw1,reader:ro=pw2, writer:WriteOnly=plain:pw3,hashed=${pbkdf2Verifier('pw4')}`,
  );
  t.equal(p.name, 'static_user_provider');
  t.same(p.authenticate('admin', 'pw1'), { username: 'admin', mode: 'rw' });
  t.same(p.authenticate('reader', 'pw2'), { username: 'reader', mode: 'ro' });
  t.same(p.authenticate('writer', 'pw3'), { username: 'writer', mode: 'wo' });
  t.same(p.authenticate('hashed', 'pw4'), { username: 'hashed', mode: 'rw' });
  t.same(p.authenticate('hashed', 'pw4'), { username: 'hashed', mode: 'rw' }, 'a remembered success still passes');
  t.same(failure(p, 'hashed', 'pw5'), {
    code: 7002,
    message: 'Username and password does not match, username: hashed',
  });
  p.close();
});

t.test('fails logins with the reference codes and messages', async (t) => {
  const p = provider(
    'static_user_provider:cmd:admin=secret,legacy=mysql_native_password:6bb4837eb74329105ee4568dda7dc67ed2ca2ad9',
  );
  t.same(failure(p, 'nobody', 'x'), { code: 7000, message: 'User not found, username: nobody' });
  t.same(failure(p, 'admin', 'wrong'), {
    code: 7002,
    message: 'Username and password does not match, username: admin',
  });
  t.same(failure(p, '', 'secret'), { code: 1004, message: 'Illegal param: blank username' });
  t.same(failure(p, 'admin', ''), { code: 1004, message: 'Illegal param: blank password' });
  t.same(
    failure(p, 'nobody', ''),
    { code: 7000, message: 'User not found, username: nobody' },
    'unknown user is checked before a blank password',
  );
  t.same(failure(p, 'legacy', '123456'), {
    code: 7002,
    message: 'Username and password does not match, username: legacy',
  });
});

t.test('refuses invalid cmd entries at start-up without echoing passwords', async (t) => {
  for (const spec of [
    'static_user_provider:cmd:admin=pw,reader:superuser=hunter2',
    'static_user_provider:cmd:admin=hunter2=x',
    'static_user_provider:cmd:admin=pbkdf2_sha256:0:00:hunter2',
    'static_user_provider:cmd:admin=pw,',
    'static_user_provider:cmd:',
  ]) {
    t.throws(
      () => createUserProvider(spec, noWarn),
      { name: 'UserProviderError', message: /cmd values must be in format `user\[:mode\]=pwd\[,user\[:mode\]=pwd\]`/ },
      spec,
    );
    try {
      createUserProvider(spec, noWarn);
    } catch (err) {
      t.notMatch((err as Error).message, /hunter2/);
      t.type(err, UserProviderError);
      t.type(err, ConfigError, 'start-up errors are ConfigErrors');
    }
  }
});

t.test('refuses a malformed user_provider value with the required format', async (t) => {
  for (const spec of [
    'nonsense',
    'ldap_user_provider:x',
    'static_user_provider',
    'static_user_provider:db:x',
    'static_user_provider:file:',
    'watch_file_user_provider:',
  ]) {
    t.throws(() => createUserProvider(spec, noWarn), { name: 'UserProviderError', message: /must be in format/ }, spec);
  }
});

t.test('reads a users file, skipping comments, blank lines and invalid lines with a warning', async (t) => {
  const dir = t.testdir({
    users: [
      '# users file',
      '',
      '   admin=plain:s3cret   ',
      `grafana:ro=${pbkdf2Verifier('graf')}`,
      'ingest:wo=ingestpw',
      'broken line without equals',
      'bad:superuser=hunter2',
      'worse=pbkdf2_sha256:1:zz:00',
      '  # indented comment',
      'crlf=pw\r',
    ].join('\n'),
  });
  const warnings: string[] = [];
  const p = provider(`static_user_provider:file:${path.join(dir, 'users')}`, (m) => warnings.push(m));
  t.same(p.authenticate('admin', 's3cret'), { username: 'admin', mode: 'rw' });
  t.same(p.authenticate('grafana', 'graf'), { username: 'grafana', mode: 'ro' });
  t.same(p.authenticate('ingest', 'ingestpw'), { username: 'ingest', mode: 'wo' });
  t.same(p.authenticate('crlf', 'pw'), { username: 'crlf', mode: 'rw' });
  t.same(failure(p, 'bad', 'hunter2'), { code: 7000, message: 'User not found, username: bad' });
  t.equal(warnings.length, 3);
  t.match(warnings[0], /invalid line 6 /);
  t.match(warnings[1], /invalid line 7 /);
  t.match(warnings[2], /invalid line 8 /);
  for (const w of warnings) t.notMatch(w, /hunter2/);
});

t.test('refuses a users file that is missing, not a regular file, or has no valid entry', async (t) => {
  const dir = t.testdir({ empty: '# nothing here\n\nbad-line\n', sub: {} });
  t.throws(() => createUserProvider(`static_user_provider:file:${path.join(dir, 'missing')}`, noWarn), {
    name: 'UserProviderError',
    message: /must exist/,
  });
  t.throws(() => createUserProvider(`static_user_provider:file:${path.join(dir, 'sub')}`, noWarn), {
    message: /must be a regular file/,
  });
  t.throws(() => createUserProvider(`static_user_provider:file:${path.join(dir, 'empty')}`, noWarn), {
    message: /at least one valid credential/,
  });
  t.throws(() => createUserProvider(`watch_file_user_provider:${path.join(dir, 'missing')}`, noWarn), {
    message: /must exist/,
  });
});

/** Polls `check` until it returns true, for at most `limitMs`. */
async function eventually(check: () => boolean, limitMs = 5000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
}

t.test('watch provider picks up a changed users file and keeps the old users on a bad edit', async (t) => {
  const dir = t.testdir({ users: 'root=123456\nadmin=654321\n' });
  const file = path.join(dir, 'users');
  const warnings: string[] = [];
  const made = createUserProvider(`watch_file_user_provider:${file}`, (m) => warnings.push(m), { watchIntervalMs: 20 });
  if (made === null) throw new Error('expected a provider');
  const p = made;
  t.teardown(() => p.close());
  t.equal(p.name, 'watch_file_user_provider');
  t.same(p.authenticate('root', '123456'), { username: 'root', mode: 'rw' });

  fs.writeFileSync(file, 'root:ro=abcdef\n# admin removed\n');
  t.ok(await eventually(() => failure(p, 'root', 'abcdef') === undefined), 'new password accepted');
  t.same(p.authenticate('root', 'abcdef'), { username: 'root', mode: 'ro' });
  t.same(failure(p, 'root', '123456')?.code, 7002, 'old password refused');
  t.same(failure(p, 'admin', '654321')?.code, 7000, 'removed user gone');

  fs.rmSync(file);
  t.ok(await eventually(() => warnings.some((w) => /keeping the previous users/.test(w))), 'removal warned');
  t.same(p.authenticate('root', 'abcdef'), { username: 'root', mode: 'ro' }, 'users survive a removed file');

  fs.writeFileSync(file, 'root=again\n');
  t.ok(await eventually(() => failure(p, 'root', 'again') === undefined), 're-created file is read');

  p.close();
  p.close();
  fs.writeFileSync(file, 'root=after-close\n');
  await sleep(200);
  t.same(failure(p, 'root', 'after-close')?.code, 7002, 'no reload after close');
});
