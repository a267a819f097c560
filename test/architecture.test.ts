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

/**
 * Inside src/query (src/query/README.md): the files at its root (results, RE2) serve both
 * languages; PromQL never imports SQL; SQL's TQL statement embeds PromQL, so SQL may reach PromQL
 * from plan (the environment's PromQL source and limits) and exec. SQL itself is layered
 * types ← functions, parse ← plan ← exec: parse and functions are siblings and never import
 * each other.
 */
function queryPartOf(rel: string): string | undefined {
  if (!rel.startsWith('query/')) return undefined;
  const parts = rel.split('/');
  if (parts.length === 2) return 'query';
  if (parts[1] === 'sql') return parts.length > 3 ? `sql/${parts[2]}` : 'sql';
  return parts[1];
}

/** What each part of src/query may import, besides itself (and src/shared, by the rule above). */
const QUERY_ALLOWED: Record<string, readonly string[]> = {
  query: [],
  promql: ['query'],
  'sql/types': ['query'],
  'sql/functions': ['query', 'sql/types'],
  'sql/parse': ['query', 'sql/types'],
  'sql/plan': ['query', 'sql/types', 'sql/functions', 'sql/parse', 'promql'],
  'sql/exec': ['query', 'sql/types', 'sql/functions', 'sql/parse', 'sql/plan', 'promql'],
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import in src: importing and imported file, relative to src. */
function importsInSrc(): Array<{ from: string; to: string }> {
  const found: Array<{ from: string; to: string }> = [];
  for (const file of sourceFiles(src)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = path.relative(src, path.resolve(path.dirname(file), match[1] as string));
      found.push({ from: path.relative(src, file), to: target });
    }
  }
  return found;
}

t.test('every import in src points down the layers', async (t) => {
  const violations: string[] = [];
  const imports = importsInSrc();
  for (const { from: rel, to: target } of imports) {
    const from = layerOf(rel);
    const to = layerOf(target);
    if (to !== from && !(ALLOWED[from] ?? []).includes(to))
      violations.push(`${rel} (${from}) imports ${target} (${to})`);
  }
  t.ok(imports.length > 1000, `read ${imports.length} imports`);
  t.same(violations, [], 'no import points up or sideways');
});

t.test('inside src/query, SQL imports down its layers and PromQL never imports SQL', async (t) => {
  const parts = new Set<string>();
  for (const file of sourceFiles(path.join(src, 'query'))) parts.add(queryPartOf(path.relative(src, file)) as string);
  t.same(
    [...parts].filter((part) => !(part in QUERY_ALLOWED)),
    [],
    'every file sits in a known part (no SQL file outside a layer folder)',
  );
  const violations: string[] = [];
  let checked = 0;
  for (const { from: rel, to: target } of importsInSrc()) {
    const from = queryPartOf(rel);
    const to = queryPartOf(target);
    if (from === undefined || to === undefined) continue;
    checked++;
    if (to !== from && !(QUERY_ALLOWED[from] ?? []).includes(to))
      violations.push(`${rel} (${from}) imports ${target} (${to})`);
  }
  t.ok(checked > 500, `read ${checked} imports inside src/query`);
  t.same(violations, [], 'no import inside src/query points up or sideways');
});
