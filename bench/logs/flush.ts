/**
 * The cost of a log flush apart from ingest: the access set is posted to a fresh server whose
 * memtables never flush on their own (and never compact), then `ADMIN flush_table` writes it all
 * at once. Prints the server's CPU per line (every thread, from /proc) for each phase and its
 * peak RSS. In the full bench a flush runs beside the decoding of later bodies, so its cost shows
 * only as a lower rate, blurred by this machine's run-to-run spread; here it stands alone.
 *
 *   node dist-bench/bench/logs/flush.js            (BENCH_LOG_MB: size of the sets the access
 *                                                   half is taken from; default 384)
 */
import fs from 'node:fs';
import { startBenchServer } from '../server.js';
import { ACCESS_PIPELINE, makeSets } from './sets.js';

const MB = Number(process.env.BENCH_LOG_MB ?? 384);

/** CPU seconds the process has used, all threads. */
function cpuSeconds(pid: number): number {
  const fields = (fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}

async function sql(url: string, query: string): Promise<unknown> {
  const res = await fetch(`${url}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: query }),
  });
  return res.json();
}

async function main(): Promise<void> {
  const access = makeSets(MB * 1e6, 5000).sets.find((s) => s.table === 'access');
  if (!access) throw new Error('no access set');
  process.env.SHOALDB_MEMTABLE__FLUSH_SIZE = '8GiB';
  process.env.SHOALDB_MEMTABLE__REJECT_SIZE = '0';
  process.env.SHOALDB_SEGMENT__COMPACTION_TRIGGER = '1000';
  const server = await startBenchServer();
  try {
    const res = await fetch(`${server.url}/v1/pipelines/access`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-yaml' },
      body: ACCESS_PIPELINE,
    });
    if (res.status !== 200) throw new Error(`pipeline: ${await res.text()}`);
    const url = `${server.url}/v1/ingest?db=public&table=access&pipeline_name=access`;
    const c0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < access.bodies.length) {
          const body = access.bodies[next++] as Buffer;
          const r = await fetch(url, { method: 'POST', headers: { 'content-type': access.contentType }, body });
          if (r.status !== 200) throw new Error(`ingest ${r.status}: ${await r.text()}`);
          await r.arrayBuffer();
        }
      }),
    );
    const c1 = cpuSeconds(server.pid);
    const t1 = performance.now();
    await sql(server.url, `ADMIN flush_table('access')`);
    const c2 = cpuSeconds(server.pid);
    const t2 = performance.now();
    const count = JSON.stringify(await sql(server.url, 'SELECT count(*) FROM access'));
    const n = access.lines;
    const us = (cpu: number) => ((cpu * 1e6) / n).toFixed(2);
    console.log(
      `${n} lines: ingest ${((t1 - t0) / 1000).toFixed(2)} s, ${us(c1 - c0)} us CPU a line; ` +
        `flush ${((t2 - t1) / 1000).toFixed(2)} s, ${us(c2 - c1)} us CPU a line; peak RSS ${peakRssMiB(server.pid)} MiB; ` +
        `stored ${count.includes(String(n)) ? 'OK' : `MISMATCH ${count.slice(0, 200)}`}`,
    );
  } finally {
    await server.stop();
  }
}

await main();
