/**
 * Scans merge memtable and segments per series: duplicates resolve by merge mode in write order,
 * time ranges and series filters prune, missing or mismatched columns read NULL.
 */
import t, { type Test } from 'tap';
import { SCAN_CHUNK_ROWS } from '../../src/shard/scan.js';
import type { ShardStore } from '../../src/shard/store.js';
import type { MergeMode } from '../../src/shared/codec/write-batch.js';
import type { ScanColumn } from '../../src/shared/scan.js';
import { type Kinds, openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

const KINDS: Kinds = { 10: 'f64', 11: 'str' };
const COLUMNS: ScanColumn[] = [
  { id: 1, kind: 'str', role: 'tag' },
  { id: 0, kind: 'i64', role: 'time' },
  { id: 10, kind: 'f64', role: 'field' },
  { id: 11, kind: 'str', role: 'field' },
];

/** Three writes of the same (series, ts), one per stage: segment, older segment, memtable. */
const WRITES: TestRow[][] = [
  [{ ts: 5n, tags: { 1: 'a' }, fields: { 10: 1, 11: 'first' } }],
  [{ ts: 5n, tags: { 1: 'a' }, fields: { 10: 2 } }],
  [{ ts: 5n, tags: { 1: 'a' }, fields: { 10: null, 11: null } }],
];

const EXPECTED: Record<MergeMode, Array<Record<string, unknown>>> = {
  last_row: [{ t1: 'a', ts: 5n, f10: null, f11: null }],
  last_non_null: [{ t1: 'a', ts: 5n, f10: 2, f11: 'first' }],
  append: [
    { t1: 'a', ts: 5n, f10: 1, f11: 'first' },
    { t1: 'a', ts: 5n, f10: 2, f11: null },
    { t1: 'a', ts: 5n, f10: null, f11: null },
  ],
};

/** Where each of the three writes ends up before the scan. */
const LAYOUTS: Array<{ name: string; flushAfter: boolean[] }> = [
  { name: 'all in the memtable', flushAfter: [false, false, false] },
  { name: 'segment, segment, memtable', flushAfter: [true, true, false] },
  { name: 'segment, then memtable twice', flushAfter: [true, false, false] },
  { name: 'all in separate segments', flushAfter: [true, true, true] },
];

for (const mode of ['last_row', 'last_non_null', 'append'] as MergeMode[]) {
  for (const layout of LAYOUTS) {
    t.test(`${mode}: duplicates resolve in write order (${layout.name})`, async (t) => {
      const store = await openStore(tempDir(t));
      for (let i = 0; i < WRITES.length; i++) {
        await store.write([payload(1, KINDS, WRITES[i] as TestRow[], mode)]);
        if (layout.flushAfter[i]) await store.flush();
      }
      t.same(scanRows(store, 1, COLUMNS), EXPECTED[mode], 'scan');
      await store.flush();
      t.same(scanRows(store, 1, COLUMNS), EXPECTED[mode], 'after flush');
      await store.compact();
      t.equal(store.stats().segmentCount, 1);
      t.same(scanRows(store, 1, COLUMNS), EXPECTED[mode], 'after compaction');
      await store.close();
    });
  }
}

t.test('duplicates inside one write: the later row wins', async (t) => {
  const store = await openStore(tempDir(t));
  await store.write([
    payload(1, KINDS, [
      { ts: 2n, tags: { 1: 'a' }, fields: { 10: 1 } },
      { ts: 1n, tags: { 1: 'a' }, fields: { 10: 2 } },
      { ts: 2n, tags: { 1: 'a' }, fields: { 10: 3 } },
    ]),
  ]);
  const expected = [
    { t1: 'a', ts: 1n, f10: 2, f11: null },
    { t1: 'a', ts: 2n, f10: 3, f11: null },
  ];
  t.same(scanRows(store, 1, COLUMNS), expected);
  await store.flush();
  t.same(scanRows(store, 1, COLUMNS), expected, 'flush deduplicates too');
  await store.close();
});

/** Hosts a, b, c with timestamps 0..99; the first half in a segment of 10-row blocks. */
async function storeWithHours(t: Test): Promise<ShardStore> {
  const store = await openStore(tempDir(t), { segment: { blockRows: 10, compactionTrigger: 100 } });
  const rows: TestRow[] = [];
  for (const host of ['a', 'b', 'c'])
    for (let i = 0; i < 100; i++) rows.push({ ts: BigInt(i), tags: { 1: host }, fields: { 10: i } });
  await store.write([payload(1, KINDS, rows.slice(0, 150))]);
  await store.flush();
  await store.write([payload(1, KINDS, rows.slice(150))]);
  return store;
}

t.test('timeMin is inclusive and timeMax exclusive, across memtable and segments', async (t) => {
  const store = await storeWithHours(t);
  const rows = scanRows(store, 1, COLUMNS, { timeMin: 40n, timeMax: 45n });
  t.same(
    rows.map((r) => `${r.t1}${r.ts}`),
    ['a40', 'a41', 'a42', 'a43', 'a44', 'b40', 'b41', 'b42', 'b43', 'b44', 'c40', 'c41', 'c42', 'c43', 'c44'],
  );
  t.same(scanRows(store, 1, COLUMNS, { timeMin: 50n, timeMax: 50n }), []);
  t.equal(scanRows(store, 1, COLUMNS, { timeMax: 1n }).length, 3);
  t.equal(scanRows(store, 1, COLUMNS, { timeMin: 99n }).length, 3);
  await store.close();
});

t.test('seriesFilter is called once per series with its tags and skips series', async (t) => {
  const store = await storeWithHours(t);
  const seen: string[] = [];
  const rows = scanRows(store, 1, COLUMNS, {
    seriesFilter: (tags) => {
      seen.push(tags.get(1) as string);
      return tags.get(1) === 'b';
    },
  });
  t.same(seen, ['a', 'b', 'c'], 'once per series, also for a series in memtable and segment');
  t.equal(rows.length, 100);
  t.ok(rows.every((r) => r.t1 === 'b'));
  await store.close();
});

t.test('a column the data lacks, or stored with another kind, reads NULL', async (t) => {
  const store = await openStore(tempDir(t));
  await store.write([payload(1, KINDS, [{ ts: 1n, tags: { 1: 'a' }, fields: { 10: 1.5, 11: 'x' } }])]);
  const columns: ScanColumn[] = [
    { id: 10, kind: 'i64', role: 'field' },
    { id: 99, kind: 'f64', role: 'field' },
    { id: 98, kind: 'str', role: 'tag' },
    { id: 10, kind: 'f64', role: 'field' },
  ];
  const expected = [{ f10: 1.5, f99: null, t98: null }];
  t.same(scanRows(store, 1, columns), expected);
  await store.flush();
  t.same(scanRows(store, 1, columns), expected, 'from a segment');
  const [chunk] = [...store.scan({ tableId: 1, columns })];
  t.equal(chunk?.vectors[0]?.kind, 'i64', 'the requested kind is kept');
  t.same(chunk?.vectors[0]?.valid, new Uint8Array([0]));
  await store.close();
});

t.test('chunks stay within SCAN_CHUNK_ROWS and rows come in (series, time) order', async (t) => {
  const store = await openStore(tempDir(t), { segment: { blockRows: 1000, compactionTrigger: 100 } });
  const n = SCAN_CHUNK_ROWS * 2 + 7;
  const rows: TestRow[] = [];
  for (let i = 0; i < n; i++) rows.push({ ts: BigInt(n - i), tags: { 1: i % 2 ? 'odd' : 'even' }, fields: { 10: i } });
  await store.write([payload(1, KINDS, rows.slice(0, n >> 1))]);
  await store.flush();
  await store.write([payload(1, KINDS, rows.slice(n >> 1))]);
  let total = 0;
  const finished = new Set<string>();
  let series = '';
  let last = -1n;
  for (const chunk of store.scan({ tableId: 1, columns: COLUMNS })) {
    t.ok(chunk.rowCount > 0 && chunk.rowCount <= SCAN_CHUNK_ROWS);
    const tags = chunk.vectors[0]?.values as string[];
    const ts = chunk.vectors[1]?.values as BigInt64Array;
    for (let i = 0; i < chunk.rowCount; i++) {
      const tag = tags[i] as string;
      const time = ts[i] as bigint;
      if (tag !== series) {
        if (finished.has(tag)) t.fail(`series ${tag} comes back after ${series}`);
        finished.add(series);
        series = tag;
      } else if (time <= last) {
        t.fail(`${tag}: ${time} after ${last}`);
      }
      last = time;
    }
    total += chunk.rowCount;
  }
  t.equal(total, n);
  await store.close();
});

t.test('series identity ignores tag order and NULL tags', async (t) => {
  const store = await openStore(tempDir(t));
  await store.write([
    payload(1, KINDS, [{ ts: 1n, tags: { 1: 'a', 2: 'x' }, fields: { 10: 1 } }]),
    payload(1, KINDS, [{ ts: 1n, tags: { 2: 'x', 1: 'a', 3: null }, fields: { 10: 2 } }]),
  ]);
  const rows = scanRows(store, 1, [
    ...COLUMNS,
    { id: 2, kind: 'str', role: 'tag' },
    { id: 3, kind: 'str', role: 'tag' },
  ]);
  t.same(rows, [{ t1: 'a', ts: 1n, f10: 2, f11: null, t2: 'x', t3: null }]);
  await store.close();
});

t.test('a scan of an unknown table yields nothing', async (t) => {
  const store = await openStore(tempDir(t));
  t.same([...store.scan({ tableId: 42, columns: COLUMNS })], []);
  await store.close();
});
