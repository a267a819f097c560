/**
 * A flush works in turns of the shard's event loop also inside one series (a table without tags
 * is one series): while the memtables are far from `memtable.reject_size`, no stretch of it holds
 * the thread for long, so writes and queries are served meanwhile; as they fill, its turns
 * lengthen, since the flush is what makes room.
 */
import t from 'tap';
import { flushTurnMs } from '../../src/shard/flush.js';
import { MS_PER_TURN } from '../../src/shard/segment/build-segment.js';
import type { ShardState } from '../../src/shard/state.js';
import type { ShardStore } from '../../src/shard/store.js';
import { openStore, payload, type TestRow, tempDir } from './helpers.js';

/** Flushes `store`; returns the longest gap between 1 ms timer ticks meanwhile, and the flush's time. */
async function flushStalls(store: ShardStore): Promise<{ longest: number; took: number }> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await store.flush();
  clearInterval(timer);
  return { longest, took: performance.now() - started };
}

function storeOf(t: Parameters<typeof tempDir>[0]): Promise<ShardStore> {
  return openStore(tempDir(t), {
    segment: { blockRows: 4096, compactionTrigger: 100 },
    memtable: { flushBytes: 1 << 30, rejectBytes: 1 << 30 },
  });
}

t.test('flushing one large series leaves the event loop turning', async (t) => {
  const store = await storeOf(t);
  t.teardown(() => store.close());
  const kinds = { 10: 'f64', 11: 'str' } as const;
  for (let b = 0; b < 50; b++) {
    const rows: TestRow[] = Array.from({ length: 10_000 }, (_, i) => ({
      ts: BigInt(b * 10_000 + i),
      fields: { 10: i, 11: `GET /api/v1/items/${(b * 7919 + i) % 5000}?page=${i % 13} HTTP/1.1 Mozilla/5.0` },
    }));
    await store.write([payload(1, kinds, rows, 'append')]);
  }
  const { longest, took } = await flushStalls(store);
  t.equal(store.stats().segmentCount, 1);
  t.ok(longest < took / 3, `longest stall ${longest.toFixed(0)} ms in a ${took.toFixed(0)} ms flush`);
});

t.test('a flush takes longer turns as the memtables near memtable.reject_size', async (t) => {
  const turnAt = (memtableBytes: number, rejectBytes: number) =>
    flushTurnMs({ config: { memtable: { rejectBytes } }, memtableBytes: () => memtableBytes } as unknown as ShardState);
  t.equal(turnAt(0, 1000), MS_PER_TURN);
  t.equal(turnAt(249, 1000), MS_PER_TURN, 'below a quarter: the shortest turns');
  t.equal(turnAt(250, 1000), 5 * MS_PER_TURN, 'from a quarter: longer');
  t.equal(turnAt(500, 1000), Number.POSITIVE_INFINITY, 'from half: bounded by rows only');
  t.equal(turnAt(1 << 30, 0), MS_PER_TURN, 'no reject_size: the shortest turns');
});
