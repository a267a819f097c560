/**
 * ShardStore end to end on real directories: what is written reads back the same from the
 * memtable, from segments, after compaction, after a clean reopen and after a crash.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { ScanColumn } from '../../src/shared/scan.js';
import { copyDir, type Kinds, openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

const KINDS: Kinds = { 10: 'f64', 11: 'i64', 12: 'u64', 13: 'bool', 14: 'str' };
const COLUMNS: ScanColumn[] = [
  { id: 1, kind: 'str', role: 'tag' },
  { id: 2, kind: 'str', role: 'tag' },
  { id: 0, kind: 'i64', role: 'time' },
  { id: 10, kind: 'f64', role: 'field' },
  { id: 11, kind: 'i64', role: 'field' },
  { id: 12, kind: 'u64', role: 'field' },
  { id: 13, kind: 'bool', role: 'field' },
  { id: 14, kind: 'str', role: 'field' },
];

/** Rows of every kind, with NULLs, extremes, an absent tag and out-of-order timestamps. */
function sampleRows(): TestRow[] {
  const rows: TestRow[] = [];
  for (let i = 0; i < 300; i++) {
    rows.push({
      ts: 1_700_000_000_000n + BigInt((i * 7919) % 300) * 1000n,
      tags: { 1: `host-${i % 3}`, 2: i % 5 === 0 ? null : 'eu' },
      fields: {
        10: i % 11 === 0 ? null : i / 3,
        11: i % 13 === 0 ? null : BigInt(i) * -123456789012n,
        12: i === 1 ? 2n ** 64n - 1n : BigInt(i),
        13: i % 17 === 0 ? null : i % 2 === 0,
        14: i % 19 === 0 ? null : `s${i}-ü`,
      },
    });
  }
  rows.push({ ts: -(2n ** 63n), tags: { 1: 'edge' }, fields: { 11: -(2n ** 63n), 10: Number.NaN } });
  rows.push({ ts: 2n ** 63n - 2n, tags: { 1: 'edge' }, fields: { 11: 2n ** 63n - 1n, 10: -0 } });
  return rows;
}

/** What a scan must return for `rows` (all unique per series and time): sorted by series key, time. */
function expectedRows(rows: TestRow[]) {
  const key = (r: TestRow) =>
    Object.entries(r.tags ?? {})
      .filter(([, v]) => v !== null)
      .map(([id, v]) => `${id},${(v as string).length}:${v}`)
      .join('');
  return rows
    .slice()
    .sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      if (ka !== kb) return ka < kb ? -1 : 1;
      return a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0;
    })
    .map((r) => ({
      t1: r.tags?.[1] ?? null,
      t2: r.tags?.[2] ?? null,
      ts: r.ts,
      f10: r.fields?.[10] ?? null,
      f11: r.fields?.[11] ?? null,
      f12: r.fields?.[12] ?? null,
      f13: r.fields?.[13] ?? null,
      f14: r.fields?.[14] ?? null,
    }));
}

t.test('write then scan returns every kind, NULLs and extremes in (series, time) order', async (t) => {
  const store = await openStore(tempDir(t));
  const rows = sampleRows();
  await store.write([payload(7, KINDS, rows.slice(0, 150)), payload(7, KINDS, rows.slice(150))]);
  t.same(scanRows(store, 7, COLUMNS), expectedRows(rows));
  const stats = store.stats();
  t.equal(stats.ready, true);
  t.equal(stats.rowsWritten, rows.length);
  t.equal(stats.walFsyncs, 1, 'one group commit, one fsync');
  t.ok(stats.walBytesWritten > 0);
  t.equal(stats.memtableRows, rows.length);
  t.ok(stats.memtableBytes > 0);
  await store.close();
});

t.test('flush then scan gives identical rows, from a segment', async (t) => {
  const store = await openStore(tempDir(t), { segment: { blockRows: 64, compactionTrigger: 100 } });
  const rows = sampleRows();
  await store.write([payload(7, KINDS, rows)]);
  const before = scanRows(store, 7, COLUMNS);
  await store.flush();
  const stats = store.stats();
  t.equal(stats.memtableRows, 0);
  t.equal(stats.segmentCount, 1);
  t.equal(stats.flushes, 1);
  t.ok(stats.segmentBytes > 0);
  t.same(scanRows(store, 7, COLUMNS), before);
  await store.close();
});

