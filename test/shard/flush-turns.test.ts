/**
 * A flush works in turns of the shard's event loop also inside one series (a table without tags
 * is one series): while the memtables are far from `memtable.reject_size`, no stretch of it holds
 * the thread for long, so writes and queries are served meanwhile.
 */
import t from 'tap';
import { openStore, payload, type TestRow, tempDir } from './helpers.js';

t.test('flushing one large series leaves the event loop turning', async (t) => {
  const store = await openStore(tempDir(t), {
    segment: { blockRows: 4096, compactionTrigger: 100 },
    memtable: { flushBytes: 1 << 30, rejectBytes: 1 << 30 },
  });
  t.teardown(() => store.close());
  const kinds = { 10: 'f64', 11: 'str' } as const;
  for (let b = 0; b < 50; b++) {
    const rows: TestRow[] = Array.from({ length: 10_000 }, (_, i) => ({
      ts: BigInt(b * 10_000 + i),
      fields: { 10: i, 11: `GET /api/v1/items/${(b * 7919 + i) % 5000}?page=${i % 13} HTTP/1.1 Mozilla/5.0` },
    }));
    await store.write([payload(1, kinds, rows, 'append')]);
  }
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
  const took = performance.now() - started;
  t.equal(store.stats().segmentCount, 1);
  t.ok(longest < took / 3, `longest stall ${longest.toFixed(0)} ms in a ${took.toFixed(0)} ms flush`);
});

t.test('flushing many series leaves the event loop turning, footer included', async (t) => {
  const store = await openStore(tempDir(t), {
    segment: { blockRows: 4096, compactionTrigger: 100 },
    memtable: { flushBytes: 1 << 30, rejectBytes: 1 << 30 },
  });
  t.teardown(() => store.close());
  const kinds = { 10: 'f64' } as const;
  for (let b = 0; b < 20; b++) {
    const rows: TestRow[] = Array.from({ length: 10_000 }, (_, i) => {
      const h = b * 10_000 + i;
      return { ts: 1n, tags: { 1: `host_${h}`, 2: `rack_${h % 97}`, 3: `zone_${h % 7}` }, fields: { 10: h } };
    });
    await store.write([payload(1, kinds, rows, 'last_row')]);
  }
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
  const took = performance.now() - started;
  t.equal(store.stats().segmentCount, 1);
  t.ok(longest < took / 3, `longest stall ${longest.toFixed(0)} ms in a ${took.toFixed(0)} ms flush of 200,000 series`);
});
