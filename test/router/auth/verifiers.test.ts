import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import t, { type Test } from 'tap';
import { parseVerifier, type Verifier, verifyPassword } from '../../../src/router/auth/verifiers.js';

function mustParse(t: Test, text: string): Verifier {
  const verifier = parseVerifier(text);
  t.ok(verifier, `parses ${text.slice(0, 40)}`);
  if (verifier === undefined) throw new Error(`unparsable verifier ${text}`);
  return verifier;
}

function pbkdf2Line(password: string, salt: Buffer, iterations: number): string {
  const hash = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  return `pbkdf2_sha256:${iterations}:${salt.toString('hex')}:${hash.toString('hex')}`;
}

function scramKeys(password: string, salt: Buffer, iterations: number) {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return { clientKey, storedKey, serverKey };
}

function scramLine(password: string, salt: Buffer, iterations: number): string {
  const { storedKey, serverKey } = scramKeys(password, salt, iterations);
  return `pg_scram_sha256:${iterations}:${salt.toString('hex')}:${storedKey.toString('hex')}:${serverKey.toString('hex')}`;
}

t.test('checks plain: passwords and treats an unprefixed value as the password', async (t) => {
  const prefixed = mustParse(t, 'plain:s3cret');
  t.same(prefixed, { kind: 'plain', password: 's3cret' });
  t.ok(verifyPassword(prefixed, 's3cret'));
  t.notOk(verifyPassword(prefixed, 's3cre'));
  t.notOk(verifyPassword(prefixed, 's3cret '));
  const legacy = mustParse(t, 'p@ss:w0rd!');
  t.same(legacy, { kind: 'plain', password: 'p@ss:w0rd!' });
  t.ok(verifyPassword(legacy, 'p@ss:w0rd!'));
  t.ok(verifyPassword(mustParse(t, 'plain:plain:x'), 'plain:x'), 'only the first prefix is stripped');
  t.ok(verifyPassword(mustParse(t, 'pässwörd'), 'pässwörd'), 'non-ASCII passwords compare as UTF-8');
});

t.test('checks pbkdf2_sha256 against the RFC 7914 vector', async (t) => {
  // PBKDF2-HMAC-SHA256("passwd", "salt", 1): first 32 bytes of the RFC 7914 §11 output.
  const line = 'pbkdf2_sha256:1:73616c74:55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc';
  const verifier = mustParse(t, line);
  t.ok(verifyPassword(verifier, 'passwd'));
  t.notOk(verifyPassword(verifier, 'password'));
});

t.test('checks pbkdf2_sha256 verifiers made with node:crypto', async (t) => {
  const verifier = mustParse(t, pbkdf2Line('hunter2', Buffer.from('0011223344556677', 'hex'), 4096));
  t.equal(verifier.kind, 'pbkdf2_sha256');
  t.ok(verifyPassword(verifier, 'hunter2'));
  t.notOk(verifyPassword(verifier, 'hunter3'));
  t.ok(verifyPassword(mustParse(t, pbkdf2Line('x', Buffer.alloc(1024, 7), 1)), 'x'), '1024-byte salt is allowed');
  const upper = pbkdf2Line('abc', Buffer.from('AbCd', 'hex'), 10)
    .toUpperCase()
    .replace('PBKDF2_SHA256', 'pbkdf2_sha256');
  t.ok(verifyPassword(mustParse(t, upper), 'abc'), 'upper-case hex is accepted');
});

t.test('rejects malformed pbkdf2_sha256 verifiers instead of using them as passwords', async (t) => {
  const salt = '73616c74';
  const hash = '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc';
  for (const bad of [
    `pbkdf2_sha256:0:${salt}:${hash}`,
    `pbkdf2_sha256:1000001:${salt}:${hash}`,
    `pbkdf2_sha256:-1:${salt}:${hash}`,
    `pbkdf2_sha256:abc:${salt}:${hash}`,
    `pbkdf2_sha256:1::${hash}`,
    `pbkdf2_sha256:1:${'00'.repeat(1025)}:${hash}`,
    `pbkdf2_sha256:1:not-hex:${hash}`,
    `pbkdf2_sha256:1:abc:${hash}`,
    `pbkdf2_sha256:1:${salt}:${hash.slice(2)}`,
    `pbkdf2_sha256:1:${salt}:${hash}00`,
    `pbkdf2_sha256:1:${salt}`,
    `pbkdf2_sha256:1:${salt}:${hash}:extra`,
    'pbkdf2_sha256:',
  ]) {
    t.equal(parseVerifier(bad), undefined, bad.slice(0, 60));
  }
  t.ok(parseVerifier(`pbkdf2_sha256:1000000:${salt}:${hash}`), '1,000,000 iterations is the maximum');
});

t.test('never accepts an HTTP password for a mysql_native_password verifier', async (t) => {
  const stage2 = createHash('sha1').update(createHash('sha1').update('123456').digest()).digest('hex');
  t.equal(stage2, '6bb4837eb74329105ee4568dda7dc67ed2ca2ad9');
  const verifier = mustParse(t, `mysql_native_password:${stage2}`);
  t.equal(verifier.kind, 'mysql_native_password');
  t.notOk(verifyPassword(verifier, '123456'));
  t.equal(parseVerifier('mysql_native_password:abcd'), undefined, 'must be 20 bytes');
  t.equal(parseVerifier(`mysql_native_password:${stage2}zz`), undefined);
});

t.test('checks pg_scram_sha256 verifiers consistent with the RFC 7677 exchange', async (t) => {
  // RFC 7677 §3: user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations.
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  const { clientKey, storedKey, serverKey } = scramKeys('pencil', salt, 4096);
  const authMessage =
    'n=user,r=rOprNGfwEbeRWgbNEkqO,' +
    'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,' +
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
  const clientSignature = createHmac('sha256', storedKey).update(authMessage).digest();
  const proof = Buffer.from(clientKey.map((byte, i) => byte ^ (clientSignature[i] ?? 0)));
  t.equal(proof.toString('base64'), 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=', 'stored key matches the RFC proof');
  const serverSignature = createHmac('sha256', serverKey).update(authMessage).digest('base64');
  t.equal(serverSignature, '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=', 'server key matches the RFC');

  const verifier = mustParse(t, scramLine('pencil', salt, 4096));
  t.equal(verifier.kind, 'pg_scram_sha256');
  t.ok(verifyPassword(verifier, 'pencil'));
  t.notOk(verifyPassword(verifier, 'pencil2'));
});

t.test('rejects malformed pg_scram_sha256 verifiers', async (t) => {
  const good = scramLine('pw', Buffer.from('a1b2', 'hex'), 16).split(':');
  const make = (parts: string[]): string => parts.join(':');
  t.ok(parseVerifier(make(good)));
  const [prefix = '', , salt = '', stored = '', server = ''] = good;
  for (const bad of [
    make([prefix, '0', salt, stored, server]),
    make([prefix, '1000001', salt, stored, server]),
    make([prefix, '16', '', stored, server]),
    make([prefix, '16', 'zz', stored, server]),
    make([prefix, '16', salt, stored.slice(2), server]),
    make([prefix, '16', salt, stored, `${server}00`]),
    make([prefix, '16', salt, stored]),
    make([prefix, '16', salt, stored, server, 'x']),
  ]) {
    t.equal(parseVerifier(bad), undefined, bad.slice(0, 60));
  }
});
