/**
 * A full disk (docs/reliability.md): the data directory on a 4 MiB tmpfs, seven eighths taken by a
 * filler file. Writes are refused with a clear 507 naming the directory once space runs out (never a 500
 * or a hang), everything acknowledged reads back, no half-written file is left, and once the
 * filler is deleted writes are accepted again without a restart. Needs root for the mount;
 * skipped with the reason otherwise.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { sql, startServer, type TestServer } from '../helpers/server.js';

const ROWS = 200;
const TOML = '[memtable]\nflush_size = "128KiB"\n[segment]\ncompaction_trigger = 2\n';

function body(b: number): string {
  return Array.from(
    { length: ROWS },
    (_, i) => `df,host=h${i % 9} b=${b}i,i=${i}i,pad="${randomBytes(24).toString('hex')}" ${b * ROWS + i}`,
  ).join('\n');
}

async function write(url: string, b: number) {
  const res = await fetch(`${url}/v1/lineproto/write?db=public&precision=ms`, {
    method: 'POST',
    body: body(b),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
}

async function countsByBatch(url: string): Promise<Map<number, number>> {
  const res = await sql(url, 'SELECT b, count(*) FROM df GROUP BY b');
  const rows = (res.body.output?.[0]?.records?.rows ?? []) as Array<[number, number]>;
  return new Map(rows.map(([b, n]) => [Number(b), Number(n)]));
}

function halfWritten(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.tmp')) out.push(path.join(e.parentPath, e.name));
  }
  return out;
}

function mountTmpfs(dir: string): string | null {
  if (process.getuid?.() !== 0) return 'not root: cannot mount a small tmpfs';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `mount -t tmpfs failed: ${(err as Error).message.split('\n')[0]}`;
  }
}

const mountDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-diskfull-'));
const skip = mountTmpfs(mountDir);
if (skip !== null) fs.rmdirSync(mountDir);

t.test(
  'disk full: 507, nothing acknowledged lost, nothing half-written, resumes without restart',
  { skip: skip ?? false },
  async (t) => {
    let server: TestServer | null = null;
    t.teardown(async () => {
      await server?.stop();
      execFileSync('umount', [mountDir]);
      fs.rmdirSync(mountDir);
    });
    const dataDir = path.join(mountDir, 'data');
    fs.mkdirSync(dataDir);
    const filler = path.join(mountDir, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(3 * 1024 * 1024 + 512 * 1024, 1));
    server = await startServer({ dataDir, shards: 2, extraToml: TOML });
    const url = server.url;

    const acked: number[] = [];
    const refusals: Array<{ status: number; text: string; retryAfter: string | null }> = [];
    let b = 0;
    for (; b < 400 && refusals.length < 20; b++) {
      const res = await write(url, b);
      if (res.status === 204) acked.push(b);
      else refusals.push(res);
    }
    t.ok(acked.length > 5, `writes were acknowledged before the disk filled (${acked.length})`);
    t.ok(refusals.length >= 20, `writes were refused once it was full (${refusals.length} of ${b})`);
    const statuses = [...new Set(refusals.map((r) => r.status))];
    t.same(statuses, [507], 'every refusal is a 507 Insufficient Storage (no 500, no hang)');
    const first = refusals[0];
    t.match(JSON.parse(first?.text ?? '{}'), { error: /disk full.*ENOSPC/ }, `the error says why: ${first?.text}`);
    t.match(first?.text, mountDir, 'and names the directory');
    t.ok(Number(first?.retryAfter) > 0, 'with Retry-After');

    t.equal((await fetch(`${url}/health`)).status, 200, 'the server is up');
    // Each refused append used to rotate to a new WAL file: one file per refused request.
    const walFiles = ['0', '1'].flatMap((n) => fs.readdirSync(path.join(dataDir, 'shards', n, 'wal')));
    t.ok(walFiles.length <= 8, `refusals do not pile up WAL files (${walFiles.length} for 2 shards)`);
    let counts = await countsByBatch(url);
    t.same(
      acked.filter((a) => counts.get(a) !== ROWS),
      [],
      'every acknowledged batch reads back complete',
    );

    fs.unlinkSync(filler);
    let resumed = false;
    const freedAt = performance.now();
    const deadline = Date.now() + 20_000;
    while (!resumed && Date.now() < deadline) {
      const res = await write(url, b);
      if (res.status === 204) {
        acked.push(b);
        resumed = true;
      } else {
        t.equal(res.status, 507, 'refused the same way until space is back');
        await new Promise((r) => setTimeout(r, 250));
      }
      b++;
    }
    t.ok(
      resumed,
      `writes are accepted again once space is freed, without a restart (${Math.round(performance.now() - freedAt)} ms)`,
    );
    for (let k = 0; k < 10; k++, b++) {
      const res = await write(url, b);
      t.equal(res.status, 204);
      acked.push(b);
    }
    counts = await countsByBatch(url);
    t.same(
      acked.filter((a) => counts.get(a) !== ROWS),
      [],
      'every acknowledged batch reads back complete',
    );

    const flushFailures = server.output().split('background flush failed').length - 1;
    t.comment(`${flushFailures} background flushes failed on the full disk and were retried`);
    await server.stop();
    t.same(halfWritten(dataDir), [], 'no half-written (.tmp) file is left');
    server = await startServer({ dataDir, shards: 2, extraToml: TOML });
    counts = await countsByBatch(server.url);
    t.same(
      acked.filter((a) => counts.get(a) !== ROWS),
      [],
      'after a restart too',
    );
    // A refused request may be stored in part: its rows span both shards and only one was full
    // (writes are atomic per shard, not across shards; the client retries the whole request).
    t.same(
      [...counts].filter(([, n]) => n > ROWS),
      [],
      'no batch has a row twice',
    );
  },
);
