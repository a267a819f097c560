/**
 * The log bench on a fresh ShoalDB: the access and syslog pipelines registered, each data set
 * posted raw to `/v1/ingest` (durable before acknowledgement), counted, flushed; then the
 * searches over the access table. Prints ShoalDB's own tables as before and returns the figures.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startBenchServer } from '../server.js';
import { RARE_TERM } from './generate.js';
import { bestOfThree, type IngestFigures, postAll, type RunFigures, type SearchFigures } from './load.js';
import { ACCESS_PIPELINE, type LogSet, SYSLOG_PIPELINE } from './sets.js';

async function sqlRows(url: string, sql: string): Promise<{ rows: unknown[][]; error?: string }> {
  const res = await fetch(`${url}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql }).toString(),
  });
  const body = (await res.json()) as { output?: Array<{ records?: { rows: unknown[][] } }>; error?: string };
  return { rows: body.output?.[0]?.records?.rows ?? [], ...(body.error === undefined ? {} : { error: body.error }) };
}

/** Every table directory of every shard (`shards/<n>/seg/<table id>`). */
function tableDirs(dataDir: string): Set<string> {
  const dirs = new Set<string>();
  const shards = path.join(dataDir, 'shards');
  for (const shard of fs.readdirSync(shards)) {
    const seg = path.join(shards, shard, 'seg');
    if (!fs.existsSync(seg)) continue;
    for (const table of fs.readdirSync(seg)) dirs.add(path.join(seg, table));
  }
  return dirs;
}

function duBytes(paths: string[]): number {
  if (paths.length === 0) return 0;
  return execFileSync('du', ['-sb', '--apparent-size', ...paths])
    .toString()
    .trim()
    .split('\n')
    .reduce((n, line) => n + Number(line.split('\t')[0]), 0);
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** ShoalDB's ingest table as the log bench always printed it, plus bytes on disk per line. */
export function printIngestTable(sets: LogSet[], figures: IngestFigures[]): void {
  console.table(
    figures.map((f, i) => {
      const set = sets[i] as LogSet;
      return {
        'data set': set.name,
        lines: set.lines,
        'lines/s': Math.round(f.linesPerSecond),
        'MB/s': f.mbPerSecond.toFixed(1),
        'CPU-s per GB': f.cpuSecondsPerGb.toFixed(1),
        'peak RSS MiB': f.peakRssMiB,
        '/health p99 ms': f.healthP99Ms.toFixed(1),
        stored: f.stored === set.lines ? 'OK' : `${f.stored}/${set.lines}`,
        'raw bytes/line': (set.rawBytes / set.lines).toFixed(0),
        'disk bytes/line': fixed(f.diskBytesPerLine, 1),
      };
    }),
  );
}

/** One ShoalDB run on a fresh server, always stopped. */
export async function runShoal(sets: LogSet[], concurrency: number, search = true): Promise<RunFigures> {
  const server = await startBenchServer();
  console.log(`  server ${server.url} pid ${server.pid}`);
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
    const ingest: IngestFigures[] = [];
    const dirsOf: string[][] = [];
    for (const set of sets) {
      const before = tableDirs(server.dataDir);
      const f = await postAll({
        url: new URL(`${server.url}/v1/ingest?db=public&table=${set.table}&pipeline_name=${set.pipeline}`),
        headers: { 'content-type': set.contentType },
        bodies: set.bodies,
        rawBytes: set.rawBytes,
        lines: set.lines,
        concurrency,
        pid: server.pid,
        healthUrl: `${server.url}/health`,
      });
      f.stored = Number((await sqlRows(server.url, `SELECT count(*) FROM ${set.table}`)).rows[0]?.[0] ?? -1);
      await sqlRows(server.url, `ADMIN flush_table('${set.table}')`);
      if (f.firstFailure) console.log(`  ${set.name}: first failure: ${f.firstFailure}`);
      dirsOf.push([...tableDirs(server.dataDir)].filter((d) => !before.has(d)));
      ingest.push(f);
    }
    // Sizes after every flush: a table's directories are the ones that appeared during its ingest.
    sets.forEach((set, i) => {
      (ingest[i] as IngestFigures).diskBytesPerLine = duBytes(dirsOf[i] ?? []) / set.lines;
    });
    printIngestTable(sets, ingest);
    const disk = duBytes([...tableDirs(server.dataDir)]);
    const totalLines = sets.reduce((n, s) => n + s.lines, 0);
    console.log(
      `segments on disk after flush: ${(disk / 1e6).toFixed(1)} MB, ${(disk / totalLines).toFixed(1)} bytes/line over all tables`,
    );

    if (!search) return { ingest, searches: [] };
    const count = (sql: string) => async () => {
      const r = await sqlRows(server.url, sql);
      return r.error ?? String(r.rows[0]?.[0]);
    };
    const searches: SearchFigures[] = [];
    const queries: Array<[string, () => Promise<string>]> = [
      ['rare term', count(`SELECT count(*) FROM access WHERE matches_term(path, '${RARE_TERM}')`)],
      // matches_term is case-sensitive, as in GreptimeDB: the agents say "Mozilla".
      ['frequent term', count(`SELECT count(*) FROM access WHERE matches_term(agent, 'Mozilla')`)],
      // A term with a space matches the words next to each other (ShoalDB has no `matches`).
      ['phrase', count(`SELECT count(*) FROM access WHERE matches_term(agent, 'Linux x86_64')`)],
      ['page of 100 matches', () => logsPage(server.url)],
    ];
    for (const [search, run] of queries) searches.push({ search, ...(await bestOfThree(run)) });
    const accessLines = sets.find((s) => s.table === 'access')?.lines ?? 0;
    console.table(
      searches.map((s) => ({
        search: s.search === 'page of 100 matches' ? '/v1/logs page (100 matches)' : s.search,
        'best of 3 ms': s.ms.toFixed(1),
        answer: s.answer.slice(0, 60),
        lines: accessLines,
      })),
    );
    return { ingest, searches };
  } finally {
    await server.stop();
  }
}

/** A `/v1/logs` page of 100 access lines whose path contains "camera". */
async function logsPage(url: string): Promise<string> {
  const res = await fetch(`${url}/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      table: { catalog_name: 'greptime', schema_name: 'public', table_name: 'access' },
      time_filter: { start: '2024-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z' },
      limit: { fetch: 100 },
      columns: ['ts', 'path', 'status'],
      filters: { Single: { expr: { NamedIdent: 'path' }, filters: [{ Contains: 'camera' }] } },
      context: 'None',
      exprs: [],
    }),
  });
  const body = (await res.json()) as { output?: Array<{ records?: { rows: unknown[] } }> };
  return `${body.output?.[0]?.records?.rows.length ?? -1} rows`;
}