t.test('compaction then scan gives identical rows from fewer segments', async (t) => {
  const store = await openStore(tempDir(t), { segment: { blockRows: 50, compactionTrigger: 100 } });
  const rows = sampleRows();
  for (let i = 0; i < rows.length; i += 60) {
    await store.write([payload(7, KINDS, rows.slice(i, i + 60))]);
    await store.flush();
  }
  t.equal(store.stats().segmentCount, 6);
  const before = scanRows(store, 7, COLUMNS);
  t.same(before, expectedRows(rows));
  await store.compact();
  t.equal(store.stats().segmentCount, 1);
  t.equal(store.stats().compactions, 1);
  t.same(scanRows(store, 7, COLUMNS), before);
  await store.close();
});

t.test('reopen after close replays the WAL', async (t) => {
  const dir = tempDir(t);
  let store = await openStore(dir);
  const rows = sampleRows();
  await store.write([payload(7, KINDS, rows.slice(0, 100))]);
  await store.write([payload(7, KINDS, rows.slice(100))]);
  await store.close();
  store = await openStore(dir);
  t.same(scanRows(store, 7, COLUMNS), expectedRows(rows));
  t.equal(store.stats().recovery.replayedRecords, 2);
  t.equal(store.stats().recovery.replayedRows, rows.length);
  t.same(store.stats().recovery.cuts, []);
  await store.close();
});

t.test('a write whose promise resolved survives a crash', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  const rows = sampleRows();
  await store.write([payload(7, KINDS, rows)]);
  // Copy the directory as a SIGKILL would leave it: no close, no flush.
  const crashed = path.join(tempDir(t), 'copy');
  copyDir(dir, crashed);
  const recovered = await openStore(crashed);
  t.same(scanRows(recovered, 7, COLUMNS), expectedRows(rows));
  await recovered.close();
  await store.close();
});

t.test('segments and WAL both recover after a crash that followed a flush', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  const rows = sampleRows();
  await store.write([payload(7, KINDS, rows.slice(0, 200))]);
  await store.flush();
  await store.write([payload(7, KINDS, rows.slice(200))]);
  const crashed = path.join(tempDir(t), 'copy');
  copyDir(dir, crashed);
  const recovered = await openStore(crashed);
  t.equal(recovered.stats().segmentCount, 1);
  t.equal(recovered.stats().recovery.replayedRows, rows.length - 200, 'only unflushed rows are replayed');
  t.same(scanRows(recovered, 7, COLUMNS), expectedRows(rows));
  await recovered.close();
  await store.close();
});

t.test('flush deletes the WAL files it made redundant', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir, { wal: { syncMode: 'fsync', segmentBytes: 2048 } });
  for (let i = 0; i < 10; i++) {
    await store.write([payload(7, KINDS, sampleRows().slice(i * 20, i * 20 + 20))]);
  }
  const walFiles = () => fs.readdirSync(path.join(dir, 'wal')).length;
  t.ok(walFiles() > 2, `the WAL rotated past wal.segmentBytes (${walFiles()} files)`);
  t.equal(store.stats().walFiles, walFiles());
  await store.flush();
  t.equal(walFiles(), 1, 'only the new current WAL file remains');
  t.equal(store.stats().walFiles, 1);
  await store.close();
});

t.test('dropTables removes a table from memtable and segments, also after reopen', async (t) => {
  const dir = tempDir(t);
  let store = await openStore(dir);
  const rows = sampleRows();
  await store.write([payload(7, KINDS, rows.slice(0, 100)), payload(8, KINDS, rows.slice(0, 10))]);
  await store.flush();
  await store.write([payload(7, KINDS, rows.slice(100))]);
  await store.dropTables([7]);
  t.same(scanRows(store, 7, COLUMNS), []);
  t.equal(scanRows(store, 8, COLUMNS).length, 10, 'other tables stay');
  t.notOk(fs.existsSync(path.join(dir, 'seg', '7')), 'segment files are gone');
  await store.close();

  store = await openStore(dir);
  t.same(scanRows(store, 7, COLUMNS), [], 'WAL records of the dropped table are not replayed');
  t.equal(scanRows(store, 8, COLUMNS).length, 10);
  await store.write([payload(7, KINDS, rows.slice(0, 5))]);
  t.same(scanRows(store, 7, COLUMNS), [], 'late writes to a dropped table are ignored');
  await store.close();
});

