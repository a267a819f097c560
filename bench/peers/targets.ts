/**
 * The servers the side-by-side bench writes to, each started fresh with its own temporary data
 * directory: ShoalDB (default config: 2 shards, WAL fsync before acknowledging) and, when the
 * Debian package is installed, VictoriaMetrics. Each knows its endpoints and how to count what it
 * stored.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startBenchServer } from '../server.js';
import type { Pool, WorkloadName } from './pools.js';

/**
 * What a stored count needs: the tables and size of what was sent, and for VictoriaMetrics the
 * PromQL that counts it (default: every `cpu*` sample of the last day, which fits the pools).
 */
export type CountSpec = Pick<Pool, 'tables' | 'samplesPerRow' | 'samples' | 'lastMs'> & { vmCount?: string };

export interface Target {
  name: string;
  pid: number;
  /** Where each workload is posted, and with which headers. */
  endpoint(workload: WorkloadName): { url: URL; headers: Record<string, string> };
  healthUrl: string;
  /** Samples the server holds for the pool's data. */
  storedSamples(pool: CountSpec): Promise<number>;
  stop(): Promise<void>;
}

const RW_HEADERS = {
  'content-type': 'application/x-protobuf',
  'content-encoding': 'snappy',
  'x-prometheus-remote-write-version': '0.1.0',
};

/** With BENCH_PROFILE_DIR set, ShoalDB runs with `--cpu-prof` (one profile per thread there). */
export async function startShoal(): Promise<Target> {
  const dir = process.env.BENCH_PROFILE_DIR;
  // BENCH_SHOALDB_TOML: extra configuration for experiments (e.g. "[memtable]\nflush_size = ...").
  const toml = (process.env.BENCH_SHOALDB_TOML ?? '').replaceAll('\\n', '\n');
  const server = await startBenchServer(toml, dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []);
  const base = server.url;
  return {
    name: 'shoaldb',
    pid: server.pid,
    healthUrl: `${base}/health`,
    endpoint(workload) {
      if (workload === 'rw-1' || workload === 'rw-20') {
        return { url: new URL(`${base}/v1/metricsapi/write?db=public`), headers: RW_HEADERS };
      }
      if (workload === 'tsdb') return { url: new URL(`${base}/v1/tsjson/api/put`), headers: {} };
      return { url: new URL(`${base}/v1/lineproto/write?db=public&precision=ns`), headers: {} };
    },
    async storedSamples(pool) {
      let rows = 0;
      for (const table of pool.tables) {
        const res = await fetch(`${base}/v1/sql`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `sql=${encodeURIComponent(`SELECT count(*) FROM "${table}"`)}`,
        });
        const body = (await res.json()) as { output?: Array<{ records?: { rows: number[][] } }> };
        rows += Number(body.output?.[0]?.records?.rows[0]?.[0] ?? 0);
      }
      return rows * pool.samplesPerRow;
    },
    stop: () => server.stop(),
  };
}

export function victoriaMetricsInstalled(): boolean {
  try {
    execFileSync('victoria-metrics', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`victoria-metrics exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('victoria-metrics did not become healthy in 30 s');
}

export async function startVictoriaMetrics(): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vm-bench-'));
  const port = await freePort();
  const tsdbPort = await freePort();
  const child = spawn(
    'victoria-metrics',
    [
      `-storageDataPath=${dir}`,
      `-httpListenAddr=127.0.0.1:${port}`,
      `-opentsdbHTTPListenAddr=127.0.0.1:${tsdbPort}`,
      '-loggerLevel=ERROR',
      '-search.latencyOffset=0s',
      '-retentionPeriod=1y',
      // The count query of the 100,000-host pool touches 1 M series (default limit 300,000).
      '-search.maxUniqueTimeseries=5000000',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(`${base}/health`, child);
  return {
    name: 'victoria-metrics',
    pid: child.pid as number,
    healthUrl: `${base}/health`,
    endpoint(workload) {
      if (workload === 'rw-1' || workload === 'rw-20')
        return { url: new URL(`${base}/api/v1/write`), headers: RW_HEADERS };
      if (workload === 'tsdb') return { url: new URL(`http://127.0.0.1:${tsdbPort}/api/put`), headers: {} };
      return { url: new URL(`${base}/write?precision=ns`), headers: {} };
    },
    async storedSamples(pool) {
      await fetch(`${base}/internal/force_flush`);
      const at = Math.floor(pool.lastMs / 1000) + 1;
      const query = pool.vmCount ?? `sum(count_over_time({__name__=~"cpu.*"}[1d]))`;
      // VictoriaMetrics makes rows searchable a moment after force_flush: poll until stable.
      let last = -1;
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(query)}&time=${at}&nocache=1`);
        const body = (await res.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
        const count = Number(body.data?.result?.[0]?.value[1] ?? 0);
        if (count === pool.samples || (count === last && count > 0)) return count;
        last = count;
        await new Promise((r) => setTimeout(r, 500));
      }
      return last;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The servers BENCH_TARGETS names (default both), in run order, each with its starter;
 * VictoriaMetrics only when installed (said once when it is not).
 */
export function wantedTargets(): Array<[string, () => Promise<Target>]> {
  const wanted = (process.env.BENCH_TARGETS ?? 'shoaldb,victoria-metrics').split(',');
  const starters: Array<[string, () => Promise<Target>]> = [['shoaldb', startShoal]];
  if (wanted.includes('victoria-metrics')) {
    if (victoriaMetricsInstalled()) starters.push(['victoria-metrics', startVictoriaMetrics]);
    else console.log('victoria-metrics is not installed (apt-get install victoria-metrics): ShoalDB only');
  }
  return starters.filter(([name]) => wanted.includes(name));
}
