/**
 * Line-protocol parse throughput on TSBS-cpu-shaped lines (10 tags, 10 float fields, ns
 * timestamp), then the conversion of the parsed batch to table inserts. Two bodies: series that
 * repeat (the normal case) and all-distinct series (the series cache's worst case). Bounded: a
 * fixed number of timed rounds after a warm-up, each over the same pre-built body; prints lines/s
 * (median and best). Plain `performance.now()` loops, no dependency.
 *
 * Run: `npx tsc -p tsconfig.bench.json && node dist-bench/bench/ingest/lineproto-parse.bench.js`
 * (not part of `npm run bench`, which measures the server end to end). Environment:
 * `LP_BENCH_HOSTS` (default 1000), `LP_BENCH_STEPS` timestamps per host (default 100),
 * `LP_BENCH_ROUNDS` timed rounds (default 10).
 */
import { performance } from 'node:perf_hooks';
import { LineCaches, parseLineProtocol } from '../../src/shared/ingest/lineproto/parser.js';
import { toTableInserts } from '../../src/shared/ingest/lineproto/to-inserts.js';
import { generateBatches } from './tsbs-cpu.js';

const HOSTS = Number(process.env.LP_BENCH_HOSTS ?? 1000);
const STEPS = Number(process.env.LP_BENCH_STEPS ?? 100);
const ROUNDS = Number(process.env.LP_BENCH_ROUNDS ?? 10);
const WARMUP_ROUNDS = 3;

/** `hosts` series × `steps` timestamps of TSBS cpu lines, as the ingest load generator makes them. */
function tsbsCpuBody(hosts: number, steps: number): Buffer {
  const rows = hosts * steps;
  return Buffer.concat(generateBatches(hosts, rows, 1));
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Prints wall-clock lines/s (median, best) and lines per CPU-second (median). The CPU figure is
 * steadier on a shared machine: time spent descheduled does not count against it.
 */
function report(name: string, lines: number, bytes: number, timesMs: number[], cpuMs: number[]): void {
  const med = median(timesMs);
  const best = Math.min(...timesMs);
  const perSec = (ms: number) => Math.round((lines / ms) * 1000).toLocaleString('en-US');
  console.log(
    `${name}: median ${perSec(med)} lines/s (${((bytes / med) * 1e-3).toFixed(1)} MB/s), best ${perSec(best)} lines/s, ` +
      `CPU-time median ${perSec(median(cpuMs))} lines/CPU-s; ${timesMs.length} rounds of ${lines} lines`,
  );
}

/** User + system CPU milliseconds of the process so far. */
function cpuNowMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Parses `body` WARMUP_ROUNDS + ROUNDS times and reports the timed rounds. */
/** Kept across rounds, as a decoding thread keeps its caches across requests. */
const caches = new LineCaches();

function measure(title: string, body: Buffer, lineCount: number): void {
  console.log(`${title}: body ${(body.length / 1e6).toFixed(1)} MB, ${lineCount} lines`);
  const parse = { wall: [] as number[], cpu: [] as number[] };
  const insert = { wall: [] as number[], cpu: [] as number[] };
  const both = { wall: [] as number[], cpu: [] as number[] };
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    const c0 = cpuNowMs();
    const t0 = performance.now();
    const batch = parseLineProtocol(body, 'ns', caches);
    const t1 = performance.now();
    const c1 = cpuNowMs();
    const inserts = toTableInserts(batch, 'public', 'ns', 0n);
    const t2 = performance.now();
    const c2 = cpuNowMs();
    if (batch.points.length !== lineCount || inserts[0]?.rowCount !== lineCount)
      throw new Error('bench: wrong row count');
    if (round >= WARMUP_ROUNDS) {
      parse.wall.push(t1 - t0);
      parse.cpu.push(c1 - c0);
      insert.wall.push(t2 - t1);
      insert.cpu.push(c2 - c1);
      both.wall.push(t2 - t0);
      both.cpu.push(c2 - c0);
    }
  }
  report('  parseLineProtocol', lineCount, body.length, parse.wall, parse.cpu);
  report('  toTableInserts', lineCount, body.length, insert.wall, insert.cpu);
  report('  parse + toTableInserts', lineCount, body.length, both.wall, both.cpu);
}

console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
// The TSBS shape: every series repeats once per timestamp, as in real scrape/agent traffic.
measure(`TSBS cpu, ${HOSTS} hosts x ${STEPS} timestamps`, tsbsCpuBody(HOSTS, STEPS), HOSTS * STEPS);
// Worst case for the series cache: every line is a new series, so every line takes the slow path.
measure(`TSBS cpu, ${HOSTS * STEPS} distinct hosts x 1 timestamp`, tsbsCpuBody(HOSTS * STEPS, 1), HOSTS * STEPS);
