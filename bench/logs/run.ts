/**
 * Log bench (issue 13, item 8): pre-generated nginx access lines and syslog lines through
 * dissect + date pipelines, and JSON application logs through greptime_identity, posted to
 * `/v1/ingest` with `BENCH_CONCURRENCY` requests in flight (durable before acknowledgement). Per
 * data set it prints lines/s, MB/s, server CPU-seconds per GB, peak RSS and bytes on disk per line
 * (segments after a flush); then searches over the access table: a rare term, a frequent term,
 * a phrase, and a `/v1/logs` page of 100 matches.
 *
 * When Debian's clickhouse-server is installed, the same lines, pre-parsed into the same columns
 * (untimed), go to a fresh ClickHouse after each ShoalDB run (see clickhouse-run.ts), and a
 * side-by-side table of medians with ShoalDB / ClickHouse ratios ends the output.
 *
 *   BENCH_LOG_MB=1024 node dist-bench/bench/logs/run.js      (1 GB in all; default 256)
 *   BENCH_REPS (runs per target, interleaved, default 1), BENCH_CONCURRENCY (default 4),
 *   BENCH_LINES_PER_BODY (default 5000), BENCH_TARGETS (shoaldb,clickhouse)
 *   BENCH_LOG_SETS (tables to post, e.g. `access`; default all), BENCH_LOG_SEARCH=0 (no searches)
 */

import { CLICKHOUSE_BINARY, clickHouseInstalled } from './clickhouse.js';
import { CLICKHOUSE_SEARCH_NOTE, runClickHouse } from './clickhouse-run.js';
import { printComparison } from './compare.js';
import type { RunFigures } from './load.js';
import { addClickHouseBodies, makeSets } from './sets.js';
import { printIngestTable, runShoal } from './shoaldb.js';

const TOTAL_MB = Number(process.env.BENCH_LOG_MB ?? 256);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const LINES_PER_BODY = Number(process.env.BENCH_LINES_PER_BODY ?? 5000);
const REPS = Number(process.env.BENCH_REPS ?? 1);
const TARGETS = (process.env.BENCH_TARGETS ?? 'shoaldb,clickhouse').split(',');
// A probe of one data set (say `access`) without the searches, for A/B runs and profiles.
const ONLY_SETS = process.env.BENCH_LOG_SETS?.split(',');
const SEARCH = process.env.BENCH_LOG_SEARCH !== '0';

async function main(): Promise<void> {
  console.log(`generating ${TOTAL_MB} MB of logs (half access, a quarter each syslog and JSON)...`);
  const made = makeSets(TOTAL_MB * 1024 * 1024, LINES_PER_BODY);
  const rare = made.rare;
  const sets = ONLY_SETS === undefined ? made.sets : made.sets.filter((s) => ONLY_SETS.includes(s.table));
  let withClickHouse = TARGETS.includes('clickhouse');
  if (withClickHouse && !clickHouseInstalled()) {
    console.log(`ClickHouse comparison skipped: ${CLICKHOUSE_BINARY} is not installed`);
    withClickHouse = false;
  }
  if (withClickHouse) addClickHouseBodies(sets);

  const shoal: RunFigures[] = [];
  const clickhouse: RunFigures[] = [];
  for (let rep = 1; rep <= REPS; rep++) {
    if (TARGETS.includes('shoaldb')) {
      console.log(`\nShoalDB run ${rep}/${REPS}`);
      shoal.push(await runShoal(sets, CONCURRENCY, SEARCH));
    }
    if (withClickHouse) {
      console.log(`\nClickHouse run ${rep}/${REPS}`);
      const figures = await runClickHouse(sets, CONCURRENCY);
      printIngestTable(sets, figures.ingest);
      console.table(
        figures.searches.map((s) => ({ search: s.search, 'best of 3 ms': s.ms.toFixed(1), answer: s.answer })),
      );
      clickhouse.push(figures);
    }
  }
  console.log(`\nrare term planted in ${rare} lines`);
  if (shoal.length > 0 && clickhouse.length > 0) printComparison(sets, shoal, clickhouse, CLICKHOUSE_SEARCH_NOTE);
}

await main();
