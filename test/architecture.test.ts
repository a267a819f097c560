/**
 * The layers of docs/architecture.md, checked on every import in src: each layer imports only
 * the layers below it, so the tree keeps telling where a request enters, is partitioned, stored,
 * parsed, planned and executed. (Import cycles between files are madge's job, in `npm run lint`.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/** The layer of a file under src, by path. */
function layerOf(rel: string): string {
  if (rel === 'main.ts') return 'main';
  // The tasks and replies the router and the shards exchange: it names decode requests.
  if (rel === 'shared/messages.ts') return 'messages';
  if (rel.startsWith('shared/ingest/')) return 'ingest';
  return rel.split('/')[0] as string;
}

/** What each layer may import, besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  shared: [],
  query: ['shared'],
  pipeline: ['shared', 'query'],
  ingest: ['shared', 'query', 'pipeline'],
  messages: ['shared', 'query', 'pipeline', 'ingest'],
  router: ['shared', 'query', 'pipeline', 'ingest', 'messages'],
  shard: ['shared', 'query', 'pipeline', 'ingest', 'messages'],
  main: ['shared', 'router'],
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

t.test('every import in src points down the layers', async (t) => {
  const violations: string[] = [];
  let imports = 0;
  for (const file of sourceFiles(src)) {
    const rel = path.relative(src, file);
    const from = layerOf(rel);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      imports++;
      const target = path.relative(src, path.resolve(path.dirname(file), match[1] as string));
      const to = layerOf(target);
      if (to !== from && !(ALLOWED[from] ?? []).includes(to))
        violations.push(`${rel} (${from}) imports ${target} (${to})`);
    }
  }
  t.ok(imports > 1000, `read ${imports} imports`);
  t.same(violations, [], 'no import points up or sideways');
});
