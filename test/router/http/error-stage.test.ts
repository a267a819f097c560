/** The error stage: the family depends on where the error arose (handler, earlier stage, auth). */
import pino from 'pino';
import t from 'tap';
import { ClientError } from '../../../src/router/errors/catalogue.js';
import { AuthFailed } from '../../../src/router/http/auth-stage.js';
import type { Route } from '../../../src/router/http/context.js';
import { answerError, type Stage } from '../../../src/router/http/error-stage.js';
import { TooManyQueries } from '../../../src/router/http/query-gate.js';
import { DbError, ErrorCode } from '../../../src/shared/errors.js';

const log = pino({ level: 'silent' });
const route = (errors: Route['errors']): Route => ({
  methods: ['GET'],
  pattern: '/x',
  errors,
  handler: async () => ({ status: 200 }),
});
const answer = (err: unknown, errors: Route['errors'], stage: Stage) =>
  answerError(err, { route: route(errors), stage, path: '/x', headers: new Map(), startMs: performance.now() }, log);
const body = (r: { body?: unknown }) => JSON.parse(String(r.body));

t.test('the Prometheus API: handler errors are Prometheus-typed, admission refusals GreptimeDB-named', async (t) => {
  const inHandler = answer(new DbError(ErrorCode.InvalidArguments, 'bad'), 'prometheus', 'handler');
  t.equal(inHandler.status, 400);
  t.same(body(inHandler), { status: 'error', errorType: 'bad_data', error: 'bad' });
  const refused = answer(new TooManyQueries(1), 'prometheus', 'before-handler');
  t.equal(refused.status, 503);
  t.match(body(refused), { status: 'error', errorType: 'RegionBusy' });
  t.equal(refused.headers?.['retry-after'], '1');
});

t.test('a refused login is 401 with the native body, or Splunk token errors as they are', async (t) => {
  const native = answer(new AuthFailed(new DbError(ErrorCode.AccessDenied, 'no')), 'greptime', 'before-handler');
  t.equal(native.status, 401, 'whatever the code');
  t.same(body(native), { code: ErrorCode.AccessDenied, error: 'no', execution_time_ms: 0 });
  const hec = answer(new AuthFailed(new ClientError('HecTokenRequired', 'Token is required')), 'hec', 'handler');
  t.equal(hec.status, 401);
  t.same(body(hec), { text: 'Token is required', code: 2 });
});

t.test('unexpected throwables are masked', async (t) => {
  const r = answer(new TypeError('x is undefined'), 'short', 'handler');
  t.equal(r.status, 500);
  t.same(body(r), { error: 'Internal error: 1003' });
});
