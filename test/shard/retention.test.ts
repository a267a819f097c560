/**
 * Retention in the shard: a retention step retires segments whose rows are all past the ttl and
 * nothing else; rows are not hidden at query time; a compaction that includes the table's oldest
 * segment cuts the expired rows out of a segment straddling the boundary.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { expiryCutoff } from '../../src/shared/ttl.js';
import { openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

const COLUMNS = [
  { id: 1, kind: 'str' as const, role: 'tag' as const },
  { id: 0, kind: 'i64' as const, role: 'time' as const },
  { id: 10, kind: 'f64' as const, role: 'field' as const },
];
// Passes on (0 turns them off, also those a ttl change starts), the timer too far off to fire here.
const PASSES_ON = { retentionCheckIntervalMs: 3_600_000 };
const HOUR_MS = 3_600_000;
const RETENTION = { tableId: 5, ttlMs: HOUR_MS, unitsPerSecond: 1000 };

/** `count` rows one minute apart from `fromMs`. */
function rows(count: number, fromMs: number): TestRow[] {
  return Array.from({ length: count }, (_, i) => ({
    ts: BigInt(fromMs + i * 60_000),
    tags: { 1: `h${i % 3}` },
    fields: { 10: i },
  }));
}

function segFiles(dir: string): string[] {
  return fs.readdirSync(path.join(dir, 'seg', '5')).sort();
}

t.test('the cutoff is now minus the ttl in the time index unit; instant expires everything', async (t) => {
  const now = 1_700_000_000_500;
  t.equal(expiryCutoff(RETENTION, now), BigInt(now - HOUR_MS));
  t.equal(expiryCutoff({ ...RETENTION, unitsPerSecond: 1 }, now), BigInt(Math.ceil((now - HOUR_MS) / 1000)));
  t.equal(expiryCutoff({ ...RETENTION, unitsPerSecond: 1e9 }, now), BigInt(now - HOUR_MS) * 1_000_000n);
  t.equal(expiryCutoff({ ...RETENTION, ttlMs: 0 }, now), 2n ** 63n - 1n);
});

t.test('a retention step retires wholly expired segments and keeps one that straddles the ttl', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir, PASSES_ON);
  t.teardown(() => store.close());
  const now = Date.now();
  await store.write([payload(5, { 10: 'f64' }, rows(30, now - 3 * HOUR_MS))]);
  await store.flush();
  // Two hours of minutes from two hours ago: half of it is past the ttl.
  await store.write([payload(5, { 10: 'f64' }, rows(120, now - 2 * HOUR_MS + 30_000))]);
  await store.flush();
  const files = segFiles(dir);
  t.equal(files.length, 2);

  store.setRetention([RETENTION]);
  await store.flush(); // queued behind the retention step
  t.same(segFiles(dir), files.slice(1), 'the expired segment is gone from disk');
  t.equal(scanRows(store, 5, COLUMNS).length, 120, 'the straddling segment keeps all its rows until compacted');
  t.equal(store.stats().segmentsExpired, 1);
  t.equal(store.stats().rowsExpired, 30);
});

t.test('a compaction over the oldest segment cuts the rows past the ttl', async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir, PASSES_ON);
  t.teardown(() => store.close());
  const now = Date.now();
  await store.write([payload(5, { 10: 'f64' }, rows(120, now - 2 * HOUR_MS + 30_000))]);
  await store.flush();
  await store.write([payload(5, { 10: 'f64' }, rows(10, now))]);
  await store.flush();
  store.setRetention([RETENTION]);
  t.equal(scanRows(store, 5, COLUMNS).length, 130, 'expired rows are not hidden at query time');

  await store.compact();
  const kept = scanRows(store, 5, COLUMNS);
  const cutoff = now - HOUR_MS;
  t.ok(kept.length >= 69 && kept.length <= 71, `only the rows inside the ttl are left (${kept.length})`);
  t.ok(
    kept.every((r) => Number(r.ts) >= cutoff - 1000),
    'none of them is past the ttl',
  );
  t.equal(segFiles(dir).length, 1);
});

t.test("rows of an 'instant' table are not kept", async (t) => {
  const dir = tempDir(t);
  const store = await openStore(dir, PASSES_ON);
  t.teardown(() => store.close());
  store.setRetention([{ ...RETENTION, ttlMs: 0 }]);
  await store.write([payload(5, { 10: 'f64' }, rows(10, Date.now()))]);
  t.equal(scanRows(store, 5, COLUMNS).length, 0);
});
