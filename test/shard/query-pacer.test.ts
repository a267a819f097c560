/**
 * The pacer holds a shard's queries to their share while writes arrive, and not otherwise.
 */
import t from 'tap';
import { QueryPacer } from '../../src/shard/query-pacer.js';

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
