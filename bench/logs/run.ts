/**
 * Log bench (issue 13, item 8): pre-generated nginx access lines and syslog lines through
 * dissect + date pipelines, and JSON application logs through greptime_identity, posted to
 * `/v1/ingest` with `BENCH_CONCURRENCY` requests in flight (durable before acknowledgement). Per
 * data set it prints lines/s, MB/s, server CPU-seconds per GB, peak RSS and bytes on disk per line
 * (segments after a flush); then searches over the access table: a rare term, a frequent term,
 * a phrase, and a `/v1/logs` page of 100 matches.
 *
 *   BENCH_LOG_MB=1024 node dist-bench/bench/logs/run.js      (1 GB in all; default 256)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { postForAnswer } from '../http-client.js';
import { peakRssMiB, quantile, resetPeakRss } from '../peers/stats.js';
import { startBenchServer } from '../server.js';
import { accessBodies, jsonBodies, RARE_TERM, syslogBodies } from './generate.js';

const TOTAL_MB = Number(process.env.BENCH_LOG_MB ?? 256);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const LINES_PER_BODY = Number(process.env.BENCH_LINES_PER_BODY ?? 5000);

const ACCESS_PIPELINE = `processors:
  - dissect:
      field: message
      pattern: '%{ip} - %{user} [%{ts}] "%{method} %{path} %{proto}" %{status} %{size} "%{referer}" "%{agent}"'
  - date:
      field: ts
      formats:
        - "%d/%b/%Y:%H:%M:%S %z"
transform:
  - fields: [ip, user, method, proto, referer]
    type: string
  - fields: [path, agent]
    type: string
    index: fulltext
  - fields: [status, size]
    type: uint32
  - field: ts
    type: time
    index: timestamp
`;
// Syslog lines carry no year: the time index is the ingestion time (v1 adds greptime_timestamp).
const SYSLOG_PIPELINE = `processors:
  - dissect:
      field: message
      pattern: '%{month} %{day->} %{time} %{host} %{program}[%{pid}]: %{msg}'
transform:
  - fields: [host, program, msg]
    type: string
  - field: pid
    type: int32
`;

/** User + system CPU seconds of a process (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / 100;
}

function segmentBytes(dataDir: string): number {
  const out = execFileSync('du', [
    '-sb',
    '--apparent-size',
    ...fs.readdirSync(path.join(dataDir, 'shards')).map((s) => path.join(dataDir, 'shards', s, 'seg')),
  ]);
  return out
    .toString()
    .trim()
    .split('\n')
    .reduce((n, line) => n + Number(line.split('\t')[0]), 0);
}

async function sqlRows(url: string, sql: string): Promise<{ ms: number; rows: unknown[][]; error?: string }> {
  const t = performance.now();
  const res = await fetch(`${url}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql }).toString(),
  });
  const body = (await res.json()) as { output?: Array<{ records?: { rows: unknown[][] } }>; error?: string };
  return { ms: performance.now() - t, rows: body.output?.[0]?.records?.rows ?? [], error: body.error };
}

interface DataSet {
  name: string;
  table: string;
  pipeline: string;
  contentType: string;
  bodies: Buffer[];
  lines: number;
}

async function ingest(url: string, pid: number, set: DataSet): Promise<Record<string, string | number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL(`${url}/v1/ingest?db=public&table=${set.table}&pipeline_name=${set.pipeline}`);
  const bytes = set.bodies.reduce((n, b) => n + b.length, 0);
  resetPeakRss(pid);
  const cpu0 = cpuSeconds(pid);
  const health: number[] = [];
  let stop = false;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      await fetch(`${url}/health`);
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const t0 = performance.now();
  let next = 0;
  let failure = '';
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < set.bodies.length) {
        const body = set.bodies[next++] as Buffer;
        const res = await postForAnswer(agent, target, body, set.contentType);
        if (res.status !== 200 && failure === '') failure = `${res.status} ${res.text.slice(0, 200)}`;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  stop = true;
  await probe;
  agent.destroy();
  const cpu = cpuSeconds(pid) - cpu0;
  const stored = Number((await sqlRows(url, `SELECT count(*) FROM ${set.table}`)).rows[0]?.[0] ?? -1);
  await sqlRows(url, `ADMIN flush_table('${set.table}')`);
  health.sort((a, b) => a - b);
  if (failure) console.log(`  ${set.name}: first failure: ${failure}`);
  return {
    'data set': set.name,
    lines: set.lines,
    'lines/s': Math.round(set.lines / seconds),
    'MB/s': (bytes / 1e6 / seconds).toFixed(1),
    'CPU-s per GB': ((cpu / bytes) * 1e9).toFixed(1),
    'peak RSS MiB': peakRssMiB(pid),
    '/health p99 ms': quantile(health, 0.99).toFixed(1),
    stored: stored === set.lines ? 'OK' : `${stored}/${set.lines}`,
    'raw bytes/line': (bytes / set.lines).toFixed(0),
  };
}

async function main(): Promise<void> {
  const mb = TOTAL_MB * 1024 * 1024;
  console.log(`generating ${TOTAL_MB} MB of logs (half access, a quarter each syslog and JSON)...`);
  const access = accessBodies(mb / 2, LINES_PER_BODY);
  const syslog = syslogBodies(mb / 4, LINES_PER_BODY);
  const json = jsonBodies(mb / 4, LINES_PER_BODY);
  const server = await startBenchServer();
  try {
    for (const [name, yaml] of [
      ['access', ACCESS_PIPELINE],
      ['syslog', SYSLOG_PIPELINE],
    ] as const) {
      const res = await fetch(`${server.url}/v1/pipelines/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-yaml' },
        body: yaml,
      });
      if (res.status !== 200) throw new Error(`pipeline ${name}: ${await res.text()}`);
    }
    const sets: DataSet[] = [
      { name: 'nginx access, dissect+date', table: 'access', pipeline: 'access', contentType: 'text/plain', ...access },
      { name: 'syslog, dissect', table: 'syslog', pipeline: 'syslog', contentType: 'text/plain', ...syslog },
      {
        name: 'JSON app logs, greptime_identity',
        table: 'app',
        pipeline: 'greptime_identity',
        contentType: 'application/x-ndjson',
        ...json,
      },
    ];
    const results = [];
    for (const set of sets) results.push(await ingest(server.url, server.pid, set));
    const disk = segmentBytes(server.dataDir);
    const totalLines = sets.reduce((n, s) => n + s.lines, 0);
    console.table(results);
    console.log(
      `segments on disk after flush: ${(disk / 1e6).toFixed(1)} MB, ${(disk / totalLines).toFixed(1)} bytes/line over all tables`,
    );

    const searches: Array<[string, string]> = [
      ['rare term', `SELECT count(*) FROM access WHERE matches_term(path, '${RARE_TERM}')`],
      ['frequent term', `SELECT count(*) FROM access WHERE matches_term(agent, 'mozilla')`],
      ['phrase', `SELECT count(*) FROM access WHERE matches(agent, '"linux x86_64"')`],
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const [name, sql] of searches) {
      const times: number[] = [];
      let answer = '';
      for (let i = 0; i < 3; i++) {
        const r = await sqlRows(server.url, sql);
        times.push(r.ms);
        answer = r.error ?? String(r.rows[0]?.[0]);
      }
      rows.push({
        search: name,
        'best of 3 ms': Math.min(...times).toFixed(1),
        answer: answer.slice(0, 60),
        lines: access.lines,
      });
    }
    const logsBody = JSON.stringify({
      table: { catalog_name: 'greptime', schema_name: 'public', table_name: 'access' },
      time_filter: { start: '2024-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z' },
      limit: { fetch: 100 },
      columns: ['ts', 'path', 'status'],
      filters: { Single: { expr: { NamedIdent: 'path' }, filters: [{ Contains: 'camera' }] } },
      context: 'None',
      exprs: [],
    });
    const times: number[] = [];
    let n = 0;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const res = await fetch(`${server.url}/v1/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: logsBody,
      });
      const body = (await res.json()) as { output?: Array<{ records?: { rows: unknown[] } }> };
      times.push(performance.now() - t);
      n = body.output?.[0]?.records?.rows.length ?? -1;
    }
    rows.push({
      search: '/v1/logs page (100 matches)',
      'best of 3 ms': Math.min(...times).toFixed(1),
      answer: `${n} rows`,
      lines: access.lines,
    });
    console.table(rows);
    console.log(
      `rare term planted in ${access.rare} lines; ClickHouse comparison: not run (clickhouse-server not installed)`,
    );
  } finally {
    await server.stop();
  }
}

await main();
