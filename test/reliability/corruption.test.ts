/**
 * Damage done to the files while the server is stopped (docs/reliability.md): bytes flipped or
 * cut in the WAL tail, in one segment and in the MANIFEST. The server must start, say precisely
 * what it cut or quarantined (file, offset or block), keep every other row, and count it in
 * /metrics; the next start is clean again.
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Manifest } from '../../src/shard/manifest.js';
import { HEADER_BYTES } from '../../src/shard/segment/format.js';
import { metricSum, sql, startServer, type TestServer, tempDir, writeLines } from '../helpers/server.js';

// One shard, small memtables and no compaction: the victim table ends up in several segments.
const TOML = '[memtable]\nflush_size = "64KiB"\n[segment]\ncompaction_trigger = 1000\nblock_rows = 256\n';
const ROWS = 200;

function batch(table: string, b: number): string {
  return Array.from({ length: ROWS }, (_, i) => `${table},host=h${i % 7} b=${b}i,i=${i}i ${b * ROWS + i}`).join('\n');
}

async function count(url: string, table: string): Promise<number> {
  const res = await sql(url, `SELECT count(*) FROM ${table}`);
  return Number(res.body.output?.[0]?.records?.rows[0]?.[0]);
}

/** A stopped server's data: `victim` spread over segments and the WAL, `bystander` in the WAL. */
async function prepare(t: Test): Promise<{ dataDir: string; shardDir: string; victim: number }> {
  const dataDir = tempDir();
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer({ dataDir, shards: 1, extraToml: TOML });
  for (let b = 0; b < 40; b++) t.equal((await writeLines(server.url, batch('victim', b))).status, 204);
  for (let b = 0; b < 3; b++) t.equal((await writeLines(server.url, batch('bystander', b))).status, 204);
  const victim = await count(server.url, 'victim');
  await server.stop();
  return { dataDir, shardDir: path.join(dataDir, 'shards', '0'), victim };
}

function manifestOf(shardDir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(shardDir, 'MANIFEST'), 'utf8')) as Manifest;
}

function newestWal(shardDir: string): string {
  const dir = path.join(shardDir, 'wal');
  const files = fs
    .readdirSync(dir)
    .filter((f) => fs.statSync(path.join(dir, f)).size > 0)
    .sort();
  return path.join(dir, files.at(-1) as string);
}

async function restartChecked(t: Test, dataDir: string, bystander = 3 * ROWS): Promise<TestServer> {
  const server = await startServer({ dataDir, shards: 1, extraToml: TOML });
  t.teardown(() => server.stop());
  t.equal(await count(server.url, 'bystander'), bystander, 'the other table kept every row it should');
  return server;
}

async function cleanAgain(t: Test, server: TestServer, dataDir: string, victim: number): Promise<void> {
  t.equal((await writeLines(server.url, batch('victim', 1000))).status, 204, 'writes are accepted');
  await server.stop();
  const again = await startServer({ dataDir, shards: 1, extraToml: TOML });
  t.teardown(() => again.stop());
  t.equal(await count(again.url, 'victim'), victim + ROWS, 'the next start keeps everything');
  for (const name of [
    'shoaldb_recovery_segments_quarantined',
    'shoaldb_recovery_manifest_rebuilt',
    'shoaldb_wal_recovery_cuts',
  ])
    t.equal(await metricSum(again.url, name), 0, `the next start is clean: ${name} 0`);
}

t.test('a WAL tail cut short: the torn record is cut at its offset, the rest kept', async (t) => {
  const { dataDir, shardDir, victim } = await prepare(t);
  const wal = newestWal(shardDir);
  const size = fs.statSync(wal).size;
  fs.truncateSync(wal, size - 5);
  // The last record is the last bystander batch: it is the one cut.
  const server = await restartChecked(t, dataDir, 2 * ROWS);
  t.equal(await count(server.url, 'victim'), victim, 'victim rows all kept');
  const rel = `wal/${path.basename(wal)}`;
  t.match(server.output(), new RegExp(`WAL cut: ${rel}: torn record payload at offset \\d+, cut \\d+ bytes`));
  t.equal(await metricSum(server.url, 'shoaldb_wal_recovery_cuts'), 1, '/metrics counts the cut');
  t.ok((await metricSum(server.url, 'shoaldb_wal_recovery_cut_bytes')) > 0);
  await cleanAgain(t, server, dataDir, victim);
});

t.test('a WAL tail with flipped bytes: the bad record is cut, the rest kept', async (t) => {
  const { dataDir, shardDir, victim } = await prepare(t);
  const wal = newestWal(shardDir);
  const bytes = fs.readFileSync(wal);
  bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 0x5a;
  fs.writeFileSync(wal, bytes);
  const server = await restartChecked(t, dataDir, 2 * ROWS);
  t.equal(await count(server.url, 'victim'), victim, 'victim rows all kept');
  t.match(server.output(), /WAL cut: wal\/\d+\.log: checksum mismatch at offset \d+, cut \d+ bytes/);
  t.equal(await metricSum(server.url, 'shoaldb_wal_recovery_cuts'), 1);
  await cleanAgain(t, server, dataDir, victim);
});

