import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runScript } from '../../conformance/promql/run.js';

/**
 * Our own PromQL scripts (test/cases/promql/*.test, Prometheus' test-script format): evaluation
 * rules the conformance corpus leaves uncovered (staleness, subquery alignment, @, classic
 * histograms, range-query specifics). Judged exactly like the corpus, harness checks included.
 */

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../cases/promql');

for (const file of fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.test'))
  .sort()) {
  t.test(`script ${file} evaluates as Prometheus would`, async (t) => {
    const outcomes = await runScript(file, fs.readFileSync(path.join(DIR, file), 'utf8'), new Map());
    t.ok(outcomes.length > 0, 'has cases');
    for (const o of outcomes) t.ok(o.pass, `${file}:${o.line} ${o.query}`, { problem: o.problem });
  });
}
