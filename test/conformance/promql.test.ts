import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { EXPECTED_FAILURES, OUT_OF_SCOPE_PASSING_MIN, REASONS } from './promql/expected.js';
import { type CaseOutcome, parseManifest, runScript } from './promql/run.js';

/**
 * Prometheus' own PromQL test scripts (shared/conformance/README.md §1), every file, run in
 * process through `instantQuery` / `rangeQuery` over the in-memory sample source. A case must
 * give the expected result, failure and annotations unless promql/expected.ts lists it; a listed
 * case that passes fails the test too, and out-of-scope cases are held to the same rule.
 * The test prints per-file pass counts; PROMQL_CONFORMANCE_DUMP=<file> writes every outcome.
 */

// shared/ sits beside the repository checkout (as in CI's fresh clone).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/conformance/promql');

if (!fs.existsSync(ROOT)) {
  t.pass('conformance corpus not present: nothing to compare');
} else {
  const manifest = parseManifest(fs.readFileSync(path.join(ROOT, 'MANIFEST.tsv'), 'utf8'));
  const files = fs
    .readdirSync(ROOT)
    .filter((f) => f.endsWith('.test'))
    .sort();
  const results = new Map<string, CaseOutcome[]>();

  for (const file of files) {
    t.test(`PromQL script ${file} gives Prometheus' results or its expectation list`, async (t) => {
      const outcomes = await runScript(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), manifest);
      results.set(file, outcomes);
      for (const o of outcomes) {
        const key = `${file}:${o.line}`;
        const listed = EXPECTED_FAILURES[key];
        const what = `${key} ${o.query.slice(0, 100)}`;
        if (listed) t.notOk(o.pass, `${what} is listed (${REASONS[listed]}) and must still fail`);
        else t.ok(o.pass, what, { problem: o.problem });
      }
    });
  }

  t.test('every listed case exists and enough out-of-scope cases pass', async (t) => {
    const all = [...results.values()].flat();
    const keys = new Set(all.map((o) => `${o.file}:${o.line}`));
    for (const key of Object.keys(EXPECTED_FAILURES)) t.ok(keys.has(key), `${key} exists`);
    const passing = all.filter((o) => o.scope === 'out_of_scope' && o.pass).length;
    t.ok(
      passing >= OUT_OF_SCOPE_PASSING_MIN,
      `${passing} out-of-scope cases pass (at least ${OUT_OF_SCOPE_PASSING_MIN})`,
    );
  });

  t.teardown(() => {
    const total = { core: 0, corePass: 0, outOfScope: 0, outOfScopePass: 0, valuesOnly: 0 };
    const lines: string[] = [];
    for (const [file, outcomes] of results) {
      const core = outcomes.filter((o) => o.scope === 'core');
      const outOfScope = outcomes.filter((o) => o.scope === 'out_of_scope');
      const corePass = core.filter((o) => o.pass).length;
      const outOfScopePass = outOfScope.filter((o) => o.pass).length;
      total.core += core.length;
      total.corePass += corePass;
      total.outOfScope += outOfScope.length;
      total.outOfScopePass += outOfScopePass;
      total.valuesOnly += outcomes.filter((o) => o.valuesPass && !o.pass).length;
      lines.push(`  ${file}: core ${corePass}/${core.length}, out of scope ${outOfScopePass}/${outOfScope.length}`);
    }
    const dump = process.env.PROMQL_CONFORMANCE_DUMP;
    if (dump) fs.writeFileSync(dump, JSON.stringify(Object.fromEntries(results), null, 1));
    console.log(
      `promql conformance: core ${total.corePass}/${total.core}, out of scope ${total.outOfScopePass}/${total.outOfScope}` +
        ` (${total.valuesOnly} more with right values but wrong annotations)\n${lines.join('\n')}`,
    );
  });
}
