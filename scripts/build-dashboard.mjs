// Bundles dashboard/ into dist/dashboard: one hashed script and stylesheet (cacheable for good)
// and an index.html naming them, which the router serves with no-cache. Type checking is the
// lint step's (`tsc -p dashboard`): esbuild only strips types.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
const sizes = outputs.map((p) => `${p} ${fs.statSync(path.join(outdir, p)).size} B`);
console.log(`dashboard: ${sizes.join(', ')}`);
