/**
 * The pacer holds a shard's queries to their share while writes arrive, and not otherwise.
 */
import t from 'tap';
import { QueryPacer } from '../../src/shard/query-pacer.js';
import { QueryTurn } from '../../src/shard/query-turn.js';

t.test('without recent writes a slice ends with one turn of the event loop', async (t) => {
  const pacer = new QueryPacer(0.25);
  const t0 = performance.now();
  for (let i = 0; i < 10; i++) await pacer.rest(10);
  t.ok(performance.now() - t0 < 50, 'no sleeping');
});

t.test('while writes arrive, queries rest (1 - share) / share of what they worked', async (t) => {
  const pacer = new QueryPacer(0.25, 10_000);
  pacer.noteWrite();
  const t0 = performance.now();
  await pacer.rest(10);
  const rested = performance.now() - t0;
  t.ok(rested >= 29, `rested ${rested.toFixed(1)} ms after 10 ms of work at a 25% share`);
});

t.test('slices of concurrent queries share one clock', async (t) => {
  const pacer = new QueryPacer(0.5, 10_000);
  pacer.noteWrite();
  const t0 = performance.now();
  await Promise.all([pacer.rest(10), pacer.rest(10), pacer.rest(10)]);
  const rested = performance.now() - t0;
  t.ok(rested >= 29, `three 10 ms slices at a 50% share kept the thread free for ${rested.toFixed(1)} ms`);
});

t.test('a share of 1 never holds queries back', async (t) => {
  const pacer = new QueryPacer(1);
  pacer.noteWrite();
  const t0 = performance.now();
  await pacer.rest(100);
  t.ok(performance.now() - t0 < 20);
});

t.test('a cancelled query stops resting within a tick of the wake interval', async (t) => {
  const pacer = new QueryPacer(0.01, 10_000);
  pacer.noteWrite();
  let stop = false;
  setTimeout(() => {
    stop = true;
  }, 20);
  const t0 = performance.now();
  // 1 s of work at a 1% share owes 99 s of rest.
  await pacer.rest(1000, () => stop);
  const rested = performance.now() - t0;
  t.ok(rested < 200, `woke ${rested.toFixed(0)} ms after resting began (cancelled at 20 ms)`);
});

t.test('a query turn charges only the time since its last rest, not time spent awaiting others', async (t) => {
  const charged: number[] = [];
  const turn = new QueryTurn(
    5,
    undefined,
    () => {},
    async (ms) => {
      charged.push(ms);
    },
  );
  await turn.rest(1);
  // The evaluator's slice clock says 3 s (it awaited a scan that rested meanwhile); 10 ms passed.
  await new Promise((r) => setTimeout(r, 10));
  await turn.rest(3000);
  t.ok((charged[0] as number) <= 1, 'never more than the slice claims');
  t.ok((charged[1] as number) >= 9 && (charged[1] as number) < 100, `charged ${charged[1]} ms of a claimed 3,000`);
});
