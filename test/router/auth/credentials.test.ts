import t from 'tap';
import {
  type AuthHeaders,
  checkPermission,
  extractCredentials,
  isAuthExempt,
} from '../../../src/router/auth/credentials.js';
import { DbError, httpStatusOf } from '../../../src/shared/errors.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const none = new URLSearchParams();

function extract(path: string, headers: AuthHeaders, query = none) {
  return extractCredentials(path, headers, query);
}

/** The {code, message} a failing extraction throws. */
function failure(path: string, headers: AuthHeaders, query = none): { code: number; message: string } | undefined {
  try {
    extractCredentials(path, headers, query);
    return undefined;
  } catch (err) {
    if (!(err instanceof DbError)) throw err;
    return { code: err.code, message: err.message };
  }
}

t.test('checks only /v1/ paths, minus the health and ping prefixes', async (t) => {
  for (const path of [
    '/',
    '/health',
    '/ready',
    '/status',
    '/metrics',
    '/config',
    '/dashboard',
    '/dashboard/x.js',
    '/debug/log_level',
    '/v1',
    '/v10/sql',
  ]) {
    t.ok(isAuthExempt(path), `${path} is open`);
  }
  for (const path of [
    '/v1/health',
    '/v1/healthz',
    '/v1/lineproto/ping',
    '/v1/lineproto/health',
    '/v1/lineproto/health/1.0',
    '/v1/eventcollector/services/collector/health',
    '/v1/eventcollector/services/collector/health/1.0',
  ]) {
    t.ok(isAuthExempt(path), `${path} is open`);
  }
  for (const path of [
    '/v1/sql',
    '/v1/pql',
    '/v1/logs',
    '/v1/lineproto/write',
    '/v1/lineproto/api/v2/write',
    '/v1/metricsapi/write',
    '/v1/metricsapi/api/v1/query',
    '/v1/otlp/v1/logs',
    '/v1/logpush/api/v1/push',
    '/v1/eventcollector/services/collector/event',
    '/v1/tsjson/api/put',
    '/v1/ingest',
    '/v1/pipelines/p',
    '/v1/sql/format',
  ]) {
    t.notOk(isAuthExempt(path), `${path} needs credentials`);
  }
});

t.test('reads Basic credentials from Authorization or x-greptime-auth, x-greptime-auth first', async (t) => {
  t.same(extract('/v1/sql', { authorization: `Basic ${b64('admin:pw')}` }), { username: 'admin', password: 'pw' });
  t.same(extract('/v1/sql', { xGreptimeAuth: `Basic ${b64('admin:pw')}` }), { username: 'admin', password: 'pw' });
  t.same(extract('/v1/sql', { xGreptimeAuth: `Basic ${b64('first:1')}`, authorization: `Basic ${b64('second:2')}` }), {
    username: 'first',
    password: '1',
  });
  t.same(
    extract('/v1/sql', { authorization: `bAsIc ${b64('a:b')}` }),
    { username: 'a', password: 'b' },
    'scheme is case-insensitive',
  );
  t.same(
    extract('/v1/sql', { authorization: `Basic ${b64('a:b:c')}` }),
    { username: 'a', password: 'b:c' },
    'split at the first colon',
  );
  t.same(extract('/v1/sql', { authorization: `Basic ${b64('ü:pässword')}` }), { username: 'ü', password: 'pässword' });
  t.same(
    extract('/v1/sql', { authorization: `Basic ${b64(':')}` }),
    { username: '', password: '' },
    "blank parts are the provider's to refuse",
  );
  t.same(extract('/v1/metricsapi/write', { authorization: `Basic ${b64('u:p')}` }), { username: 'u', password: 'p' });
});

t.test('fails with 7003 when no credentials are sent', async (t) => {
  for (const path of ['/v1/sql', '/v1/metricsapi/api/v1/query', '/v1/eventcollector/services/collector/event']) {
    t.same(failure(path, {}), { code: 7003, message: 'Not found http or grpc authorization header' }, path);
  }
  t.same(failure('/v1/lineproto/write', {}), { code: 7003, message: 'Not found influx http authorization info' });
  t.equal(httpStatusOf(7003), 401);
});

