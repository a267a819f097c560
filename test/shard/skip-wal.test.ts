/**
 * ShardStore with tables that skip the WAL (skip-wal.ts): no record for a payload of such tables
 * alone, a crash (a copy of the directory) loses their unflushed rows only, a close flushes them,
 * and a flush with such rows still deletes exactly the WAL files it covers.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ShardStore } from '../../src/shard/store.js';
import type { ScanColumn } from '../../src/shared/scan.js';
import { copyDir, type Kinds, payload, scanRows, shardConfig, silentLog, type TestRow, tempDir } from './helpers.js';

const KINDS: Kinds = { 10: 'f64' };
const COLUMNS: ScanColumn[] = [
  { id: 1, kind: 'str', role: 'tag' },
  { id: 0, kind: 'i64', role: 'time' },
  { id: 10, kind: 'f64', role: 'field' },
];
const SKIPPED = 8;
const LOGGED = 7;

function rows(n: number, from = 0): TestRow[] {
  return Array.from({ length: n }, (_, i) => ({
    ts: 1_700_000_000_000n + BigInt(from + i) * 1000n,
    tags: { 1: `h${i % 4}` },
    fields: { 10: from + i },
  }));
}

const open = (dir: string, overrides = {}) => ShardStore.open(shardConfig(dir, overrides), silentLog, [], [SKIPPED]);
const count = (store: ShardStore, tableId: number) => scanRows(store, tableId, COLUMNS).length;

function crashCopy(t: Parameters<typeof tempDir>[0], dir: string): string {
  const copy = path.join(tempDir(t), 'copy');
  copyDir(dir, copy);
  return copy;
}

t.test('a payload of skip_wal tables alone is not logged; a crash loses it, not the logged ones', async (t) => {
  const dir = tempDir(t);
  const store = await open(dir);
  await store.write([payload(SKIPPED, KINDS, rows(10))]);
  t.equal(store.stats().walBytesWritten, 0, 'nothing logged');
  t.equal(count(store, SKIPPED), 10, 'but readable');
  await store.write([payload(SKIPPED, KINDS, rows(5, 100)), payload(LOGGED, KINDS, rows(20))]);
  const logged = store.stats().walBytesWritten;
  t.ok(logged > 0, 'the normal table is logged in the same group');

  const recovered = await open(crashCopy(t, dir));
  t.equal(count(recovered, LOGGED), 20);
  t.equal(count(recovered, SKIPPED), 0, 'unflushed skip_wal rows are gone after a crash');
  await recovered.close();

  store.setSkipWal([]);
  await store.write([payload(SKIPPED, KINDS, rows(3, 200))]);
  t.ok(store.stats().walBytesWritten > logged, 'once the option is off, the table is logged');
  await store.close();
});

t.test('close flushes unlogged rows; without them it leaves the memtable to the WAL', async (t) => {
  const dir = tempDir(t);
  let store = await open(dir);
  await store.write([payload(LOGGED, KINDS, rows(20))]);
  await store.close();
  store = await open(dir);
  t.equal(store.stats().segmentCount, 0, 'no unlogged rows: no flush at close');
  t.equal(count(store, LOGGED), 20);
  await store.write([payload(SKIPPED, KINDS, rows(10))]);
  await store.close();
  store = await open(dir);
  t.equal(count(store, SKIPPED), 10, 'unlogged rows were flushed at close');
  t.equal(count(store, LOGGED), 20);
  await store.close();
});

t.test('a flush holding unlogged rows deletes exactly the WAL files it covers', async (t) => {
  const dir = tempDir(t);
  const store = await open(dir, { wal: { syncMode: 'fsync', segmentBytes: 1024 } });
  for (let i = 0; i < 6; i++) {
    await store.write([payload(LOGGED, KINDS, rows(10, i * 10))]);
    await store.write([payload(SKIPPED, KINDS, rows(10, i * 10))]);
  }
  await store.flush();
  t.equal(fs.readdirSync(path.join(dir, 'wal')).length, 1, 'only the current WAL file remains');
  await store.write([payload(LOGGED, KINDS, rows(10, 1000))]);
  await store.write([payload(SKIPPED, KINDS, rows(10, 1000))]);
  const recovered = await open(crashCopy(t, dir));
  t.equal(count(recovered, LOGGED), 70, 'flushed and logged rows');
  t.equal(count(recovered, SKIPPED), 60, 'flushed rows only');
  await recovered.close();
  await store.close();
});