t.test('a field that appears only in later writes reads NULL for earlier rows', async (t) => {
  const store = await openStore(tempDir(t));
  const cols: ScanColumn[] = [
    { id: 0, kind: 'i64', role: 'time' },
    { id: 10, kind: 'f64', role: 'field' },
    { id: 20, kind: 'str', role: 'field' },
  ];
  await store.write([payload(7, { 10: 'f64' }, [{ ts: 1n, tags: { 1: 'a' }, fields: { 10: 1 } }])]);
  await store.flush();
  await store.write([payload(7, { 10: 'f64' }, [{ ts: 2n, tags: { 1: 'a' }, fields: { 10: 2 } }])]);
  await store.write([
    payload(7, { 10: 'f64', 20: 'str' }, [{ ts: 3n, tags: { 1: 'a' }, fields: { 10: 3, 20: 'new' } }]),
  ]);
  const expected = [
    { ts: 1n, f10: 1, f20: null },
    { ts: 2n, f10: 2, f20: null },
    { ts: 3n, f10: 3, f20: 'new' },
  ];
  t.same(scanRows(store, 7, cols), expected, 'across segment and memtable');
  await store.flush();
  await store.compact();
  t.same(scanRows(store, 7, cols), expected, 'after flush and compaction');
  await store.close();
});

t.test('a background flush starts when the memtable passes memtable.flushBytes', async (t) => {
  const store = await openStore(tempDir(t), { memtable: { flushBytes: 64 * 1024, rejectBytes: 0 } });
  const rows = sampleRows().slice(0, 300);
  for (let i = 0; i < 20; i++) {
    await store.write([
      payload(
        7,
        KINDS,
        rows.map((r) => ({ ...r, ts: r.ts + BigInt(i) })),
      ),
    ]);
  }
  for (let i = 0; i < 100 && store.stats().flushes === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.ok(store.stats().flushes > 0, 'flushed without being asked');
  t.ok(store.stats().segmentCount > 0);
  t.equal(scanRows(store, 7, [{ id: 0, kind: 'i64', role: 'time' }]).length, 20 * rows.length);
  await store.close();
});

t.test('background compaction runs once a table reaches segment.compactionTrigger', async (t) => {
  const store = await openStore(tempDir(t), { segment: { blockRows: 100, compactionTrigger: 3 } });
  const rows = sampleRows();
  for (let i = 0; i < 3; i++) {
    await store.write([payload(7, KINDS, rows.slice(i * 100, i * 100 + 100))]);
    await store.flush();
  }
  for (let i = 0; i < 100 && store.stats().compactions === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(store.stats().compactions, 1);
  t.equal(store.stats().segmentCount, 1);
  t.same(scanRows(store, 7, COLUMNS), expectedRows(rows.slice(0, 300)));
  await store.close();
});

t.test('a malformed payload is refused before it reaches the WAL', async (t) => {
  const store = await openStore(tempDir(t));
  await t.rejects(store.write([new Uint8Array([0xc1, 0x00])]), { code: 1004 });
  t.equal(store.stats().walBytesWritten, 0);
  await store.close();
});

t.test('an out-of-order series of many strings reads back whole from the memtable and a segment', async (t) => {
  // Strings of a series written out of order are decoded a window of the memtable's bytes at a
  // time (text-column.ts gatherStrings): rows here come from 12 interleaved writes (more places than
  // windows kept), with NULLs, values longer than a window and non-ASCII ones, in runs of 256.
  const store = await openStore(tempDir(t));
  const streams = 12;
  const perStream = 400;
  const rows: TestRow[] = [];
  for (let s = 0; s < streams; s++) {
    for (let i = 0; i < perStream; i++) {
      const n = s * perStream + i;
      const text =
        n % 97 === 0
          ? null
          : n % 1013 === 0
            ? `long-${n}-${'x'.repeat(40_000)}`
            : s === 5 && i % 50 === 0
              ? `naïve ✓ ${n}`
              : `GET /api/v1/items/${n} HTTP/1.1`;
      rows.push({ ts: 1_700_000_000_000n + BigInt(i * streams + s), tags: { 1: 'web' }, fields: { 14: text } });
    }
  }
  const payloads = [];
  for (let s = 0; s < streams; s++) payloads.push(payload(7, KINDS, rows.slice(s * perStream, (s + 1) * perStream)));
  for (const p of payloads) await store.write([p]);
  const cols: ScanColumn[] = [
    { id: 0, kind: 'i64', role: 'time' },
    { id: 14, kind: 'str', role: 'field' },
  ];
  const expected = rows
    .slice()
    .sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0))
    .map((r) => ({ ts: r.ts, f14: r.fields?.[14] ?? null }));
  t.same(scanRows(store, 7, cols), expected, 'from the memtable');
  await store.flush();
  t.same(scanRows(store, 7, cols), expected, 'from a segment');
  await store.close();
});
