/**
 * The soak at full length (issue 16, docs/reliability.md): one server for an hour at half the
 * rate it sustains, with queries, and a sample of its vital signs every minute (the driver,
 * soak-driver.ts, says what it does). `mixp` has a ttl (SOAK_TTL, 10m; "forever" for none) and
 * its data follows the wall clock, so the stored volume levels off after the first ttl. Ends with
 * count(*) against the acknowledged rows (with a ttl: of the rows inside it) and the first-third
 * against last-third table for bench/RESULTS.md; exit code 1 if a row is missing.
 *
 *   node dist-bench/bench/reliability/soak.js [minutes=60]
 *   SOAK_SAMPLE_S: seconds a sample (60); SOAK_TTL (10m); SOAK_RETENTION_CHECK: the server's
 *   storage.retention_check_interval (its default, 1m)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSoak, thirdsTable } from './soak-driver.js';

const MINUTES = Number(process.argv[2] ?? 60);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_S ?? 60) * 1000;
const TTL = process.env.SOAK_TTL ?? '10m';
const WITH_TTL = TTL !== '' && TTL.toLowerCase() !== 'forever';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-soak-'));
try {
  const r = await runSoak({
    durationMs: MINUTES * 60_000,
    sampleMs: SAMPLE_MS,
    calibrateMs: 20_000,
    dataDir,
    ttl: WITH_TTL ? TTL : undefined,
    retentionCheckInterval: process.env.SOAK_RETENTION_CHECK,
    log: (line) => console.log(line),
  });
  const checked = r.window ?? { ackedRows: r.ackedRows, storedRows: r.storedRows };
  const ok = checked.storedRows === checked.ackedRows;
  console.log(`acknowledged ${r.ackedRows} rows, stored ${r.storedRows}; refused ${r.refused}`);
  if (r.window) {
    console.log(
      `inside the ttl (${TTL}, from ${new Date(r.window.fromMs).toISOString()}): acknowledged ${r.window.ackedRows}, stored ${r.window.storedRows}`,
    );
  }
  console.log(ok ? 'OK' : 'MISMATCH');
  for (const line of thirdsTable(r.samples)) console.log(line);
  if (!ok) process.exitCode = 1;
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(`${dataDir}.toml`, { force: true });
}
