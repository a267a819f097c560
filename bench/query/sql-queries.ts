/**
 * SQL query bench: loads TSBS-cpu rows through line protocol, then times typical analytical
 * queries (full count, group-by over every host, time-range aggregate, single-series top rows,
 * global top-k). Each query runs a few times; the median is reported with rows scanned per second.
 */
import http from 'node:http';
import { post } from '../http-client.js';
import { generateBatches, START_NS } from '../ingest/tsbs-cpu.js';

export interface QueryTiming {
  name: string;
  sql: string;
  medianMs: number;
  minMs: number;
  rowsPerSecond: number;
  answer: string;
}

export interface QueryBenchResult {
  rowsLoaded: number;
  loadSeconds: number;
  timings: QueryTiming[];
}

async function runSql(url: string, sql: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql }).toString(),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${sql}: ${res.status} ${text}`);
  return { ms, text };
}

export async function runQueryBench(url: string, rows: number, repeats = 5): Promise<QueryBenchResult> {
  const hosts = 1000;
  const rowsPerBatch = 5000;
  const batches = generateBatches(hosts, rowsPerBatch, Math.ceil(rows / rowsPerBatch));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const writeUrl = new URL(`${url}/v1/lineproto/write?db=public&precision=ns`);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches.length) {
        const b = batches[next++] as Buffer;
        const status = await post(agent, writeUrl, b);
        if (status !== 204) throw new Error(`load failed: ${status}`);
      }
    }),
  );
  const loadSeconds = (performance.now() - t0) / 1000;
  agent.destroy();
  const loaded = batches.length * rowsPerBatch;

  // Rows are 10 s apart per host: the time range covers the middle tenth of the data.
  const spanNs = BigInt(Math.floor(loaded / hosts)) * 10_000_000_000n;
  const from = START_NS + (spanNs * 45n) / 100n;
  const to = START_NS + (spanNs * 55n) / 100n;
  const queries: Array<{ name: string; sql: string }> = [
    { name: 'count(*)', sql: 'SELECT count(*) FROM cpu' },
    {
      name: 'group by host (1,000 groups)',
      sql: 'SELECT hostname, avg(usage_user), max(usage_system) FROM cpu GROUP BY hostname',
    },
    {
      name: 'time-range aggregate (10%)',
      sql: `SELECT max(usage_user), avg(usage_idle) FROM cpu WHERE greptime_timestamp >= ${from} AND greptime_timestamp < ${to}`,
    },
    {
      name: 'one series, last 10 rows',
      sql: "SELECT * FROM cpu WHERE hostname = 'host_7' ORDER BY greptime_timestamp DESC LIMIT 10",
    },
    { name: 'global top-5', sql: 'SELECT hostname, usage_user FROM cpu ORDER BY usage_user DESC LIMIT 5' },
  ];
  const timings: QueryTiming[] = [];
  for (const q of queries) {
    const times: number[] = [];
    let answer = '';
    for (let i = 0; i < repeats; i++) {
      const r = await runSql(url, q.sql);
      times.push(r.ms);
      answer = r.text;
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] as number;
    timings.push({
      name: q.name,
      sql: q.sql,
      medianMs: median,
      minMs: times[0] as number,
      rowsPerSecond: loaded / (median / 1000),
      answer: answer.length > 160 ? `${answer.slice(0, 157)}...` : answer,
    });
  }
  return { rowsLoaded: loaded, loadSeconds, timings };
}
