/**
 * The WAL writer's group commit: `durable()` resolves only once an fdatasync that started after
 * the caller's append has returned, concurrent writes of the store share fdatasyncs, a close
 * settles every waiter, and after a failed fdatasync nothing more of that file is called durable.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { readRecords } from '../../../src/shard/wal/wal-reader.js';
import { WalWriter } from '../../../src/shard/wal/wal-writer.js';
import { type Kinds, openStore, payload, scanRows, tempDir } from '../helpers.js';

const KINDS: Kinds = { 10: 'f64' };

function walDirOf(t: Parameters<typeof tempDir>[0]): string {
  const dir = path.join(tempDir(t), 'wal');
  fs.mkdirSync(dir);
  return dir;
}

t.test("durable() waits for an fdatasync that covers the caller's appends", async (t) => {
  const wal = WalWriter.create(walDirOf(t), 1, true);
  const syncs: number[] = [];
  wal.onSync = (ms) => syncs.push(ms);
  t.resolves(wal.durable(), 'nothing appended: durable at once');
  t.equal(syncs.length, 0, 'and no fdatasync for it');
  wal.append(new Uint8Array([1, 2, 3]));
  const first = wal.durable();
  wal.append(new Uint8Array([4]));
  const second = wal.durable();
  await Promise.all([first, second]);
  t.ok(syncs.length >= 1 && syncs.length <= 2, `${syncs.length} fdatasyncs for two appends`);
  const before = syncs.length;
  await wal.durable();
  t.equal(syncs.length, before, 'no fdatasync when every append is covered');
  wal.close();
});

t.test('close syncs the file and settles its waiters', async (t) => {
  const wal = WalWriter.create(walDirOf(t), 1, true);
  wal.append(new Uint8Array(1000));
  const waiting = wal.durable();
  wal.close();
  await t.resolves(waiting);
});

t.test('a failed fdatasync fails its waiters and every later durable() of the file', async (t) => {
  const wal = WalWriter.create(walDirOf(t), 1, true);
  wal.append(new Uint8Array([1]));
  // The fd closed under the writer: fdatasync fails (EBADF), as a disk error would.
  fs.closeSync((wal as unknown as { fd: number }).fd);
  await t.rejects(wal.durable(), /EBADF/);
  await t.rejects(wal.durable(), /EBADF/, 'sticky');
});

t.test('concurrent store writes share fdatasyncs and every acknowledged row is in the WAL', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir, { wal: { syncMode: 'fsync', segmentBytes: 64 << 20 } });
  const writes = Array.from({ length: 200 }, (_, i) =>
    store.write([payload(1, KINDS, [{ ts: BigInt(i), tags: { 1: 'h' }, fields: { 10: i } }])]),
  );
  await Promise.all(writes);
  const stats = store.stats();
  t.ok(stats.walFsyncs < 200, `${stats.walFsyncs} fdatasyncs for 200 writes`);
  t.equal(scanRows(store, 1, [{ id: 0, kind: 'i64', role: 'time' }]).length, 200);
  // Read from the file itself, as recovery after a crash would.
  const walDir = path.join(dir, 'wal');
  let records = 0;
  for (const name of fs.readdirSync(walDir))
    records += readRecords(fs.readFileSync(path.join(walDir, name)), () => null).records;
  t.equal(records, 200, 'every write is a record in the WAL');
  await store.close();
  const reopened = await openStore(dir);
  t.equal(scanRows(reopened, 1, [{ id: 0, kind: 'i64', role: 'time' }]).length, 200, 'and after reopening');
  await reopened.close();
});
