/**
 * The router's fdatasyncs of a shard's WAL appends (src/router/wal-sync.ts), on real files: a
 * ticket resolves once an fdatasync that started after it arrived returns, tickets that arrive
 * together share fdatasyncs, a failed fdatasync fails that file's tickets for good and tells the
 * shard once, a file already deleted (flushed) counts as durable, and older files are closed once
 * nothing waits on them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { WalSync } from '../../src/router/wal-sync.js';

function walFile(t: { teardown(fn: () => void): void }, name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-walsync-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.alloc(4096, 1));
  return file;
}

/** The descriptors WalSync holds, by file number (private state, read to check it closes them). */
function openFiles(sync: WalSync): Map<number, { fd: number; syncs: object }> {
  return (sync as unknown as { files: Map<number, { fd: number; syncs: object }> }).files;
}

t.test('a ticket resolves after an fdatasync; a covered one needs none', async (t) => {
  const file = walFile(t, '1.wal');
  const sync = new WalSync(0, () => t.fail('no failure expected'));
  await sync.durable({ file: 1, path: file, appends: 1 });
  t.equal(sync.stats().syncs, 1);
  t.equal(sync.stats().timing.count, 1, 'timed');
  await sync.durable({ file: 1, path: file, appends: 1 });
  t.equal(sync.stats().syncs, 1, 'appends already covered: no second fdatasync');
  await sync.durable({ file: 1, path: file, appends: 2 });
  t.equal(sync.stats().syncs, 2, 'a later append needs one');
  sync.close();
});

t.test('tickets that arrive together share fdatasyncs', async (t) => {
  const file = walFile(t, '1.wal');
  const sync = new WalSync(0, () => t.fail('no failure expected'));
  await Promise.all(Array.from({ length: 50 }, (_, i) => sync.durable({ file: 1, path: file, appends: i + 1 })));
  const n = sync.stats().syncs;
  t.ok(n >= 1 && n <= 2, `${n} fdatasyncs for 50 tickets`);
  sync.close();
});

t.test("a failed fdatasync fails the file's tickets for good and tells the shard once", async (t) => {
  const file = walFile(t, '7.wal');
  const other = walFile(t, '8.wal');
  const failed: number[] = [];
  const sync = new WalSync(3, (n) => failed.push(n));
  await sync.durable({ file: 7, path: file, appends: 1 });
  // Its group commit pointed at a descriptor that is not open: fdatasync fails (EBADF), as a disk
  // error would (closing the real one could hand its number to the next file opened).
  const open = openFiles(sync).get(7) as { syncs: object };
  (open.syncs as { fd: number }).fd = 1 << 30;
  await t.rejects(sync.durable({ file: 7, path: file, appends: 2 }), {
    code: 5000,
    message: /WAL write failed in shard 3/,
  });
  await t.rejects(sync.durable({ file: 7, path: file, appends: 3 }), /WAL write failed/, 'sticky');
  t.same(failed, [7], 'the shard is told once');
  await t.resolves(sync.durable({ file: 8, path: other, appends: 1 }), 'the next file is synced');
  t.same(failed, [7]);
  t.same([...openFiles(sync).keys()], [8], 'the failed file closed once nothing waits on it');
  sync.close();
});

t.test('a file already deleted counts as durable (a flush made its rows durable first)', async (t) => {
  const sync = new WalSync(0, () => t.fail('no failure expected'));
  await t.resolves(sync.durable({ file: 5, path: path.join(os.tmpdir(), 'shoaldb-no-such-dir', '5.wal'), appends: 1 }));
  t.equal(sync.stats().syncs, 0);
});

t.test('an older file is closed once a newer one is synced and nothing waits on it', async (t) => {
  const first = walFile(t, '1.wal');
  const second = walFile(t, '2.wal');
  const sync = new WalSync(0, () => t.fail('no failure expected'));
  await sync.durable({ file: 1, path: first, appends: 1 });
  t.same([...openFiles(sync).keys()], [1]);
  await sync.durable({ file: 2, path: second, appends: 1 });
  t.same([...openFiles(sync).keys()], [2], 'file 1 closed');
  sync.close();
  t.equal(openFiles(sync).size, 0);
});