t.test('a WAL record damaged in the middle of a file: that record alone is skipped', async (t) => {
  const { dataDir, shardDir, victim } = await prepare(t);
  const wal = newestWal(shardDir);
  const bytes = fs.readFileSync(wal);
  const starts: number[] = [];
  for (let pos = 0; pos < bytes.length; pos += 8 + bytes.readUInt32LE(pos)) starts.push(pos);
  // The last two records are the last two bystander batches (their series defined by the first).
  const target = starts.at(-2) as number;
  bytes[target + 12] = (bytes[target + 12] as number) ^ 0x20;
  fs.writeFileSync(wal, bytes);
  const server = await restartChecked(t, dataDir, 2 * ROWS);
  t.equal(await count(server.url, 'victim'), victim, 'victim rows all kept');
  t.match(
    server.output(),
    new RegExp(
      `WAL cut: wal/${path.basename(wal)}: checksum mismatch at offset ${target}, skipped \\d+ bytes up to the next intact record, kept the records after it`,
    ),
  );
  t.equal(await metricSum(server.url, 'shoaldb_wal_recovery_cuts'), 1);
  await cleanAgain(t, server, dataDir, victim);
});

for (const damage of ['flipped', 'truncated'] as const) {
  t.test(`a segment ${damage}: quarantined, named, its table keeps the other segments`, async (t) => {
    const { dataDir, shardDir, victim } = await prepare(t);
    const tables = Object.entries(manifestOf(shardDir).tables);
    const [tableId, table] = tables.find(([, tb]) => tb.segments.length >= 3) ?? [];
    t.ok(table, 'the victim table has several segments');
    const seg = table?.segments[1] as Manifest['tables'][string]['segments'][number];
    const file = path.join(shardDir, seg.file);
    const bytes = fs.readFileSync(file);
    if (damage === 'flipped') {
      bytes[HEADER_BYTES + 20] = (bytes[HEADER_BYTES + 20] as number) ^ 0xff;
      fs.writeFileSync(file, bytes);
    } else {
      fs.writeFileSync(file, bytes.subarray(0, bytes.length - 7));
    }
    const server = await restartChecked(t, dataDir);
    t.equal(await count(server.url, 'victim'), victim - seg.rows, `victim lost exactly the segment's ${seg.rows} rows`);
    const reason =
      damage === 'flipped'
        ? 'block 0 at offset 16: checksum mismatch'
        : `${bytes.length - 7} bytes, the manifest says ${bytes.length}`;
    t.match(
      server.output(),
      `segment quarantined: ${seg.file}: ${reason}; ${seg.rows} rows dropped (quarantine/seg-${tableId}-${seg.id}.seg)`,
      'the log names the file, where it is damaged and what was dropped',
    );
    t.ok(
      fs.existsSync(path.join(shardDir, 'quarantine', `seg-${tableId}-${seg.id}.seg`)),
      'the file is kept in quarantine/',
    );
    t.equal(await metricSum(server.url, 'shoaldb_recovery_segments_quarantined'), 1, '/metrics counts it');
    await cleanAgain(t, server, dataDir, victim - seg.rows);
  });
}

for (const damage of ['flipped', 'truncated'] as const) {
  t.test(`the MANIFEST ${damage}: quarantined and rebuilt from the segments, nothing lost`, async (t) => {
    const { dataDir, shardDir, victim } = await prepare(t);
    const file = path.join(shardDir, 'MANIFEST');
    const text = fs.readFileSync(file, 'utf8');
    // A digit of a row count changed still parses: only the checksum can tell.
    const damaged =
      damage === 'flipped'
        ? text.replace(/"rows": (\d)/, (_, d) => `"rows": ${(Number(d) + 1) % 10}`)
        : text.slice(0, 100);
    t.not(damaged, text);
    fs.writeFileSync(file, damaged);
    const server = await restartChecked(t, dataDir);
    t.equal(await count(server.url, 'victim'), victim, 'every victim row is back');
    const why = damage === 'flipped' ? 'checksum mismatch' : 'is not valid JSON';
    t.match(server.output(), new RegExp(`manifest rebuilt: MANIFEST: [^"]*${why}[^"]*rebuilt from \\d+ segment files`));
    t.equal(fs.readdirSync(path.join(shardDir, 'quarantine')).filter((f) => f.startsWith('MANIFEST.')).length, 1);
    t.equal(await metricSum(server.url, 'shoaldb_recovery_manifest_rebuilt'), 1, '/metrics counts it');
    await cleanAgain(t, server, dataDir, victim);
  });
}
