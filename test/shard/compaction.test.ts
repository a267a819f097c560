/**
 * Compaction swaps a table's segments for one merged segment through one manifest write: a crash
 * on either side of it leaves exactly one complete set live, and scans already running keep
 * reading the retired files.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SCAN_CHUNK_ROWS } from '../../src/shard/scan.js';
import { pageCacheStats } from '../../src/shard/segment/page-cache.js';
import { copyDir, openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

const COLUMNS = [
  { id: 1, kind: 'str' as const, role: 'tag' as const },
  { id: 0, kind: 'i64' as const, role: 'time' as const },
  { id: 10, kind: 'f64' as const, role: 'field' as const },
];

function rows(count: number, from: number, value: number): TestRow[] {
  return Array.from({ length: count }, (_, i) => ({
    ts: BigInt(from + i),
    tags: { 1: `h${(from + i) % 3}` },
    fields: { 10: value },
  }));
}

/** Three overlapping segments of table 5: later ones overwrite part of earlier ones. */
async function threeSegments(dir: string) {
  const store = await openStore(dir, { segment: { blockRows: 500, compactionTrigger: 100 } });
  for (let s = 0; s < 3; s++) {
    await store.write([payload(5, { 10: 'f64' }, rows(3000, s * 1000, s))]);
    await store.flush();
  }
  return store;
}

function segFiles(dir: string): string[] {
  return fs.readdirSync(path.join(dir, 'seg', '5')).sort();
}

t.test('a crash before or after the manifest switch leaves one complete set live', async (t) => {
  const dir = tempDir(t);
  const store = await threeSegments(dir);
  const expected = scanRows(store, 5, COLUMNS);
  t.equal(expected.length, 5000);
  const before = path.join(tempDir(t), 'before');
  copyDir(dir, before);
  const oldFiles = segFiles(dir);
  await store.compact();
  const newFiles = segFiles(dir);
  t.equal(newFiles.length, 1);
  await store.close();

  // Crash after the output was renamed into place but before the manifest switch.
  const early = path.join(tempDir(t), 'early');
  copyDir(before, early);
  fs.copyFileSync(path.join(dir, 'seg/5', newFiles[0] as string), path.join(early, 'seg/5', newFiles[0] as string));
  let s = await openStore(early);
  t.same(segFiles(early), oldFiles, 'the inputs stay live, the orphan output is deleted');
  t.same(scanRows(s, 5, COLUMNS), expected);
  await s.close();

  // Crash after the manifest switch but before the inputs were deleted.
  const late = path.join(tempDir(t), 'late');
  copyDir(dir, late);
  for (const f of oldFiles) fs.copyFileSync(path.join(before, 'seg/5', f), path.join(late, 'seg/5', f));
  s = await openStore(late);
  t.same(segFiles(late), newFiles, 'the output is live, the old inputs are deleted');
  t.same(scanRows(s, 5, COLUMNS), expected);
  await s.close();
});

t.test('a scan that started before a compaction keeps reading the retired segments', async (t) => {
  const dir = tempDir(t);
  const store = await threeSegments(dir);
  const expected = scanRows(store, 5, COLUMNS).length;
  const iterator = store.scan({ tableId: 5, columns: COLUMNS })[Symbol.iterator]();
  const first = iterator.next();
  t.notOk(first.done);
  let count = first.done ? 0 : first.value.rowCount;
  t.ok(count <= SCAN_CHUNK_ROWS);
  await store.compact();
  t.equal(store.stats().segmentCount, 1);
  for (let r = iterator.next(); !r.done; r = iterator.next()) count += r.value.rowCount;
  t.equal(count, expected, 'the old snapshot is read to the end');
  t.equal(scanRows(store, 5, COLUMNS).length, expected);
  await store.close();
});

t.test('compact leaves tables with a single segment alone', async (t) => {
  const store = await openStore(tempDir(t));
  await store.write([payload(5, { 10: 'f64' }, rows(10, 0, 1))]);
  await store.flush();
  await store.compact();
  t.equal(store.stats().compactions, 0);
  t.equal(store.stats().segmentCount, 1);
  await store.close();
});

t.test(
  "a compaction reads its inputs past the page cache: it neither fills it nor pushes out queries' blocks",
  async (t) => {
    const dir = tempDir(t);
    const store = await openStore(dir, {
      segment: { blockRows: 500, compactionTrigger: 100, pageCacheBytes: 8 << 20 },
    });
    t.teardown(() => store.close());
    for (let s = 0; s < 3; s++) {
      await store.write([payload(5, { 10: 'f64' }, rows(3000, s * 1000, s))]);
      await store.flush();
    }
    const before = pageCacheStats();
    t.equal(before.bytes, 0, 'nothing read yet');
    await store.compact();
    const after = pageCacheStats();
    t.same([after.bytes, after.misses], [0, before.misses], 'the compaction cached and counted no block');
    const answer = scanRows(store, 5, COLUMNS);
    t.equal(answer.length, 5000, 'the compacted segment answers');
    t.ok(pageCacheStats().bytes > 0, 'and a scan caches its blocks');
  },
);
