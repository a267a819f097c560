/**
 * `ShardStore.writeApplied`: the write the router's tasks make. It answers once the group is
 * appended and applied, without an fdatasync of its own, naming the WAL appends the router must
 * sync; the records are in the file when it answers (what the router's fdatasync then covers),
 * and `leaveFailedWal` moves later writes to a fresh file.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { readRecords } from '../../src/shard/wal/wal-reader.js';
import { type Kinds, openStore, payload, scanRows, tempDir } from './helpers.js';

const KINDS: Kinds = { 10: 'f64' };
const TIME = [{ id: 0, kind: 'i64' as const, role: 'time' as const }];

const row = (i: number) => ({ ts: BigInt(i), tags: { 1: 'h' }, fields: { 10: i } });

function recordsIn(file: string): number {
  return readRecords(fs.readFileSync(file), () => null).records;
}

t.test('answers with the appends to sync, and makes no fdatasync itself', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir, { wal: { syncMode: 'fsync', segmentBytes: 64 << 20 } });
  const first = await store.writeApplied([payload(1, KINDS, [row(1)])]);
  const second = await store.writeApplied([payload(1, KINDS, [row(2)]), payload(1, KINDS, [row(3)])]);
  t.same(first.refused, []);
  t.ok(first.sync !== null && second.sync !== null);
  const a = first.sync as NonNullable<typeof first.sync>;
  const b = second.sync as NonNullable<typeof second.sync>;
  t.equal(b.file, a.file, 'the same WAL file');
  t.equal(b.appends, a.appends + 1, 'one append a group');
  t.equal(path.dirname(a.path), path.join(dir, 'wal'));
  t.equal(recordsIn(a.path), 3, 'every payload is a record in the file when the write answers');
  t.equal(store.stats().walFsyncs, 0, 'no fdatasync in the shard');
  t.equal(scanRows(store, 1, TIME).length, 3, 'rows readable from the memtable');
  await store.close();
});

t.test('nothing to sync with wal.sync_mode = none', async (t) => {
  const store = await openStore(tempDir(t), { wal: { syncMode: 'none', segmentBytes: 64 << 20 } });
  const applied = await store.writeApplied([payload(1, KINDS, [row(1)])]);
  t.equal(applied.sync, null);
  await store.close();
});

t.test('after leaveFailedWal, writes go to a fresh file; a stale file number changes nothing', async (t) => {
  const store = await openStore(tempDir(t), { wal: { syncMode: 'fsync', segmentBytes: 64 << 20 } });
  const before = await store.writeApplied([payload(1, KINDS, [row(1)])]);
  const failed = (before.sync as NonNullable<typeof before.sync>).file;
  await store.leaveFailedWal(failed);
  const after = await store.writeApplied([payload(1, KINDS, [row(2)])]);
  const next = (after.sync as NonNullable<typeof after.sync>).file;
  t.ok(next > failed, `file ${next} after the failed ${failed}`);
  await store.leaveFailedWal(failed);
  const again = await store.writeApplied([payload(1, KINDS, [row(3)])]);
  t.equal((again.sync as NonNullable<typeof again.sync>).file, next, 'an older number does not rotate again');
  await store.close();
});
