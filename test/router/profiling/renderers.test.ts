/** The profile renderers (text top table, flame graph SVG) and the source-map locator, on small inputs. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Profile } from 'pprof-format';
import t from 'tap';
import { renderFlamegraph } from '../../../src/router/profiling/flamegraph-svg.js';
import { PprofBuilder } from '../../../src/router/profiling/pprof-builder.js';
import { readStacks } from '../../../src/router/profiling/profile-stacks.js';
import { SourceLocator } from '../../../src/router/profiling/source-locator.js';
import { renderTextReport } from '../../../src/router/profiling/text-report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** main → parse → lex (3 ms on the router), main → parse (1 ms), shard: write (4 ms). */
function sampleProfile(): Profile {
  const b = new PprofBuilder([['cpu', 'nanoseconds']], { type: 'cpu', unit: 'nanoseconds', value: 1_000_000 });
  const main = b.locationOf({ name: 'main', file: 'src/main.ts', line: 10 });
  const parse = b.locationOf({ name: 'parse', file: 'src/router/parse.ts', line: 20 });
  const lex = b.locationOf({ name: 'lex', file: 'src/router/lex.ts', line: 5 });
  const write = b.locationOf({ name: 'write', file: 'src/shard/store.ts', line: 7 });
  b.addSample([lex, parse, main], [3_000_000], 'router');
  b.addSample([parse, main], [1_000_000], 'router');
  b.addSample([write], [4_000_000], 'shard-0');
  return b.build(Date.now(), 1000);
}

t.test('pprof built here survives encode and decode', async (t) => {
  const decoded = Profile.decode(sampleProfile().encode());
  const stacks = readStacks(decoded);
  t.equal(stacks.total, 8_000_000);
  t.same(
    stacks.stacks.map((s) => [s.thread, s.frames.map((f) => f.name).join('>')]),
    [
      ['router', 'main>parse>lex'],
      ['router', 'main>parse'],
      ['shard-0', 'write'],
    ],
  );
});

t.test('the text report ranks functions by flat with cum and source positions', async (t) => {
  const lines = renderTextReport(sampleProfile()).split('\n');
  t.equal(lines[0], 'Type: cpu (nanoseconds)');
  t.equal(lines[1], 'Threads: router, shard-0');
  t.match(lines[4], /^\s+4\.00ms\s+50\.00%\s+50\.00%\s+4\.00ms\s+50\.00%\s+write\s+src\/shard\/store\.ts:7$/);
  t.match(lines[5], /^\s+3\.00ms\s+37\.50%\s+87\.50%\s+3\.00ms\s+37\.50%\s+lex\s+src\/router\/lex\.ts:5$/);
  t.match(lines[6], /^\s+1\.00ms\s+12\.50%\s+100\.00%\s+4\.00ms\s+50\.00%\s+parse\s+src\/router\/parse\.ts:20$/);
  t.match(lines[7], /^\s+0\.00ms\s+0\.00%\s+100\.00%\s+4\.00ms\s+50\.00%\s+main\s+src\/main\.ts:10$/);
});

t.test('the flame graph has one frame per node, sized by share, with titles and a script', async (t) => {
  const svg = renderFlamegraph(sampleProfile(), 'CPU profile');
  const frames = [
    ...svg.matchAll(/<g class="f" data-x="([\d.e-]+)" data-w="([\d.e-]+)" data-d="(\d+)" data-n="([^"]*)"/g),
  ];
  // all, router, shard-0, main, parse, lex, write
  t.equal(frames.length, 7);
  const byName = new Map(frames.map((m) => [m[4], { x: Number(m[1]), w: Number(m[2]), d: Number(m[3]) }]));
  t.same(byName.get('all'), { x: 0, w: 1, d: 0 });
  t.same(byName.get('router'), { x: 0, w: 0.5, d: 1 });
  t.same(byName.get('shard-0'), { x: 0.5, w: 0.5, d: 1 });
  t.same(byName.get('lex'), { x: 0, w: 0.375, d: 4 });
  t.match(svg, /<title>parse \(src\/router\/parse\.ts:20\): 4\.00ms \(50\.00%\)<\/title>/);
  t.match(svg, /<script type="text\/ecmascript"><!\[CDATA\[/);
  t.match(svg, /id="search"/);
});

t.test('names are escaped for XML', async (t) => {
  const b = new PprofBuilder([['space', 'bytes']], { type: 'space', unit: 'bytes', value: 1 });
  b.addSample([b.locationOf({ name: '<lambda> & "x"', file: '', line: 0 })], [10], 'router');
  const svg = renderFlamegraph(b.build(0, 0), 'Heap profile');
  t.match(svg, /data-n="&#60;lambda&#62; &#38; &#34;x&#34;"/);
  t.notMatch(svg, /<lambda>/);
});

t.test('readStacks refuses what is not a profile', async (t) => {
  t.throws(() => readStacks(new Profile()), /no sample types/);
  const broken = sampleProfile();
  broken.location = [];
  t.throws(() => readStacks(broken), /unknown location/);
});

t.test('source maps lead bundled positions back to the TypeScript', async (t) => {
  // The build bundles the server (scripts/build-server.mjs): find the output holding the function.
  const dist = path.join(ROOT, 'dist');
  const outputs = fs.existsSync(dist)
    ? fs.readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))
    : [];
  const js = outputs
    .map((f) => path.join(dist, f))
    .find((f) => fs.readFileSync(f, 'utf8').includes('\nfunction renderTextReport('));
  if (js === undefined) {
    t.fail('dist is missing: run npm run build first');
    return;
  }
  const jsLines = fs.readFileSync(js, 'utf8').split('\n');
  const tsLines = fs.readFileSync(path.join(ROOT, 'src', 'router', 'profiling', 'text-report.ts'), 'utf8').split('\n');
  const jsLine = jsLines.findIndex((l) => l.startsWith('function renderTextReport('));
  const tsLine = tsLines.findIndex((l) => l.startsWith('export function renderTextReport'));
  const at = new SourceLocator().locate(pathToFileURL(js).href, jsLine, 0);
  t.same(at, { file: 'src/router/profiling/text-report.ts', line: tsLine + 1 });
  t.same(new SourceLocator().locate('node:internal/timers', 4, 2), { file: 'node:internal/timers', line: 5 });
  t.same(new SourceLocator().locate('', -1, -1), { file: '', line: 0 });
});
