// Bundles dashboard/ into dist/dashboard: one hashed script and stylesheet (cacheable for good)
// and an index.html naming them, which the router serves with no-cache. Type checking is the
// lint step's (`tsc -p dashboard`): esbuild only strips types.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'dashboard');
fs.rmSync(outdir, { recursive: true, force: true });

const result = await build({
  entryPoints: [path.join(root, 'dashboard', 'main.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  outdir,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => path.relative(outdir, path.join(root, p)));
const script = outputs.find((p) => p.endsWith('.js'));
const style = outputs.find((p) => p.endsWith('.css'));
if (!script || !style) throw new Error(`dashboard bundle incomplete: ${outputs.join(', ')}`);
const html = fs
  .readFileSync(path.join(root, 'dashboard', 'index.html'), 'utf8')
  .replace('%STYLE%', `./${style}`)
  .replace('%SCRIPT%', `./${script}`);
fs.writeFileSync(path.join(outdir, 'index.html'), html);
// The strongest compression is slow (seconds for the script at brotli 11), so it is paid here
// once rather than at every server start; the router serves these beside the originals.
const sizes = [];
for (const name of [...outputs, 'index.html']) {
  const file = path.join(outdir, name);
  const body = fs.readFileSync(file);
  const gz = zlib.gzipSync(body, { level: 9 });
  const br = zlib.brotliCompressSync(body, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  fs.writeFileSync(`${file}.gz`, gz);
  fs.writeFileSync(`${file}.br`, br);
  sizes.push(`${name} ${body.length} B (gzip ${gz.length}, br ${br.length})`);
}
console.log(`dashboard: ${sizes.join(', ')}`);
