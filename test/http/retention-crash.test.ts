/**
 * A kill in the middle of a retention step (fault point `retention.before-retire`: the manifest
 * no longer lists the expired segments, their files are not unlinked yet) loses no row inside the
 * ttl, brings no expired row back, and leaves no segment file the manifest does not list.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { rowsOf, sql, startServer, type TestServer, tempDir } from '../helpers/server.js';

const HOUR_MS = 3_600_000;

async function ok(url: string, statement: string) {
  const r = await sql(url, statement);
  if (r.status !== 200) throw new Error(`${statement}: ${r.status} ${r.text}`);
  return r.body;
}

/** Segment files on disk and segments the manifests list, over every shard. */
function segmentFiles(dataDir: string): { onDisk: string[]; listed: string[] } {
  const onDisk: string[] = [];
  const listed: string[] = [];
  const shardsDir = path.join(dataDir, 'shards');
  for (const shard of fs.readdirSync(shardsDir)) {
    const dir = path.join(shardsDir, shard);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST'), 'utf8')) as {
      tables: Record<string, { segments: Array<{ file: string }> }>;
    };
    for (const table of Object.values(manifest.tables))
      for (const s of table.segments) listed.push(`${shard}/${s.file}`);
    const segDir = path.join(dir, 'seg');
    if (!fs.existsSync(segDir)) continue;
    for (const table of fs.readdirSync(segDir)) {
      for (const f of fs.readdirSync(path.join(segDir, table))) {
        if (f.endsWith('.seg')) onDisk.push(`${shard}/seg/${table}/${f}`);
      }
    }
  }
  return { onDisk: onDisk.sort(), listed: listed.sort() };
}

t.test('a kill between the manifest write and the unlink of expired segments loses nothing unexpired', async (t) => {
  const dataDir = tempDir();
  // No pass while the data is written: the first one runs in the next server, which dies in it.
  let server: TestServer = await startServer({ dataDir, storageToml: 'retention_check_interval = "0s"' });
  await ok(server.url, 'CREATE TABLE r (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  const now = Date.now();
  const insert = (ts: number, n: number) =>
    ok(
      server.url,
      `INSERT INTO r (host, v, ts) VALUES ${Array.from({ length: n }, (_, i) => `('h${i}', ${i}, ${ts})`).join(', ')}`,
    );
  await insert(now - 2 * HOUR_MS, 40);
  await ok(server.url, "ADMIN flush_table('r')");
  await insert(now, 25);
  await ok(server.url, "ADMIN flush_table('r')");
  // Set after the writes: rows already past a ttl are not stored at all.
  await ok(server.url, "ALTER TABLE r SET 'ttl' = '1h'");
  await server.stop();
  const before = segmentFiles(dataDir);
  t.same(before.onDisk, before.listed, 'every segment is listed before the crash');

  const env = { SHOALDB_FAULT_POINTS: 'retention.before-retire:kill' };
  let output = '';
  let signal: NodeJS.Signals | null = null;
  try {
    server = await startServer({ dataDir, env, storageToml: 'retention_check_interval = "100ms"' });
    const deadline = Date.now() + 15_000;
    while (server.child.exitCode === null && server.child.signalCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    output = server.output();
    signal = server.child.signalCode;
    await server.kill();
  } catch (err) {
    // The pass may run (and kill) before the server reports it is listening; the exit can then
    // beat the fault point's stderr line to the test, and the code is null for a signal.
    output = String(err);
  }
  // The fault point's line on stderr may not have reached the test when the exit did; the signal has.
  t.ok(
    signal === 'SIGKILL' ||
      /fault point retention\.before-retire: SIGKILL|exited with null before listening/.test(output),
    `the server died inside the retention step (${signal ?? output.slice(-300)})`,
  );
  const crashed = segmentFiles(dataDir);
  t.ok(
    crashed.onDisk.length > crashed.listed.length,
    'the crash left expired segment files the manifest no longer lists',
  );

  server = await startServer({ dataDir, storageToml: 'retention_check_interval = "100ms"' });
  t.teardown(() => server.stop());
  const count = Number(rowsOf(await ok(server.url, 'SELECT count(*) FROM r'))[0]?.[0]);
  t.equal(count, 25, 'the rows inside the ttl are all there and no expired row came back');
  const after = segmentFiles(dataDir);
  t.same(after.onDisk, after.listed, 'no segment file is left that the manifest does not list');
});
