import t from 'tap';
import type { ClientError } from '../../../src/router/errors/catalogue.js';
import { WriteBytesLimiter } from '../../../src/router/http/write-bytes-limiter.js';

const never = new AbortController().signal;

/** The HTTP status a refused acquire carries, or null when it was admitted. */
async function refusedStatus(p: Promise<unknown>): Promise<number | null> {
  return p.then(
    () => null,
    (err: ClientError) => err.status,
  );
}

t.test('admits writes while they fit and refuses the rest with 429 under "fail"', async (t) => {
  const limiter = new WriteBytesLimiter(100, { kind: 'fail' });
  const a = await limiter.acquire(60, never);
  const b = await limiter.acquire(40, never);
  t.equal(limiter.used, 100);
  t.equal(await refusedStatus(limiter.acquire(1, never)), 429);
  a();
  a();
  t.equal(limiter.used, 40, 'a release counts once');
  const c = await limiter.acquire(60, never);
  b();
  c();
  t.equal(limiter.used, 0);
});

t.test('under "wait" a write waits for room, in arrival order', async (t) => {
  const limiter = new WriteBytesLimiter(100, { kind: 'wait', waitMs: 5_000 });
  const first = await limiter.acquire(80, never);
  const order: string[] = [];
  const second = limiter.acquire(50, never).then((r) => {
    order.push('second');
    return r;
  });
  const third = limiter.acquire(10, never).then((r) => {
    order.push('third');
    return r;
  });
  await new Promise((r) => setTimeout(r, 20));
  t.same(order, [], 'nobody jumps the queue while the head does not fit');
  first();
  const releases = await Promise.all([second, third]);
  t.same(order, ['second', 'third']);
  t.equal(limiter.used, 60);
  for (const r of releases) r();
  t.equal(limiter.used, 0);
});

t.test('a wait times out with 429 and an aborted request leaves the queue', async (t) => {
  const limiter = new WriteBytesLimiter(10, { kind: 'wait', waitMs: 30 });
  const held = await limiter.acquire(10, never);
  t.equal(await refusedStatus(limiter.acquire(5, never)), 429);
  const controller = new AbortController();
  const waiting = limiter.acquire(5, controller.signal);
  controller.abort(new Error('gone'));
  await t.rejects(waiting, /gone/);
  held();
  t.equal(limiter.used, 0);
  const again = await limiter.acquire(10, never);
  again();
});

t.test('a request larger than the bound runs alone rather than never', async (t) => {
  const limiter = new WriteBytesLimiter(10, { kind: 'fail' });
  const big = await limiter.acquire(1000, never);
  t.equal(limiter.used, 1000);
  big();
});

t.test('a zero bound admits everything', async (t) => {
  const limiter = new WriteBytesLimiter(0, { kind: 'fail' });
  for (let i = 0; i < 5; i++) await limiter.acquire(1_000_000, never);
  t.pass();
});
