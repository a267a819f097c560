import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { EXPECTED_FAILURES, REASONS } from './conformance-expected.js';
import { type CaseOutcome, runCase } from './helpers/sqlness.js';
import { StoreEnv } from './helpers/store-env.js';

/**
 * The GreptimeDB sqlness corpus (shared/conformance/README.md §2), every file including common/tql,
 * run in process over two real ShardStores. Each statement must reproduce its transcript byte for
 * byte unless conformance-expected.ts lists it; a listed statement that passes fails the test too,
 * so the list stays true. Set SQLNESS_DUMP=<file> to write every outcome as JSON.
 */

// shared/ sits beside the repository checkout (as in CI's fresh clone).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/conformance/sql/common');

/** Case files relative to ROOT without `.sql`, sorted (common/tql runs TQL over the same stores). */
function caseFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      out.push(...caseFiles(path.join(dir, entry.name), rel));
    } else if (entry.name.endsWith('.sql')) out.push(rel.slice(0, -4));
  }
  return out;
}

if (!fs.existsSync(ROOT)) {
  t.pass('conformance corpus not present: nothing to compare');
} else {
  const files = caseFiles(ROOT);
  const results = new Map<string, CaseOutcome[]>();
  for (const file of files) {
    t.test(`sqlness case ${file} matches GreptimeDB's transcript or its expectation list`, async (t) => {
      const store = await StoreEnv.open(2);
      let outcomes: CaseOutcome[];
      try {
        outcomes = await runCase(path.join(ROOT, `${file}.sql`), path.join(ROOT, `${file}.result`), store.env, {
          restart: () => store.restart(),
        });
      } finally {
        await store.close();
      }
      results.set(file, outcomes);
      outcomes.forEach((o, i) => {
        const key = `${file}#${i + 1}`;
        const listed = EXPECTED_FAILURES[key];
        const what = `${key}: ${o.statement.replace(/\s+/g, ' ').slice(0, 100)}`;
        if (listed) t.notOk(o.pass, `${what} is listed (${REASONS[listed]}) and must still fail`);
        else t.equal(o.actual, o.expected, what);
      });
    });
  }
  t.test('every listed statement exists in the corpus', async (t) => {
    for (const key of Object.keys(EXPECTED_FAILURES)) {
      const [file, n] = key.split('#') as [string, string];
      t.ok((results.get(file)?.length ?? 0) >= Number(n), `${key} exists`);
    }
  });
  t.teardown(() => {
    let pass = 0;
    let total = 0;
    const perFile: Record<string, { pass: number; total: number }> = {};
    for (const [file, outcomes] of results) {
      const p = outcomes.filter((o) => o.pass).length;
      perFile[file] = { pass: p, total: outcomes.length };
      pass += p;
      total += outcomes.length;
    }
    const dump = process.env.SQLNESS_DUMP;
    if (dump) fs.writeFileSync(dump, JSON.stringify({ perFile, outcomes: Object.fromEntries(results) }, null, 1));
    console.log(`sql conformance: ${pass}/${total} statements pass`);
  });
}
