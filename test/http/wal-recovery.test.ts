/**
 * A WAL whose tail is torn or corrupt is cut at the last good record; the server starts, reports
 * the cut, and keeps everything before it.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { sql, startServer, tempDir, writeLines } from '../helpers/server.js';

/** The most recently written WAL file of any shard. */
function newestWalFile(dataDir: string): string {
  const files: Array<{ file: string; mtime: number; size: number }> = [];
  const shards = path.join(dataDir, 'shards');
  for (const shard of fs.readdirSync(shards)) {
    const walDir = path.join(shards, shard, 'wal');
    if (!fs.existsSync(walDir)) continue;
    for (const f of fs.readdirSync(walDir)) {
      const file = path.join(walDir, f);
      const st = fs.statSync(file);
      if (st.size > 0) files.push({ file, mtime: st.mtimeMs, size: st.size });
    }
  }
  files.sort((a, b) => b.mtime - a.mtime);
  if (!files[0]) throw new Error('no WAL file found');
  return files[0].file;
}

async function countRows(url: string, table: string): Promise<number> {
  const res = await sql(url, `SELECT count(*) FROM ${table}`);
  return Number(res.body.output?.[0]?.records?.rows[0]?.[0]);
}

t.test('flipped bytes in the last WAL record are cut and the good prefix is kept', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir, shards: 1 });
  for (let b = 0; b < 5; b++) {
    const lines = Array.from({ length: 100 }, (_, i) => `w,host=h${i % 5} v=${b * 100 + i} ${b * 1000 + i}`).join('\n');
    t.equal((await writeLines(server.url, lines)).status, 204);
  }
  // The last record carries exactly one row.
  t.equal((await writeLines(server.url, 'w,host=last v=1 999999')).status, 204);
  await server.kill();

  const wal = newestWalFile(dataDir);
  const bytes = fs.readFileSync(wal);
  for (let i = 1; i <= 4; i++) bytes[bytes.length - i] = (bytes[bytes.length - i] as number) ^ 0xff;
  fs.writeFileSync(wal, bytes);

  server = await startServer({ dataDir, shards: 1 });
  t.teardown(() => server.stop());
  t.equal(await countRows(server.url, 'w'), 500, 'the 500 rows before the corrupt record are kept');
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const cut = /shoaldb_wal_recovery_cut_bytes\{shard="0"\} (\d+)/.exec(metrics);
  t.ok(cut && Number(cut[1]) > 0, 'the cut is reported in /metrics');
  t.match(server.output(), /cut|corrupt|checksum/i, 'the cut is reported in the log');

  // The server keeps serving and accepting writes after the cut.
  t.equal((await writeLines(server.url, 'w,host=after v=2 1000000')).status, 204);
  t.equal(await countRows(server.url, 'w'), 501);
});

t.test('a torn WAL tail (half a record) is cut without losing acknowledged rows', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir, shards: 1 });
  const lines = Array.from({ length: 300 }, (_, i) => `torn,host=h${i % 7} v=${i} ${i}`).join('\n');
  t.equal((await writeLines(server.url, lines)).status, 204);
  await server.kill();

  const wal = newestWalFile(dataDir);
  // A header that promises 4 KiB of payload followed by only a few bytes: a write cut by a crash.
  const torn = Buffer.alloc(12);
  torn.writeUInt32LE(4096, 0);
  fs.appendFileSync(wal, torn);

  server = await startServer({ dataDir, shards: 1 });
  t.teardown(() => server.stop());
  t.equal(await countRows(server.url, 'torn'), 300);
  t.equal((await writeLines(server.url, 'torn,host=x v=1 100000')).status, 204);
  t.equal(await countRows(server.url, 'torn'), 301);
});
