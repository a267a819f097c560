/**
 * `npm run bench`: runs the benchmarks in order, prints their figures and rewrites the "Latest
 * run" section of bench/RESULTS.md (the rest of that file is kept: before/after notes live there).
 *
 * Environment: BENCH_SECONDS (default 60) for the main ingest run, BENCH_HIGHCARD_SECONDS
 * (default 30) for the 100,000-host run, BENCH_QUERY_ROWS (default 2,000,000; 0 skips) for the
 * SQL query bench, BENCH_PROMQL_SERIES (default 10,000; 0 skips) for the PromQL query bench
 * (pushdown on and off), BENCH_OTLP_SECONDS (default 10; 0 skips) for OTLP logs ingest,
 * BENCH_OTLP_METRICS_SECONDS (default 10; 0 skips) for OTLP metrics ingest,
 * BENCH_PROFILE=1 to take CPU profiles of the server.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type LoadResult, runLineprotoLoad } from './ingest/lineproto-load.js';
import { describeOtlpLogs, runOtlpLogsLoad } from './ingest/otlp-logs.js';
import { describeOtlpMetrics, runOtlpMetricsLoad } from './ingest/otlp-metrics.js';
import { summariseProfiles } from './profile-summary.js';
import { describePromql, runPromqlBench } from './query/promql-queries.js';
import { type QueryBenchResult, runQueryBench } from './query/sql-queries.js';
import { startBenchServer } from './server.js';

const RESULTS = path.join(process.cwd(), 'bench', 'RESULTS.md');

function describe(r: LoadResult): string {
  const rss = r.rssMiB.map(([s, m]) => `${s}s:${m}`).join(' ');
  return [
    `hosts=${r.hosts} duration=${r.seconds.toFixed(1)}s`,
    `  rows/s acknowledged:    ${Math.round(r.rowsPerSecond).toLocaleString('en-US')}`,
    `  samples/s acknowledged: ${Math.round(r.samplesPerSecond).toLocaleString('en-US')}`,
    `  rows acknowledged: ${r.rowsAcked}  stored (SELECT count(*)): ${r.storedRows}  ${r.storedRows === r.rowsAcked ? 'OK' : 'MISMATCH'}`,
    `  failed batches: ${r.batchesFailed}`,
    `  /health during load: p50 ${r.healthP50Ms.toFixed(1)} ms, p99 ${r.healthP99Ms.toFixed(1)} ms, max ${r.healthMaxMs.toFixed(1)} ms`,
    `  server RSS MiB over time: ${rss}`,
  ].join('\n');
}

function describeQueries(q: QueryBenchResult): string {
  const lines = [`rows loaded: ${q.rowsLoaded} in ${q.loadSeconds.toFixed(1)} s`];
  for (const t of q.timings) {
    lines.push(
      `  ${t.name.padEnd(30)} median ${t.medianMs.toFixed(1).padStart(8)} ms  min ${t.minMs.toFixed(1).padStart(8)} ms  ${Math.round(t.rowsPerSecond).toLocaleString('en-US').padStart(13)} rows/s`,
    );
  }
  return lines.join('\n');
}

async function ingestRun(hosts: number, seconds: number, profileDir: string | null): Promise<LoadResult> {
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const server = await startBenchServer('', nodeArgs);
  try {
    return await runLineprotoLoad({
      url: server.url,
      serverPid: server.pid,
      hosts,
      rowsPerBatch: 5000,
      seconds,
      concurrency: 4,
    });
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 60);
  const highcardSeconds = Number(process.env.BENCH_HIGHCARD_SECONDS ?? 30);
  const profile = process.env.BENCH_PROFILE === '1';
  const profileDir = profile ? fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-prof-')) : null;

  const sections: string[] = [];
  if (seconds > 0) {
    console.log('ingest: line protocol, TSBS cpu, 1,000 hosts, 5,000-row batches, 4 in flight, WAL fsync');
    const main = await ingestRun(1000, seconds, profileDir);
    console.log(describe(main));
    sections.push(`### Line-protocol ingest, 1,000 hosts\n\n\`\`\`\n${describe(main)}\n\`\`\``);
    if (profileDir) {
      const summary = summariseProfiles(profileDir);
      console.log(summary);
      sections.push(`### CPU profile of the 1,000-host run (self time)\n\n\`\`\`\n${summary}\n\`\`\``);
    }
  }
  if (highcardSeconds > 0) {
    console.log('ingest: line protocol, TSBS cpu, 100,000 hosts (high cardinality)');
    const high = await ingestRun(100_000, highcardSeconds, null);
    console.log(describe(high));
    sections.push(`### Line-protocol ingest, 100,000 hosts\n\n\`\`\`\n${describe(high)}\n\`\`\``);
  }

  const queryRows = Number(process.env.BENCH_QUERY_ROWS ?? 2_000_000);
  if (queryRows > 0) {
    console.log(`query: SQL over ${queryRows.toLocaleString('en-US')} TSBS cpu rows (1,000 hosts)`);
    const server = await startBenchServer();
    try {
      const q = await runQueryBench(server.url, queryRows);
      console.log(describeQueries(q));
      sections.push(`### SQL queries\n\n\`\`\`\n${describeQueries(q)}\n\`\`\``);
    } finally {
      await server.stop();
    }
  }

  const otlpSeconds = Number(process.env.BENCH_OTLP_SECONDS ?? 10);
  if (otlpSeconds > 0) {
    const shape = { seconds: otlpSeconds, concurrency: 4, recordsPerRequest: 1000 };
    console.log('ingest: OTLP logs, protobuf ExportLogsServiceRequest, POST /v1/otlp/v1/logs, WAL fsync');
    const server = await startBenchServer();
    try {
      const r = await runOtlpLogsLoad({ url: server.url, ...shape });
      console.log(describeOtlpLogs(r, shape));
      sections.push(`### OTLP logs ingest\n\n\`\`\`\n${describeOtlpLogs(r, shape)}\n\`\`\``);
    } finally {
      await server.stop();
    }
  }

  const otlpMetricsSeconds = Number(process.env.BENCH_OTLP_METRICS_SECONDS ?? 10);
  if (otlpMetricsSeconds > 0) {
    const shape = { seconds: otlpMetricsSeconds, concurrency: 4 };
    console.log('ingest: OTLP metrics, protobuf ExportMetricsServiceRequest, POST /v1/otlp/v1/metrics, WAL fsync');
    const server = await startBenchServer();
    try {
      const r = await runOtlpMetricsLoad({ url: server.url, ...shape });
      console.log(describeOtlpMetrics(r, shape));
      sections.push(`### OTLP metrics ingest\n\n\`\`\`\n${describeOtlpMetrics(r, shape)}\n\`\`\``);
    } finally {
      await server.stop();
    }
  }

  const promqlSeries = Number(process.env.BENCH_PROMQL_SERIES ?? 10_000);
  if (promqlSeries > 0) {
    console.log(`query: PromQL over ${promqlSeries.toLocaleString('en-US')} series, pushdown on and off`);
    const p = await runPromqlBench(promqlSeries);
    console.log(describePromql(p));
    sections.push(`### PromQL queries

\`\`\`
${describePromql(p)}
\`\`\``);
  }

  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const cpus = os.cpus();
  const header = [
    `Date: ${new Date().toISOString()}`,
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}`,
    `Node: ${process.version}; commit ${commit}`,
    `Command: BENCH_SECONDS=${seconds} BENCH_HIGHCARD_SECONDS=${highcardSeconds} BENCH_QUERY_ROWS=${queryRows} BENCH_PROMQL_SERIES=${promqlSeries} BENCH_OTLP_SECONDS=${otlpSeconds} BENCH_OTLP_METRICS_SECONDS=${otlpMetricsSeconds}${profile ? ' BENCH_PROFILE=1' : ''} npm run bench`,
  ].join('  \n');
  const latest = `<!-- latest:start -->\n## Latest run\n\n${header}\n\n${sections.join('\n\n')}\n<!-- latest:end -->`;
  const existing = fs.existsSync(RESULTS) ? fs.readFileSync(RESULTS, 'utf8') : '# Benchmark results\n\n';
  const updated = /<!-- latest:start -->[\s\S]*<!-- latest:end -->/.test(existing)
    ? existing.replace(/<!-- latest:start -->[\s\S]*<!-- latest:end -->/, latest)
    : `${existing.trimEnd()}\n\n${latest}\n`;
  fs.writeFileSync(RESULTS, updated);
  console.log(`wrote ${RESULTS}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
