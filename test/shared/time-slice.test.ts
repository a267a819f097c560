/**
 * Time slices: a slice ends after its time, or after SLICE_MIN_MS when more urgent work waits
 * (a shard's writes, counted in shared memory by the router).
 */
import t from 'tap';
import { TimeSlice } from '../../src/shared/time-slice.js';
import { WritesWaiting } from '../../src/shared/writes-waiting.js';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: the slice's clock is wall time
  }
}

t.test('a slice runs its length unless a write waits, then ends after half a millisecond', async (t) => {
  const writes = new WritesWaiting();
  let rested = 0;
  const slice = new TimeSlice(
    1000,
    () => {},
    async () => {
      rested++;
    },
    writes.any,
  );
  spin(1);
  t.equal(slice.used(), false, 'nothing waits: the 1 s slice goes on');
  await slice.next();
  t.equal(rested, 0);
  // Another thread's view of the same count: the router's side of the shared word.
  const router = new WritesWaiting(writes.buffer);
  router.sent();
  t.equal(slice.used(), true, 'a write waits: the slice is over');
  await slice.next();
  t.equal(rested, 1, 'and rests');
  writes.started();
  spin(1);
  t.equal(slice.used(), false, 'the write started: full slices again');
});

t.test('a task the pool refused is taken back from the count, never below zero', async (t) => {
  const router = new WritesWaiting();
  const shard = new WritesWaiting(router.buffer);
  router.sent();
  router.sent();
  router.withdrawn();
  t.equal(shard.count(), 1, 'one refused, one still waiting');
  t.equal(shard.any(), true);
  // The other started after all (a thread that died after taking it): the count is already down.
  shard.started();
  router.withdrawn();
  t.equal(shard.count(), 0, 'a withdrawal finding nothing leaves zero');
  t.equal(shard.any(), false);
});
