/**
 * The MANIFEST decides what is live: it lists segments, the flushed WAL point and merge modes;
 * files it does not list are deleted at open; a damaged one is quarantined and rebuilt from the segment files.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { Manifest } from '../../src/shard/manifest.js';
import { ErrorCode } from '../../src/shared/errors.js';
import { openStore, payload, scanRows, tempDir } from './helpers.js';

const TIME = [{ id: 0, kind: 'i64' as const, role: 'time' as const }];

t.test('the manifest lists live segments, the flushed WAL file and merge modes', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  await store.write([
    payload(
      5,
      {},
      [
        { ts: 10n, tags: { 1: 'a' } },
        { ts: -3n, tags: { 1: 'b' } },
      ],
      'append',
    ),
  ]);
  await store.flush();
  await store.dropTables([6]);
  await store.close();
  const m = JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST'), 'utf8')) as Manifest;
  t.equal(m.formatVersion, 1);
  t.equal(m.walFlushedFile, 1);
  t.same(m.droppedTables, [6]);
  t.equal(m.tables['5']?.mergeMode, 'append');
  const [seg] = m.tables['5']?.segments ?? [];
  t.match(seg, { id: 1, file: 'seg/5/1.seg', rows: 2, minTs: '-3', maxTs: '10' });
  t.equal(seg?.bytes, fs.statSync(path.join(dir, 'seg/5/1.seg')).size);
  t.ok((m.nextSegmentId as number) > 1);
});

t.test('files the manifest does not list are deleted at open', async (t) => {
  const dir = tempDir(t);
  let store = await openStore(dir);
  await store.write([payload(5, {}, [{ ts: 1n, tags: { 1: 'a' } }])]);
  await store.flush();
  await store.close();
  const orphans = ['seg/5/77.seg', 'seg/5/78.seg.tmp', 'seg/9/1.seg', 'seg/stray', 'MANIFEST.tmp'];
  fs.mkdirSync(path.join(dir, 'seg/9'));
  for (const f of orphans) fs.writeFileSync(path.join(dir, f), 'junk');

  store = await openStore(dir);
  for (const f of orphans) t.notOk(fs.existsSync(path.join(dir, f)), `${f} is gone`);
  t.notOk(fs.existsSync(path.join(dir, 'seg/9')), 'an emptied table directory is removed');
  t.ok(fs.existsSync(path.join(dir, 'seg/5/1.seg')), 'the live segment stays');
  t.equal(scanRows(store, 5, TIME).length, 1);
  await store.close();
});

t.test('a damaged manifest is quarantined and rebuilt; a newer format version fails open', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  await store.write([payload(5, {}, [{ ts: 1n, tags: { 1: 'a' } }])]);
  await store.flush();
  await store.close();
  fs.writeFileSync(path.join(dir, 'MANIFEST'), '{"formatVersion": 1, "tables": ');
  const reopened = await openStore(dir);
  const { recovery, segmentCount } = reopened.stats();
  t.equal(recovery.manifestRebuilt, true);
  t.match(recovery.quarantined, [
    /^MANIFEST: .*not valid JSON.*rebuilt from 1 segment files.*quarantine\/MANIFEST\.\d+/,
  ]);
  t.equal(segmentCount, 1, 'the segment is live again');
  t.equal(scanRows(reopened, 5, []).length, 1, 'its row is readable');
  await reopened.close();
  t.equal(fs.readdirSync(path.join(dir, 'quarantine')).length, 1, 'the damaged file is kept for inspection');
  fs.writeFileSync(path.join(dir, 'MANIFEST'), JSON.stringify({ formatVersion: 2 }));
  await t.rejects(openStore(dir), { code: ErrorCode.StorageUnavailable, message: /unsupported format version 2/ });
});

t.test('open creates a missing directory tree', async (t) => {
  const dir = path.join(tempDir(t), 'a', 'b', 'shards', '3');
  const store = await openStore(dir);
  t.ok(fs.existsSync(path.join(dir, 'wal')));
  t.ok(fs.existsSync(path.join(dir, 'seg')));
  t.equal(store.stats().ready, true);
  t.equal(store.stats().walFiles, 1);
  await store.close();
});

t.test('a rebuilt manifest does not hand out the id of a quarantined segment again', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir);
  for (const ts of [1n, 2n]) {
    await store.write([payload(5, {}, [{ ts, tags: { 1: 'a' } }])]);
    await store.flush();
  }
  await store.close();
  const newest = path.join(dir, 'seg', '5', '2.seg');
  const bytes = fs.readFileSync(newest);
  bytes[20] = (bytes[20] as number) ^ 0xff;
  fs.writeFileSync(newest, bytes);
  let reopened = await openStore(dir);
  t.equal(reopened.stats().recovery.segmentsQuarantined, 1);
  await reopened.close();
  fs.writeFileSync(path.join(dir, 'MANIFEST'), '{');
  reopened = await openStore(dir);
  t.equal(reopened.stats().recovery.manifestRebuilt, true);
  await reopened.close();
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST'), 'utf8')) as Manifest;
  t.ok(manifest.nextSegmentId > 2, `next id ${manifest.nextSegmentId} is past the quarantined 2`);
});
