/**
 * Side-by-side query bench (issue 15): the same data in ShoalDB and in each installed peer, the
 * same questions asked of each (fresh servers, loaded in turn, queries timed interleaved).
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/query-peers/run.js
 *
 * Sections: PromQL (ShoalDB, Prometheus, VictoriaMetrics), SQL vs InfluxQL (ShoalDB, InfluxDB
 * 1.6), SQL analytics (ShoalDB, DuckDB, ClickHouse). Peers are Debian packages, used when
 * installed: `apt-get install -y prometheus victoria-metrics influxdb clickhouse-server`
 * (`influxdb` is not in CI's package list: no test needs it). DuckDB is the devDependency
 * `@duckdb/node-api`.
 *
 * Environment: BENCH_QUERY_HOSTS (1,000), BENCH_QUERY_DAY_HOSTS (100), BENCH_QUERY_RUNS (30),
 * BENCH_QUERY_ANALYTICS_ROWS (10,000,000), BENCH_QUERY_SECTIONS (promql,sql,analytics).
 *
 * The hour of data ends at the current minute, computed once: Prometheus' head takes only samples
 * near its newest, so the data has to be recent, and every system gets the very same timestamps.
 */
import { analyticsSection } from './analytics.js';
import { promqlSection } from './promql.js';
import { describeSection } from './report.js';
import { sqlSection } from './sql-influxql.js';
import type { Section } from './timing.js';

function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min} (got ${raw})`);
  return value;
}

async function main(): Promise<void> {
  // host_7 is the single host of the raw-sample queries.
  const hosts = intEnv('BENCH_QUERY_HOSTS', 1000, 8);
  const dayHosts = intEnv('BENCH_QUERY_DAY_HOSTS', 100, 1);
  const runs = intEnv('BENCH_QUERY_RUNS', 30, 1);
  const analyticsRows = intEnv('BENCH_QUERY_ANALYTICS_ROWS', 10_000_000, 1);
  const sections = (process.env.BENCH_QUERY_SECTIONS ?? 'promql,sql,analytics').split(',');
  const endMs = Math.floor(Date.now() / 60_000) * 60_000;
  console.log(
    `query bench: data ends ${new Date(endMs).toISOString()}; hosts=${hosts} dayHosts=${dayHosts} runs=${runs} analyticsRows=${analyticsRows}`,
  );

  const results: Section[] = [];
  if (sections.includes('promql')) results.push(await promqlSection(hosts, dayHosts, endMs, runs));
  if (sections.includes('sql')) results.push(await sqlSection(hosts, endMs, runs));
  if (sections.includes('analytics')) results.push(await analyticsSection(analyticsRows, hosts, endMs, runs));

  console.log('');
  for (const section of results) console.log(describeSection(section, runs).join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
