/**
 * Deletes are tombstones: rows of the delete-mark column (id 0) that hide every older row of their
 * series and timestamp wherever it lives (memtable, frozen memtable, segments), survive flush and
 * restart, and are dropped together with what they hide by a full compaction.
 */
import t from 'tap';
import type { ShardStore } from '../../src/shard/store.js';
import type { MergeMode } from '../../src/shared/codec/write-batch.js';
import { openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

const TABLE = 7;
const KINDS = { 0: 'bool', 10: 'f64', 11: 'str' } as const;
const COLUMNS = [
  { id: 1, kind: 'str' as const, role: 'tag' as const },
  { id: 0, kind: 'i64' as const, role: 'time' as const },
  { id: 10, kind: 'f64' as const, role: 'field' as const },
  { id: 11, kind: 'str' as const, role: 'field' as const },
];

const put = (ts: number, host: string, f10: number | null, f11: string | null = null): TestRow => ({
  ts: BigInt(ts),
  tags: { 1: host },
  fields: { 10: f10, 11: f11 },
});
const tombstone = (ts: number, host: string): TestRow => ({ ts: BigInt(ts), tags: { 1: host }, fields: { 0: true } });

async function write(store: ShardStore, rows: TestRow[], mode: MergeMode): Promise<void> {
  await store.write([payload(TABLE, KINDS, rows, mode)]);
}

function read(store: ShardStore) {
  return scanRows(store, TABLE, COLUMNS).map((r) => [r.t1, Number(r.ts), r.f10, r.f11]);
}

/** Where each step's rows end up before the next step: memtable only, or flushed to a segment. */
const PLACEMENTS = ['memtable', 'segments'] as const;

for (const placement of PLACEMENTS) {
  t.test(`last_non_null: a delete hides older values, later writes start afresh (${placement})`, async (t) => {
    const dir = tempDir(t);
    let store = await openStore(dir);
    const step = async (rows: TestRow[]) => {
      await write(store, rows, 'last_non_null');
      if (placement === 'segments') await store.flush();
    };
    await step([put(1, 'a', 1, 'old'), put(2, 'a', 2, 'keep'), put(1, 'b', 5, 'other series')]);
    await step([tombstone(1, 'a')]);
    t.same(read(store), [
      ['a', 2, 2, 'keep'],
      ['b', 1, 5, 'other series'],
    ]);
    // A write after the delete must not pick up the deleted row's non-null values.
    await step([put(1, 'a', 10, null)]);
    const expected = [
      ['a', 1, 10, null],
      ['a', 2, 2, 'keep'],
      ['b', 1, 5, 'other series'],
    ];
    t.same(read(store), expected);
    await store.close();
    store = await openStore(dir);
    t.same(read(store), expected, 'the same after a restart (WAL replay or segments)');
    await store.flush();
    await store.compact();
    t.same(read(store), expected, 'the same after flush and compaction');
    await store.close();
  });
}

t.test('last_row: deletes shadow segments, and a full compaction drops them with what they hide', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  const rows = Array.from({ length: 100 }, (_, i) => put(i, i % 2 ? 'odd' : 'even', i));
  await write(store, rows, 'last_row');
  await store.flush();
  await write(
    store,
    rows.filter((_, i) => i % 10 === 0).map((r) => tombstone(Number(r.ts), r.tags?.[1] as string)),
    'last_row',
  );
  t.equal(read(store).length, 90, 'ten rows hidden by tombstones in the memtable');
  await store.flush();
  t.equal(read(store).length, 90, 'still hidden once the tombstones are in their own segment');
  t.equal(store.stats().segmentCount, 2);
  await store.compact();
  t.equal(store.stats().segmentCount, 1);
  const left = read(store);
  t.equal(left.length, 90);
  t.notOk(
    left.some((r) => (r[1] as number) % 10 === 0),
    'no deleted timestamp came back',
  );
  await write(store, [put(0, 'even', 42)], 'last_row');
  t.same(
    read(store).find((r) => r[1] === 0),
    ['even', 0, 42, null],
    'a timestamp can be written again after its delete',
  );
  await store.close();
});

t.test('append mode: a delete removes every earlier row at its timestamp, not later ones', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  await write(store, [put(1, 'a', 1), put(1, 'a', 2)], 'append');
  await store.flush();
  await write(store, [tombstone(1, 'a'), put(1, 'a', 3)], 'append');
  t.same(read(store), [['a', 1, 3, null]]);
  await store.flush();
  await store.compact();
  t.same(read(store), [['a', 1, 3, null]]);
  await store.close();
});
