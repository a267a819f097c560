/**
 * Size-tiered background compaction: the newest run of similar-sized segments is merged once it
 * has `segment.compaction_trigger` members, so a row is rewritten a logarithmic number of times
 * and the segment count stays small; a run that leaves older segments out keeps its tombstones,
 * which may still hide rows of those older segments.
 */
import t from 'tap';
import { TIER_RATIO, tieredRun } from '../../src/shard/compaction.js';
import type { ShardStore } from '../../src/shard/store.js';
import { openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

t.test('the run is the newest segments of similar size', async (t) => {
  t.same(tieredRun([100, 1, 1, 1, 1], 4), { from: 1, to: 5 });
  t.equal(tieredRun([100, 1, 1, 1], 4), null, 'too short');
  t.same(tieredRun([4, 4, 4, 4], 4), { from: 0, to: 4 });
  t.same(tieredRun([7, 4, 2, 1], 4), { from: 0, to: 4 }, 'each older one within the ratio of the largest so far');
  t.equal(tieredRun([4 * TIER_RATIO + 1, 4, 2, 1], 4), null);
  t.equal(tieredRun([4, 4, 4, 1], 4), null, 'a flush much smaller than the run before it starts a run of its own');
  t.same(tieredRun([0, 0, 0, 0], 4), { from: 0, to: 4 }, 'empty segments merge too');
  t.equal(tieredRun([], 2), null);
});

t.test('simulated flushes: rows are rewritten a logarithmic number of times', async (t) => {
  for (const trigger of [2, 4, 8]) {
    const segments: number[] = [];
    let rewritten = 0;
    const flushes = 3000;
    let most = 0;
    for (let i = 0; i < flushes; i++) {
      segments.push(1);
      for (let run = tieredRun(segments, trigger); run !== null; run = tieredRun(segments, trigger)) {
        const merged = segments.slice(run.from, run.to).reduce((a, b) => a + b, 0);
        rewritten += merged;
        segments.splice(run.from, run.to - run.from, merged);
      }
      most = Math.max(most, segments.length);
    }
    const levels = Math.ceil(Math.log(flushes) / Math.log(trigger));
    t.ok(rewritten <= flushes * (levels + 1), `trigger ${trigger}: ${rewritten} rows rewritten for ${flushes}`);
    t.ok(most <= (trigger - 1) * (levels + 1) + 1, `trigger ${trigger}: at most ${most} segments`);
  }
});

const TABLE = 3;
const KINDS = { 0: 'bool', 10: 'f64' } as const;
const COLUMNS = [
  { id: 1, kind: 'str' as const, role: 'tag' as const },
  { id: 0, kind: 'i64' as const, role: 'time' as const },
  { id: 10, kind: 'f64' as const, role: 'field' as const },
];
const put = (ts: number, value: number): TestRow => ({ ts: BigInt(ts), tags: { 1: 'a' }, fields: { 10: value } });
const tombstone = (ts: number): TestRow => ({ ts: BigInt(ts), tags: { 1: 'a' }, fields: { 0: true } });

async function untilCompactions(store: ShardStore, count: number): Promise<void> {
  for (let i = 0; i < 200 && store.stats().compactions < count; i++) await new Promise((r) => setTimeout(r, 10));
}

t.test('a run without the oldest segment keeps its tombstones', async (t) => {
  const store = await openStore(tempDir(t), { segment: { blockRows: 1024, compactionTrigger: 4 } });
  t.teardown(() => store.close());
  const write = async (rows: TestRow[]) => {
    await store.write([payload(TABLE, KINDS, rows, 'last_row')]);
    await store.flush();
  };
  await write(Array.from({ length: 400 }, (_, i) => put(i, i)));
  await write([tombstone(5), put(1000, 1)]);
  await write([put(1001, 2)]);
  await write([put(1002, 3)]);
  t.equal(store.stats().compactions, 0, 'three small segments: no run yet');
  await write([put(1003, 4)]);
  await untilCompactions(store, 1);
  const stats = store.stats();
  t.equal(stats.compactions, 1, 'the four small segments were merged');
  t.equal(stats.segmentCount, 2, 'the large one was left alone');
  const rows = scanRows(store, TABLE, COLUMNS).map((r) => Number(r.ts));
  t.notOk(rows.includes(5), 'the row the tombstone deleted stays deleted');
  t.equal(rows.length, 399 + 4);
  // A full compaction merges everything and drops the tombstone with what it hid.
  await store.compact();
  t.equal(store.stats().segmentCount, 1);
  t.same(
    scanRows(store, TABLE, COLUMNS).map((r) => Number(r.ts)),
    rows,
  );
});