t.test('fails with 7004 for malformed headers', async (t) => {
  const invalid = { code: 7004, message: 'Invalid http authorization header' };
  t.same(failure('/v1/sql', { authorization: 'Basic' }), invalid, 'no space');
  t.same(failure('/v1/sql', { authorization: '' }), invalid, 'empty header');
  t.same(failure('/v1/sql', { authorization: `Basic  ${b64('a:b')}` }), invalid, 'two spaces');
  t.same(failure('/v1/sql', { authorization: `Basic ${b64('a:b')} x` }), invalid, 'space inside credentials');
  t.same(failure('/v1/sql', { authorization: `Basic ${b64('nocolon')}` }), invalid, 'no colon');
  t.same(failure('/v1/sql', { authorization: 'Basic ' }), invalid, 'empty credentials');

  const base64 = { code: 7004, message: 'Invalid base64 value' };
  t.same(failure('/v1/sql', { authorization: 'Basic dXNlcm5hbWU6cG=Fzc3dvcmQ=' }), base64);
  t.same(failure('/v1/sql', { authorization: 'Basic YWJj!' }), base64);
  t.same(failure('/v1/sql', { authorization: 'Basic YWI' }), base64, 'missing padding');
  t.same(failure('/v1/sql', { authorization: 'Basic YWJ=' }), base64, 'non-canonical trailing bits');
  t.same(failure('/v1/sql', { authorization: 'Basic YW-_' }), base64, 'URL-safe alphabet');

  t.same(failure('/v1/sql', { authorization: `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}` }), {
    code: 7004,
    message: 'Invalid utf-8 value',
  });
  t.same(failure('/v1/sql', { authorization: `Basic ${b64('a:b')}\u00e9` }), {
    code: 7004,
    message: 'Invalid visibility ASCII chars',
  });
  t.same(failure('/v1/sql', { authorization: `Basic\u0001${b64('a:b')}` }), {
    code: 7004,
    message: 'Invalid visibility ASCII chars',
  });
  t.same(failure('/v1/lineproto/write', { authorization: 'Token u:p\u0080' }), {
    code: 7004,
    message: 'Invalid visibility ASCII chars',
  });
  t.equal(httpStatusOf(7004), 401);
});

t.test('fails with 7004 naming an unsupported scheme', async (t) => {
  t.same(failure('/v1/sql', { authorization: 'Digest abc' }), {
    code: 7004,
    message: 'Unsupported http auth scheme, name: digest',
  });
  t.same(
    failure('/v1/sql', { authorization: 'Token u:p' }),
    { code: 7004, message: 'Unsupported http auth scheme, name: token' },
    'Token only on line protocol',
  );
  t.same(
    failure('/v1/sql', { authorization: 'Splunk u:p' }),
    { code: 7004, message: 'Unsupported http auth scheme, name: splunk' },
    'Splunk only on the event collector',
  );
  t.same(failure('/v1/lineproto/write', { authorization: 'Digest abc' }), {
    code: 7004,
    message: 'Unsupported http auth scheme, name: Digest',
  });
});

t.test('refuses Bearer tokens with 7002 on every path family', async (t) => {
  const bearer = { code: 7002, message: 'Unsupported authentication method: bearer token' };
  for (const path of ['/v1/sql', '/v1/lineproto/write', '/v1/eventcollector/services/collector/event']) {
    t.same(failure(path, { authorization: 'Bearer abc.def' }), bearer, path);
    t.same(failure(path, { xGreptimeAuth: 'bearer abc' }), bearer, `${path} x-greptime-auth`);
    t.same(
      failure(path, { xGreptimeAuth: `Basic ${b64('a:b')}`, authorization: 'Bearer t' }),
      bearer,
      `${path} bearer tried first`,
    );
  }
  t.same(failure('/v1/lineproto/write', { authorization: 'Bearer t' }, new URLSearchParams('u=a&p=b')), bearer);
});

