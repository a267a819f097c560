// Bundles the server into dist/: the router's entry (dist/main.js) and the shard worker's
// (dist/shard/worker.js), each one file plus shared chunks, with source maps back to src/.
// A server start used to load ~460 compiled modules in the router and ~350 in each shard, and the
// ESM and CommonJS loaders' resolve/read/link per module were most of a start's ~2.2 s of CPU;
// bundled, a start costs ~1.1 s (bench/RESULTS.md, "Start-up"). Pure JavaScript packages are bundled too; those
// that find files beside their own code (native addons, worker scripts, wasm files) or load late
// stay in node_modules (EXTERNAL). Type checking is the lint step's (`tsc --noEmit`); esbuild
// only strips types.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Packages loaded from node_modules as they are: a native addon (uWebSockets.js, msgpackr's
 * optional msgpackr-extract, found by path from its own directory; bundled, msgpackr would fall
 * back to its slower JavaScript without a word), worker scripts started by path (piscina; pino's
 * transports), a .wasm file read from beside the code (zstd-wasm), and packages loaded on first
 * use rather than at start-up (protobufjs, apache-arrow, the OpenTelemetry SDK that self-tracing
 * imports when switched on, which must share one copy of @opentelemetry/api with our code).
 */
const EXTERNAL = [
  'uWebSockets.js',
  'msgpackr',
  'msgpackr-extract',
  'piscina',
  'pino',
  '@bokuweb/zstd-wasm',
  'protobufjs',
  'apache-arrow',
  '@opentelemetry/*',
];

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
  external: EXTERNAL,
  // Bundled CommonJS packages call require() for Node's modules; ESM has no require of its own.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  // Profiles (/debug/prof/cpu) and stack traces map frames back to src/ through these maps.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
