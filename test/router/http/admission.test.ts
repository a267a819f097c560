/** Stage 5: write bytes and query slots, taken after the body and released once. */
import t from 'tap';
import { admit } from '../../../src/router/http/admission.js';
import type { Route } from '../../../src/router/http/context.js';
import { QueryGate } from '../../../src/router/http/query-gate.js';
import { WriteBytesLimiter } from '../../../src/router/http/write-bytes-limiter.js';

const route = (extra: Partial<Route>): Route => ({
  methods: ['POST'],
  pattern: '/x',
  errors: 'short',
  handler: async () => ({ status: 200 }),
  ...extra,
});

t.test('a write holds its bytes, a query its slot, until released', async (t) => {
  const writeLimiter = new WriteBytesLimiter(100, { kind: 'fail' });
  const queryGate = new QueryGate(1);
  const write = await admit({ writeLimiter, queryGate }, route({ protocol: 'p' }), 60, new AbortController());
  t.equal(writeLimiter.used, 60);
  t.equal(queryGate.inFlight, 0, 'a write takes no query slot');
  const query = await admit({ writeLimiter, queryGate }, route({ query: true }), 10, new AbortController());
  t.equal(queryGate.inFlight, 1);
  t.equal(writeLimiter.used, 60, 'a query holds no write bytes');
  write?.();
  query?.();
  t.equal(writeLimiter.used, 0);
  t.equal(queryGate.inFlight, 0);
  t.equal(await admit({ writeLimiter, queryGate }, route({}), 10, new AbortController()), null);
});

t.test('a refused query releases the write bytes it held', async (t) => {
  const writeLimiter = new WriteBytesLimiter(100, { kind: 'fail' });
  const queryGate = new QueryGate(1);
  const held = queryGate.admit(new AbortController());
  await t.rejects(
    admit({ writeLimiter, queryGate }, route({ protocol: 'p', query: true }), 10, new AbortController()),
    {
      code: 4009,
      retryAfterSeconds: 1,
    },
  );
  t.equal(writeLimiter.used, 0);
  held();
});