t.test('reads line-protocol Token, Basic and u/p query credentials', async (t) => {
  for (const path of ['/v1/lineproto/write', '/v1/lineproto/api/v2/write']) {
    t.same(extract(path, { authorization: 'Token greptime:greptime' }), { username: 'greptime', password: 'greptime' });
    t.same(extract(path, { authorization: 'token a:b:c' }), { username: 'a', password: 'b:c' });
    t.same(extract(path, { authorization: `Basic ${b64('u:p')}` }), { username: 'u', password: 'p' });
    t.same(extract(path, {}, new URLSearchParams('db=public&u=user&p=pa%3Ass')), {
      username: 'user',
      password: 'pa:ss',
    });
  }
  t.same(
    extract('/v1/lineproto/write', { authorization: 'Token h:1' }, new URLSearchParams('u=q&p=2')),
    { username: 'h', password: '1' },
    'a header wins over the query',
  );
  t.same(failure('/v1/lineproto/write', { authorization: 'Token nocolon' }), {
    code: 7004,
    message: 'Invalid http authorization header',
  });
  t.same(failure('/v1/lineproto/write', { authorization: 'Token' }), {
    code: 7004,
    message: 'Invalid http authorization header',
  });
});

t.test('fails with 1004 when only one of u and p is given on line protocol', async (t) => {
  const half = {
    code: 1004,
    message: 'Invalid request parameter: influxdb auth: username and password must be provided together',
  };
  t.same(failure('/v1/lineproto/write', {}, new URLSearchParams('u=user')), half);
  t.same(failure('/v1/lineproto/write', {}, new URLSearchParams('p=pw')), half);
  t.same(failure('/v1/lineproto/write', {}, new URLSearchParams('u=user&p=')), half, 'an empty p counts as missing');
  t.same(failure('/v1/lineproto/write', {}, new URLSearchParams('u=&p=')), {
    code: 7003,
    message: 'Not found influx http authorization info',
  });
  t.equal(httpStatusOf(1004), 400, 'the router sends auth failures as 401 regardless');
});

t.test('reads event-collector Splunk and Basic credentials', async (t) => {
  const path = '/v1/eventcollector/services/collector/event';
  t.same(extract(path, { authorization: 'Splunk user:pw' }), { username: 'user', password: 'pw' });
  t.same(extract(path, { authorization: 'splunk user:p:w' }), { username: 'user', password: 'p:w' });
  t.same(extract(path, { authorization: `Basic ${b64('u:p')}` }), { username: 'u', password: 'p' });
  t.same(failure(path, { authorization: 'Splunk 1b3e-guid-token' }), {
    code: 7004,
    message: 'Invalid http authorization header',
  });
  t.same(failure('/v1/eventcollector/services/collector/raw', {}), {
    code: 7003,
    message: 'Not found http or grpc authorization header',
  });
});

t.test('lets read-only users read and write-only users write, and refuses the rest with 7006', async (t) => {
  const denied = { name: 'DbError', code: 7006, message: 'User is not authorized to perform this action' };
  t.doesNotThrow(() => checkPermission({ username: 'a', mode: 'rw' }, 'read'));
  t.doesNotThrow(() => checkPermission({ username: 'a', mode: 'rw' }, 'write'));
  t.doesNotThrow(() => checkPermission({ username: 'r', mode: 'ro' }, 'read'));
  t.throws(() => checkPermission({ username: 'r', mode: 'ro' }, 'write'), denied);
  t.doesNotThrow(() => checkPermission({ username: 'w', mode: 'wo' }, 'write'));
  t.throws(() => checkPermission({ username: 'w', mode: 'wo' }, 'read'), denied);
  t.equal(httpStatusOf(7006), 403);
});
