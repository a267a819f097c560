/**
 * The short CI variant of the crash-consistency campaign (bench/reliability/kill-cycles.ts runs
 * 100+ cycles): SIGKILLs at random times and at every fault point in turn, under five ingest
 * protocols and a query loop, with flushes and compactions inside the cycles. See
 * bench/reliability/kill-cycles-driver.ts for what is checked after each restart.
 */
import fs from 'node:fs';
import t from 'tap';
import { runKillCycles } from '../../bench/reliability/kill-cycles-driver.js';
import { tempDir } from '../helpers/server.js';

const CYCLES = Number(process.env.KILL_CYCLES ?? 12);

t.test(`${CYCLES} SIGKILL cycles lose and duplicate no acknowledged row`, async (t) => {
  const dataDir = tempDir('shoaldb-kill-');
  t.teardown(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(`${dataDir}.toml`, { force: true });
  });
  const r = await runKillCycles({
    cycles: CYCLES,
    dataDir,
    seed: 16,
    loadMs: [300, 1000],
    log: (line) => t.comment(line),
  });
  t.comment(JSON.stringify(r));
  t.equal(r.cycles, CYCLES, 'every cycle ended in a kill');
  t.ok(r.ackedRows > 5000, `rows were acknowledged (${r.ackedRows})`);
  t.equal(r.lost, 0, 'no acknowledged row lost');
  t.equal(r.duplicated, 0, 'no row stored twice');
  t.equal(r.unsent, 0, 'no row stored that was never sent');
  t.same(r.fileProblems, [], 'every manifest and listed segment passed its checksums, nothing quarantined');
  t.ok(r.flushes > CYCLES, `flushes happened inside the cycles (${r.flushes})`);
  t.ok(r.compactions > 0, `compactions happened inside the cycles (${r.compactions})`);
  const faultKills = Object.values(r.faultKills).reduce((a, b) => a + b, 0);
  t.ok(faultKills >= CYCLES / 2 - 2, `most fault-point cycles died at their point (${JSON.stringify(r.faultKills)})`);
});
