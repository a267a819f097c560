/**
 * Flush: a frozen memtable stays readable until its segments are live, a failed flush loses
 * nothing and succeeds later, and the WAL is trimmed only after the manifest moved on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import t from 'tap';
import { ErrorCode } from '../../src/shared/errors.js';
import { copyDir, openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

const TIME = [{ id: 0, kind: 'i64' as const, role: 'time' as const }];

function rows(count: number, from = 0): TestRow[] {
  return Array.from({ length: count }, (_, i) => ({
    ts: BigInt(from + i),
    tags: { 1: `h${i % 10}` },
    fields: { 10: i },
  }));
}

t.test('a failed flush keeps rows readable and durable, and a later flush succeeds', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  await store.write([payload(5, { 10: 'f64' }, rows(100))]);
  // A plain file where the table's segment directory should go makes the flush fail.
  fs.writeFileSync(path.join(dir, 'seg', '5'), 'in the way');
  await t.rejects(store.flush(), { code: ErrorCode.StorageUnavailable });
  t.equal(scanRows(store, 5, TIME).length, 100, 'the frozen memtable is still read');
  t.equal(store.stats().memtableRows, 100);
  t.equal(store.stats().segmentCount, 0);

  const crashed = path.join(tempDir(t), 'copy');
  copyDir(dir, crashed);
  fs.rmSync(path.join(crashed, 'seg', '5'));
  const recovered = await openStore(crashed);
  t.equal(scanRows(recovered, 5, TIME).length, 100, 'the WAL still holds the rows');
  await recovered.close();

  fs.rmSync(path.join(dir, 'seg', '5'));
  await store.write([payload(5, { 10: 'f64' }, rows(10, 1000))]);
  await store.flush();
  t.equal(store.stats().segmentCount, 2, 'one segment per frozen memtable');
  t.equal(store.stats().memtableRows, 0);
  t.equal(scanRows(store, 5, TIME).length, 110);
  await store.close();
});

t.test('scans during a flush see every row exactly once', async (t) => {
  const store = await openStore(tempDir(t), { segment: { blockRows: 4096, compactionTrigger: 100 } });
  const n = 200_000;
  for (let i = 0; i < n; i += 50_000) await store.write([payload(5, { 10: 'f64' }, rows(50_000, i))]);
  let done = false;
  const flushing = store.flush().then(() => {
    done = true;
  });
  let scans = 0;
  while (!done) {
    t.equal(scanRows(store, 5, TIME).length, n);
    scans++;
    await nextTurn();
  }
  await flushing;
  t.ok(scans > 1, `scanned ${scans} times while flushing`);
  t.equal(scanRows(store, 5, TIME).length, n);
  await store.close();
});

t.test('flush with nothing to flush resolves and changes nothing', async (t) => {
  const store = await openStore(tempDir(t));
  await store.flush();
  t.equal(store.stats().flushes, 0);
  t.equal(store.stats().segmentCount, 0);
  await store.close();
});

t.test('close does not flush: rows come back from the WAL', async (t) => {
  const dir = tempDir(t);
  let store = await openStore(dir);
  await store.write([payload(5, { 10: 'f64' }, rows(10))]);
  await store.close();
  t.same(fs.readdirSync(path.join(dir, 'seg')), []);
  store = await openStore(dir);
  t.equal(store.stats().recovery.replayedRows, 10);
  await store.close();
});

t.test('a failed background flush is retried by a later write', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir, { memtable: { flushBytes: 32 * 1024, rejectBytes: 0 } });
  fs.writeFileSync(path.join(dir, 'seg', '5'), 'in the way');
  await store.write([payload(5, { 10: 'f64' }, rows(2000))]);
  await new Promise((r) => setTimeout(r, 100));
  t.equal(store.stats().flushes, 0, 'the background flush failed');
  t.equal(scanRows(store, 5, TIME).length, 2000);

  fs.rmSync(path.join(dir, 'seg', '5'));
  await new Promise((r) => setTimeout(r, 1100));
  await store.write([payload(5, { 10: 'f64' }, rows(1, 5000))]);
  for (let i = 0; i < 100 && store.stats().flushes === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.ok(store.stats().flushes >= 1, 'the retry succeeded');
  t.equal(scanRows(store, 5, TIME).length, 2001);
  await store.close();
});
