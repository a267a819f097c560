import t from 'tap';
import { TestEnv } from './helpers/test-env.js';
import { runCase } from './helpers/sqlness.js';

const ROOT = '/work/shared/conformance/sql/common/';
t.test('scratch', async () => {
  const files = process.env.FILES!.split(',');
  for (const f of files) {
    const env = TestEnv.memory(2);
    const out = await runCase(`${ROOT}${f}.sql`, `${ROOT}${f}.result`, env);
    const pass = out.filter((o) => o.pass).length;
    console.log(`== ${f}: ${pass}/${out.length}`);
    if (process.env.VERBOSE) for (const o of out) if (!o.pass) console.log(`--- ${o.statement}\nEXPECTED:\n${o.expected}\nACTUAL:\n${o.actual}\n`);
  }
});
