/**
 * The crash-consistency campaign at full length (docs/reliability.md): 100 SIGKILL cycles by
 * default on one fresh data directory, half at named fault points. Prints the figures; writes
 * nothing to RESULTS.md (whoever runs it records them, with the date and the command).
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/reliability/kill-cycles.js [cycles] [seed]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runKillCycles } from './kill-cycles-driver.js';

const cycles = Number(process.argv[2] ?? 100);
const seed = Number(process.argv[3] ?? 100);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-kill-cycles-'));
try {
  const r = await runKillCycles({ cycles, dataDir, seed, log: (line) => console.log(line) });
  const faultKills = Object.values(r.faultKills).reduce((a, b) => a + b, 0);
  console.log(
    [
      '',
      `cycles                 ${r.cycles} (${r.randomKills} random kills, ${faultKills} at fault points, ${r.killedInStartup} of them during start-up, ${r.faultMissed} fault points not reached)`,
      `fault-point kills      ${JSON.stringify(r.faultKills)}`,
      `acknowledged rows      ${r.ackedRows} (${r.ackedBatches} requests)`,
      `lost                   ${r.lost}`,
      `duplicated             ${r.duplicated}`,
      `stored, never sent     ${r.unsent}`,
      `cut in flight, partial ${r.partialUnacked} requests (unacknowledged; one shard had them)`,
      `flushes / compactions  ${r.flushes} / ${r.compactions}`,
      `WAL tails cut          ${r.walCuts}`,
      `file problems          ${r.fileProblems.length === 0 ? 'none' : r.fileProblems.join('; ')}`,
      `seconds                ${r.seconds}`,
    ].join('\n'),
  );
  process.exitCode = r.lost + r.duplicated + r.unsent + r.fileProblems.length === 0 ? 0 : 1;
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(`${dataDir}.toml`, { force: true });
}
