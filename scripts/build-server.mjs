// Bundles the server into dist/: the router's entry (dist/main.js) and the shard worker's
// (dist/shard/worker.js), each one file plus shared chunks, with source maps back to src/.
// A server start used to load ~460 compiled modules in the router and ~350 in each shard, and the
// ESM loader's resolve/read/link per module was most of a start's ~2.2 s of CPU; bundled, a start
// costs ~1.5 s (bench/RESULTS.md, "Start-up"). Packages stay external: node_modules is loaded as
// it is (native addons, wasm, CommonJS). Type checking is the lint step's (`tsc --noEmit`);
// esbuild only strips types.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');
// Whatever an earlier build left (a per-module `tsc -p .` emit included) goes; the dashboard's
// own script rebuilds dist/dashboard after this one.
fs.rmSync(outdir, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ['src/main.ts', 'src/shard/worker.ts'],
  outbase: 'src',
  outdir,
  bundle: true,
  // The router's modules are a dynamic import in main.ts, made after the shard threads start, so
  // that they load on the other core meanwhile: splitting keeps them in their own chunk.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  // Profiles (/debug/prof/cpu) and stack traces map frames back to src/ through these maps.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
