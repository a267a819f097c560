/** Stage 3: who is asking; failures wrapped for the error stage, Splunk's on the event collector. */
import t from 'tap';
import type { UserProvider } from '../../../src/router/auth/user-provider.js';
import { ClientError } from '../../../src/router/errors/catalogue.js';
import { AuthFailed, authenticate } from '../../../src/router/http/auth-stage.js';
import type { Route } from '../../../src/router/http/context.js';
import { DbError, ErrorCode } from '../../../src/shared/errors.js';

const provider: UserProvider = {
  name: 'static_user_provider',
  authenticate(username, password) {
    if (username !== 'admin' || password !== 'pw') throw new DbError(ErrorCode.UserPasswordMismatch, 'bad');
    return { username, mode: 'rw' } as ReturnType<UserProvider['authenticate']>;
  },
  close() {},
};
const route = (errors: Route['errors']): Route => ({
  methods: ['POST'],
  pattern: '/x',
  errors,
  handler: async () => ({ status: 200 }),
});
const basic = (user: string, pw: string) =>
  new Map([['authorization', `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`]]);
const none = new URLSearchParams();

function failure(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err instanceof AuthFailed ? err.cause : err;
  }
  return null;
}

t.test('no provider, or an exempt path, needs no credentials', async (t) => {
  t.equal(authenticate(null, route('greptime'), '/v1/sql', new Map(), none), null);
  t.equal(authenticate(provider, route('text'), '/health', new Map(), none), null);
  t.equal(authenticate(provider, route('text'), '/v1/health', new Map(), none), null);
});

t.test('good credentials give the user; bad ones the provider error', async (t) => {
  t.match(authenticate(provider, route('greptime'), '/v1/sql', basic('admin', 'pw'), none), { username: 'admin' });
  t.match(
    failure(() => authenticate(provider, route('greptime'), '/v1/sql', basic('admin', 'x'), none)),
    {
      code: ErrorCode.UserPasswordMismatch,
    },
  );
  t.match(
    failure(() => authenticate(provider, route('greptime'), '/v1/sql', new Map(), none)),
    {
      code: ErrorCode.AuthHeaderNotFound,
    },
  );
});

t.test('on the event collector, failures are Splunk token errors', async (t) => {
  const path = '/v1/eventcollector/services/collector';
  const missing = failure(() => authenticate(provider, route('hec'), path, new Map(), none));
  t.ok(missing instanceof ClientError);
  t.match(missing, { kind: 'HecTokenRequired', status: 401, message: 'Token is required' });
  t.match(
    failure(() => authenticate(provider, route('hec'), path, basic('admin', 'x'), none)),
    {
      kind: 'HecInvalidToken',
      status: 403,
      message: 'Invalid token',
    },
  );
});
