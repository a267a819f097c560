/**
 * What profiling costs ingest: line-protocol write throughput in alternating phases with nothing
 * running, with a 99 Hz CPU profile of every thread (`POST /debug/prof/cpu`), and with heap
 * sampling active. Phases alternate (off, cpu, off, heap, ... off) so drift on a shared machine
 * shows up rather than being charged to one side. Bounded: BENCH_PHASE_SECONDS (default 10) each.
 *
 * Run: npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/profiling/profile-overhead.js
 */
import fs from 'node:fs';
import os from 'node:os';
import { runLineprotoLoad } from '../ingest/lineproto-load.js';
import { startBenchServer } from '../server.js';

type Phase = 'off' | 'cpu 99 Hz' | 'heap sampling';

const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 10);
const PHASES: Phase[] = ['off', 'cpu 99 Hz', 'off', 'heap sampling', 'off', 'cpu 99 Hz', 'off', 'heap sampling', 'off'];

/**
 * The server's user+system CPU seconds so far (/proc/<pid>/stat, clock ticks of 10 ms). CPU per
 * row is the steadier figure on a shared machine: throughput also moves with other processes.
 */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function main(): Promise<void> {
  const server = await startBenchServer();
  try {
    const load = (seconds: number) =>
      runLineprotoLoad({
        url: server.url,
        serverPid: server.pid,
        hosts: 1000,
        rowsPerBatch: 5000,
        seconds,
        concurrency: 2,
      });
    await load(3); // warm-up: JIT, table creation, series caches
    const results: { phase: Phase; rowsPerSecond: number; cpuUsPerRow: number; healthP99Ms: number; note: string }[] =
      [];
    for (const phase of PHASES) {
      let note = '';
      let profile: Promise<void> = Promise.resolve();
      if (phase === 'cpu 99 Hz') {
        profile = fetch(`${server.url}/debug/prof/cpu?seconds=${PHASE_SECONDS}&frequency=99`, { method: 'POST' }).then(
          async (res) => {
            note = `profile ${res.status}, ${(await res.arrayBuffer()).byteLength} bytes gzipped`;
          },
        );
      }
      if (phase === 'heap sampling') await fetch(`${server.url}/debug/prof/mem/activate`, { method: 'POST' });
      const cpuBefore = cpuSeconds(server.pid);
      const result = await load(PHASE_SECONDS);
      await profile;
      const cpuUsPerRow = ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(1, result.rowsAcked);
      if (phase === 'heap sampling') {
        const dump = await fetch(`${server.url}/debug/prof/mem?output=proto`, { method: 'POST' });
        note = `dump ${dump.status}, ${(await dump.arrayBuffer()).byteLength} bytes gzipped`;
        await fetch(`${server.url}/debug/prof/mem/deactivate`, { method: 'POST' });
      }
      results.push({ phase, rowsPerSecond: result.rowsPerSecond, cpuUsPerRow, healthP99Ms: result.healthP99Ms, note });
      console.error(
        `${phase}: ${Math.round(result.rowsPerSecond)} rows/s, ${cpuUsPerRow.toFixed(2)} CPU µs/row ${note}`,
      );
    }
    const mean = (phase: Phase, of: (r: (typeof results)[number]) => number): number => {
      const values = results.filter((r) => r.phase === phase).map(of);
      return values.reduce((a, b) => a + b, 0) / values.length;
    };
    const rate = (r: (typeof results)[number]): number => r.rowsPerSecond;
    const cpu = (r: (typeof results)[number]): number => r.cpuUsPerRow;
    console.log(
      `${new Date().toISOString()} ${os.cpus().length} vCPU, Node ${process.version}, load ${os.loadavg()[0]?.toFixed(1)}`,
    );
    console.log('| phase | rows/s | server CPU µs/row | /health p99 ms | note |\n|---|---|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.phase} | ${Math.round(r.rowsPerSecond).toLocaleString('en')} | ${r.cpuUsPerRow.toFixed(2)} | ${r.healthP99Ms.toFixed(1)} | ${r.note} |`,
      );
    }
    for (const phase of ['cpu 99 Hz', 'heap sampling'] as const) {
      const rates = `${Math.round(mean(phase, rate))} rows/s = ${((100 * mean(phase, rate)) / mean('off', rate)).toFixed(1)}%`;
      const cpus = `${mean(phase, cpu).toFixed(2)} CPU µs/row = ${((100 * mean(phase, cpu)) / mean('off', cpu)).toFixed(1)}%`;
      console.log(`${phase}: ${rates}, ${cpus} of off`);
    }
  } finally {
    await server.stop();
  }
}

await main();
