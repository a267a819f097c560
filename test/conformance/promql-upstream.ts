import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { runScript } from './promql/run.js';

/**
 * Prometheus' test scripts beyond the shared corpus (native_histograms.test, histograms.test,
 * duration_expression.test, limit.test, ... from `promql/promqltest/testdata` of a Prometheus
 * checkout), which this repository does not carry: point PROMQL_UPSTREAM_DIR at a folder of them
 * and every case of every `.test` file there must pass, judged like the corpus. Not part of the
 * suite (its name does not end in `.test.ts`): run it by name.
 *
 *   PROMQL_UPSTREAM_DIR=/path/to/testdata-subset npx tap test/conformance/promql-upstream.ts
 */

const DIR = process.env.PROMQL_UPSTREAM_DIR;

if (!DIR) {
  t.fail('set PROMQL_UPSTREAM_DIR to a folder of Prometheus test scripts');
} else {
  for (const file of fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.test'))
    .sort()) {
    t.test(`Prometheus script ${file}`, async (t) => {
      const outcomes = await runScript(file, fs.readFileSync(path.join(DIR, file), 'utf8'), new Map());
      const passed = outcomes.filter((o) => o.pass).length;
      t.comment(`${file}: ${passed}/${outcomes.length}`);
      for (const o of outcomes) t.ok(o.pass, `${file}:${o.line} ${o.query.slice(0, 100)}`, { problem: o.problem });
    });
  }
}
