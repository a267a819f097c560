/** Stage 2: the deadline and body limit of a request, from [http] and [query]. */
import t from 'tap';
import type { Route } from '../../../src/router/http/context.js';
import {
  checkDeclaredLength,
  DEBUG_BODY_LIMIT_BYTES,
  effectiveTimeoutMs,
  limitsOf,
  requestDeadlineMs,
} from '../../../src/router/http/limits.js';
import type { Config } from '../../../src/shared/config.js';

const config = (httpMs: number, queryMs: number, bodyLimitBytes = 1000): Config =>
  ({ http: { timeoutMs: httpMs, bodyLimitBytes }, query: { timeoutMs: queryMs } }) as unknown as Config;
const route = (extra: Partial<Route> = {}): Route => ({
  methods: ['GET'],
  pattern: '/x',
  errors: 'short',
  handler: async () => ({ status: 200 }),
  ...extra,
});

t.test('x-greptime-timeout applies only when http.timeout is set, and garbage is ignored', async (t) => {
  t.equal(effectiveTimeoutMs(0, '5s'), 0);
  t.equal(effectiveTimeoutMs(30_000, undefined), 30_000);
  t.equal(effectiveTimeoutMs(30_000, ' '), 30_000);
  t.equal(effectiveTimeoutMs(30_000, '500ms'), 500);
  t.equal(effectiveTimeoutMs(30_000, 'soon'), 30_000);
});

t.test('queries take the sooner of http.timeout and query.timeout; the Prometheus API its own', async (t) => {
  t.equal(requestDeadlineMs(route(), config(30_000, 1000), undefined), 30_000, 'not a query');
  t.equal(requestDeadlineMs(route({ query: true }), config(30_000, 1000), undefined), 1000);
  t.equal(requestDeadlineMs(route({ query: true }), config(0, 1000), undefined), 1000);
  t.equal(requestDeadlineMs(route({ query: true }), config(500, 0), undefined), 500);
  t.equal(requestDeadlineMs(route({ query: true, errors: 'prometheus' }), config(30_000, 1000), undefined), 30_000);
});

t.test('debug routes have no deadline and a fixed body cap', async (t) => {
  t.same(limitsOf(route({ debug: true }), config(30_000, 1000, 5), undefined), {
    deadlineMs: 0,
    bodyLimitBytes: DEBUG_BODY_LIMIT_BYTES,
  });
  t.same(limitsOf(route(), config(30_000, 1000, 5), undefined), { deadlineMs: 30_000, bodyLimitBytes: 5 });
});

t.test('a declared length over the limit is refused with 413 before reading', async (t) => {
  t.doesNotThrow(() => checkDeclaredLength(10, 10));
  t.doesNotThrow(() => checkDeclaredLength(10_000, 0), '0 = no limit');
  t.throws(() => checkDeclaredLength(11, 10), {
    kind: 'BodyTooLarge',
    message: 'Failed to buffer the request body: length limit exceeded',
  });
});
