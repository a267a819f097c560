/**
 * POST /debug/prof/cpu against a real server under load: the pprof output is read by
 * `go tool pprof`, every thread (router and each shard) contributes samples, frames are mapped
 * back to our TypeScript, and the text and flame graph outputs work (the latter in Chromium).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import t from 'tap';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';
import { startLoad } from '../helpers/load-loop.js';
import { readPprof } from '../helpers/pprof.js';
import { startServer, tempDir } from '../helpers/server.js';

const run = promisify(execFile);
const GO = '/usr/bin/go';

async function profile(url: string, query: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const res = await fetch(`${url}/debug/prof/cpu?${query}`, { method: 'POST' });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

t.test('CPU profiles of a loaded server', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const load = startLoad(server.url, { maxMs: 60_000 });
  t.teardown(() => load.stop());
  // Let the table exist and the loops reach a steady state before sampling.
  await new Promise((r) => setTimeout(r, 500));

  await t.test('proto output is pprof that go tool pprof reads, covering every thread and our sources', async (t) => {
    const res = await profile(server.url, 'seconds=3&output=proto');
    t.equal(res.status, 200);
    t.equal(res.type, 'application/octet-stream');
    const { threads, files } = readPprof(res.body);
    t.same([...threads].sort(), ['router', 'shard-0', 'shard-1'], 'samples carry the router and every shard');
    t.ok(
      [...files].some((f) => /^src\/shard\/.+\.ts$/.test(f)),
      'shard frames map to src/shard/*.ts',
    );
    t.ok(
      [...files].some((f) => /^src\/router\/.+\.ts$/.test(f)),
      'router frames map to src/router/*.ts',
    );
    const skip = fs.existsSync(GO) ? false : `${GO} is missing: go tool pprof checks skipped (install golang-go)`;
    await t.test('go tool pprof reads it', { skip }, async (t) => {
      const file = path.join(tempDir('shoaldb-prof-'), 'cpu.pb.gz');
      fs.writeFileSync(file, res.body);
      const top = await run(GO, ['tool', 'pprof', '-top', '-lines', file], { maxBuffer: 16 * 1024 * 1024 });
      t.match(top.stdout, /Type: cpu/);
      t.match(
        top.stdout,
        /^\s*\S+\s+[\d.]+%\s+[\d.]+%.*\bsrc\/(router|shard|query|shared)\/\S+\.ts:\d+/m,
        'top lists our functions',
      );
      const tags = await run(GO, ['tool', 'pprof', '-tags', file]);
      for (const thread of ['router', 'shard-0', 'shard-1']) t.match(tags.stdout, new RegExp(`: ${thread}\\b`));
    });
  });

  await t.test('text output is a top table of our functions', async (t) => {
    const res = await profile(server.url, 'seconds=2&output=text');
    t.equal(res.status, 200);
    t.equal(res.type, 'application/octet-stream');
    const text = res.body.toString('utf8');
    t.match(text, /^Type: cpu \(nanoseconds\)$/m);
    t.match(text, /^Threads: router, shard-0, shard-1$/m);
    t.match(text, /flat\s+flat%\s+sum%\s+cum\s+cum%\s+function\s+file:line/);
    t.match(text, /ms\s+[\d.]+%\s+[\d.]+%\s+[\d.]+ms\s+[\d.]+%\s+\S+\s+src\/\S+\.ts:\d+$/m);
  });

  await t.test('thread=shard-1 keeps only that shard', async (t) => {
    const res = await profile(server.url, 'seconds=1&thread=shard-1');
    t.equal(res.status, 200);
    t.same([...readPprof(res.body).threads], ['shard-1']);
  });

  await t.test('a second profile while one runs is refused with 409', async (t) => {
    const first = profile(server.url, 'seconds=2&output=text');
    await new Promise((r) => setTimeout(r, 300));
    const second = await profile(server.url, 'seconds=1');
    t.equal(second.status, 409);
    t.match(second.body.toString(), /already being taken/);
    t.equal((await first).status, 200, 'the first one completes');
  });

  await t.test('flamegraph output renders in Chromium and zooms on click', async (t) => {
    const res = await profile(server.url, 'seconds=2&output=flamegraph');
    t.equal(res.status, 200);
    t.equal(res.type, 'application/octet-stream');
    const svg = res.body.toString('utf8');
    t.match(svg, /^<\?xml[^>]*>\s*<svg /);
    t.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is needed to check the flame graph in a browser`);
    const file = path.join(tempDir('shoaldb-flame-'), 'cpu.svg');
    fs.writeFileSync(file, svg);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`file://${file}`);
    const frames = page.locator('g.f');
    t.ok((await frames.count()) > 10, 'frames are drawn as rects');
    // A thread frame (depth 1) is narrower than the whole graph, so zooming on it must widen it.
    const target = page.locator('g.f[data-d="1"]').first();
    const before = Number(await target.locator('rect').getAttribute('width'));
    t.ok(before > 20 && before < 1000, `thread frame is ${before}px wide before zoom`);
    await target.locator('rect').click();
    const after = Number(await target.locator('rect').getAttribute('width'));
    t.ok(after > before + 50, `zooming widened it from ${before}px to ${after}px`);
    t.ok(await page.locator('svg').getAttribute('data-zoom'), 'the zoom is recorded on the svg');
    const hidden = await page.locator('g.f[display="none"]').count();
    t.ok(hidden > 0, 'frames outside the zoomed one are hidden');
    await page.locator('#search').fill('shard');
    t.match(await page.locator('#matched').textContent(), /^Matched: [\d.]+%$/);
    t.ok((await page.locator('rect[fill="#e040fb"]').count()) > 0, 'search highlights matching frames');
    await page.locator('#reset').click();
    t.equal(Number(await target.locator('rect').getAttribute('width')), before, 'reset restores the layout');
    t.same(errors, [], 'the embedded script raises no errors');
  });

  const done = await load.stop();
  t.ok(done.writes > 0 && done.queries > 0, `the load ran (${done.writes} writes, ${done.queries} queries)`);
});

t.test('bad query parameters answer 400 in text', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  const cases: [string, RegExp][] = [
    [
      'output=svg',
      /^Failed to deserialize query string: output: unknown variant `svg`, expected one of `proto`, `text`, `flamegraph`$/,
    ],
    ['frequency=0', /^Failed to deserialize query string: frequency: invalid value: integer `0`/],
    ['seconds=abc', /^Failed to deserialize query string: seconds: invalid digit found in string$/],
    ['seconds=100000', /^Failed to deserialize query string: seconds: invalid value/],
    ['thread=shard-7', /^Failed to deserialize query string: thread: unknown thread `shard-7`/],
  ];
  for (const [query, message] of cases) {
    const res = await profile(server.url, query);
    t.equal(res.status, 400, query);
    t.match(res.type, /^text\/plain/, query);
    t.match(res.body.toString(), message, query);
  }
  const short = await profile(server.url, 'seconds=0&frequency=1000&output=text');
  t.equal(short.status, 200, 'seconds=0 answers at once with an (almost) empty profile');
});
