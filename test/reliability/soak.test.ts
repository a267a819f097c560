/**
 * The short CI variant of the soak (bench/reliability/soak.ts runs an hour): a minute and a half
 * at half the sustainable line-protocol rate with queries and /health probes, sampled every 10 s,
 * with smaller memtable flushes so that flushes and compactions come often. See
 * bench/reliability/soak-driver.ts for the load. SOAK_SECONDS, SOAK_SAMPLE_S and SOAK_CALIBRATE_S
 * change the lengths (90, 10 and 8 s).
 */
import fs from 'node:fs';
import t from 'tap';
import { runSoak, type SoakSample, thirdsTable } from '../../bench/reliability/soak-driver.js';
import { tempDir } from '../helpers/server.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 90);
const SAMPLE_S = Number(process.env.SOAK_SAMPLE_S ?? 10);
const CALIBRATE_S = Number(process.env.SOAK_CALIBRATE_S ?? 8);
// A quarter of the default flush size (64 MiB): three to four times the flushes (26–32 in the
// runs), enough for compaction to work through and for a stalled one to show in 90 s.
// The page cache as in the overload test: its default is memory the RSS check would have to allow.
const SOAK_TOML = '[memtable]\nflush_size = "16MiB"\n[segment]\npage_cache_size = "32MiB"';
const FD_SLACK = 4;
const WAL_FILES_MAX = 8;
const SEGMENT_SLACK = 10;
const RSS_RISE_MIB = 256;
const RSS_MAX_MIB = 1536;

const max = (xs: SoakSample[], f: (s: SoakSample) => number): number => Math.max(...xs.map(f));
const min = (xs: SoakSample[], f: (s: SoakSample) => number): number => Math.min(...xs.map(f));
const otherFds = (s: SoakSample): number => s.fds - s.segments - s.walFiles;
const mean = (xs: SoakSample[], f: (s: SoakSample) => number): number => xs.reduce((a, s) => a + f(s), 0) / xs.length;

t.test(`a ${SECONDS} s soak keeps every row and leaks nothing`, async (t) => {
  const dataDir = tempDir('shoaldb-soak-');
  t.teardown(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(`${dataDir}.toml`, { force: true });
  });
  const r = await runSoak({
    durationMs: SECONDS * 1000,
    sampleMs: SAMPLE_S * 1000,
    calibrateMs: CALIBRATE_S * 1000,
    dataDir,
    toml: SOAK_TOML,
    log: (line) => t.comment(line),
  });
  t.comment(
    '| s | rows/s | RSS MiB | fds (other) | segments | WAL files | flushes / compactions | query p99 ms | /health p99 ms |',
  );
  for (const s of r.samples)
    t.comment(
      `| ${s.seconds} | ${s.rowsPerS} | ${s.rssMiB} | ${s.fds} (${otherFds(s)}) | ${s.segments} | ${s.walFiles} | ${s.flushes} / ${s.compactions} | ${s.queryP99.toFixed(0)} | ${s.healthP99.toFixed(0)} |`,
    );
  for (const line of thirdsTable(r.samples)) t.comment(line);
  t.comment(JSON.stringify({ ...r, samples: r.samples.length }));

  const third = Math.floor(r.samples.length / 3);
  const first = r.samples.slice(0, third);
  const last = r.samples.slice(-third);
  t.ok(third >= 2, `enough samples for thirds (${r.samples.length})`);
  t.ok(r.ackedRows > 0, `rows were acknowledged (${r.ackedRows})`);
  t.equal(r.storedRows, r.ackedRows, 'count(*) equals the acknowledged rows');
  t.equal(r.refused, 0, 'no write refused');
  t.ok(r.queries > 0, `queries ran (${r.queries})`);
  t.equal(r.failedQueries, 0, 'no query failed');
  t.equal(r.failedHealth, 0, 'no /health probe failed');

  // Each live segment and each WAL file holds a descriptor, so the fds count saws with them; the
  // others (sockets, worker pipes, the log) held near 50 (44–54 in the runs, 58 once). Samples
  // stray because the gauges are read after the fds, and a compaction holds its output and the
  // inputs a reader still pins for a moment. A leak raises every sample, so the fewest of each
  // third are compared: a descriptor leaked per SQL query raised them by 13 between the thirds.
  const otherFdsFirst = min(first, otherFds);
  const otherFdsLast = min(last, otherFds);
  t.ok(
    otherFdsLast <= otherFdsFirst + FD_SLACK,
    `open fds besides segments and WAL files: last third min ${otherFdsLast} <= first third min ${otherFdsFirst} + ${FD_SLACK}`,
  );

  // One WAL file per shard in use, one more while its previous memtable flushes (2–4 in the
  // runs). WAL files a flush failed to delete add one per flush: 8 after 10 s, 26 at the end.
  // 8 (four a shard) leaves room for flushes lagging on a busy machine.
  const walMax = max(r.samples, (s) => s.walFiles);
  t.ok(walMax <= WAL_FILES_MAX, `WAL files bounded (max ${walMax} <= ${WAL_FILES_MAX})`);

  // Live segments saw-tooth: each shard holds up to compaction_trigger - 1 (3) flushes waiting
  // for a merge, and a tier is added as the data grows (at most 12 in the runs, the first third's
  // peak 4–8). With compaction off they climbed 6 → 24, two a sample (one flush per shard);
  // a machine too slow to flush that often would not show it in 90 s.
  const segFirst = max(first, (s) => s.segments);
  const segLast = max(last, (s) => s.segments);
  t.ok(
    segLast <= segFirst + SEGMENT_SLACK,
    `compaction keeps up: last third max ${segLast} segments <= first third max ${segFirst} + ${SEGMENT_SLACK}`,
  );

  // RSS climbs through the first minutes (heaps and memtables filling, glibc's malloc arenas
  // keeping freed buffers; the hour soak levels off after ~20 minutes), so flatness over 90 s is
  // not asserted. With the page cache set small (its default, up to 256 MiB, fills as queries
  // read segments), the last third's mean stayed within 50 MiB of the first third's peak in four
  // runs (within 210 MiB with the default page cache).
  // A copy of every write body kept (~10 MiB a second) put the last third's mean 596 MiB above
  // the first third's peak. No sample may pass 1.5 GiB (at most 930 MiB in the runs, 1,143 in
  // the hour at the defaults).
  const rssFirst = max(first, (s) => s.rssMiB);
  const rssLast = mean(last, (s) => s.rssMiB);
  t.ok(
    rssLast <= rssFirst + RSS_RISE_MIB,
    `RSS: last third mean ${rssLast.toFixed(0)} MiB <= first third max ${rssFirst} + ${RSS_RISE_MIB}`,
  );
  const rssMax = max(r.samples, (s) => s.rssMiB);
  t.ok(rssMax <= RSS_MAX_MIB, `RSS never above ${RSS_MAX_MIB} MiB (max ${rssMax})`);

  const healthP99 = max(r.samples, (s) => s.healthP99);
  t.ok(healthP99 < 1000, `/health p99 under 1 s in every sample (max ${healthP99.toFixed(1)} ms)`);
});
