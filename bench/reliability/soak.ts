/**
 * The soak at full length (issue 16, docs/reliability.md): one server for an hour at half the
 * rate it sustains, with queries, and a sample of its vital signs every minute (the driver,
 * soak-driver.ts, says what it does). Ends with count(*) against the acknowledged rows and the
 * first-third against last-third table for bench/RESULTS.md; exit code 1 if a row is missing.
 *
 *   node dist-bench/bench/reliability/soak.js [minutes=60]     (SOAK_SAMPLE_S: seconds a sample, 60)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSoak, thirdsTable } from './soak-driver.js';

const MINUTES = Number(process.argv[2] ?? 60);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_S ?? 60) * 1000;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-soak-'));
try {
  const r = await runSoak({
    durationMs: MINUTES * 60_000,
    sampleMs: SAMPLE_MS,
    calibrateMs: 20_000,
    dataDir,
    log: (line) => console.log(line),
  });
  console.log(
    `acknowledged ${r.ackedRows} rows, stored ${r.storedRows}: ${r.storedRows === r.ackedRows ? 'OK' : 'MISMATCH'}; refused ${r.refused}`,
  );
  for (const line of thirdsTable(r.samples)) console.log(line);
  if (r.storedRows !== r.ackedRows) process.exitCode = 1;
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(`${dataDir}.toml`, { force: true });
}
