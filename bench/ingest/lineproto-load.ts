/**
 * Ingest load generator: TSBS-cpu line-protocol batches of 5,000 rows sent over keep-alive
 * connections with a few requests in flight, for a bounded time. Reports rows/s and samples/s
 * acknowledged, /health latency during the load, the server's RSS over time, and checks the stored
 * count through SQL afterwards.
 */

import fs from 'node:fs';
import http from 'node:http';
import { post } from '../http-client.js';
import { FIELDS_PER_ROW, generateBatches, START_NS } from './tsbs-cpu.js';

export interface LoadOptions {
  url: string;
  serverPid: number;
  hosts: number;
  rowsPerBatch: number;
  seconds: number;
  concurrency: number;
}

export interface LoadResult {
  hosts: number;
  seconds: number;
  rowsAcked: number;
  rowsPerSecond: number;
  samplesPerSecond: number;
  batchesFailed: number;
  healthP50Ms: number;
  healthP99Ms: number;
  healthMaxMs: number;
  rssMiB: Array<[number, number]>;
  storedRows: number;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Batch templates with fixed-width timestamps and the offset of each, so that batch k can be made
 * by copying a template and patching its timestamps: cheap enough that the generator does not
 * compete with the server for the CPU.
 */
class BatchFactory {
  private readonly templates: Array<{ body: Buffer; offsets: number[] }> = [];

  constructor(
    private readonly hosts: number,
    private readonly rowsPerBatch: number,
  ) {
    const count = hosts / gcd(hosts, rowsPerBatch);
    const bodies = generateBatches(hosts, rowsPerBatch, count);
    for (const body of bodies) {
      const offsets: number[] = [];
      let lineStart = 0;
      for (let i = 0; i <= body.length; i++) {
        if (i === body.length || body[i] === 0x0a) {
          offsets.push(i - 19);
          lineStart = i + 1;
        }
      }
      void lineStart;
      this.templates.push({ body, offsets });
    }
  }

  make(k: number): Buffer {
    const t = this.templates[k % this.templates.length] as { body: Buffer; offsets: number[] };
    const body = Buffer.from(t.body);
    const firstRow = k * this.rowsPerBatch;
    for (let i = 0; i < t.offsets.length; i++) {
      const row = firstRow + i;
      const ts = START_NS + BigInt(Math.floor(row / this.hosts)) * 10_000_000_000n;
      body.write(ts.toString(), t.offsets[i] as number, 'latin1');
    }
    return body;
  }
}

function get(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export async function runLineprotoLoad(opts: LoadOptions): Promise<LoadResult> {
  const factory = new BatchFactory(opts.hosts, opts.rowsPerBatch);
  const writeUrl = new URL(`${opts.url}/v1/lineproto/write?db=public&precision=ns`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  let next = 0;
  let rowsAcked = 0;
  let batchesFailed = 0;
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  const healthMs: number[] = [];
  const rss: Array<[number, number]> = [];

  const probe = (async () => {
    let lastRss = -1;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await get(probeAgent, `${opts.url}/health`);
      healthMs.push(performance.now() - t0);
      const elapsed = Math.floor((performance.now() - started) / 1000);
      if (elapsed % 5 === 0 && elapsed !== lastRss) {
        lastRss = elapsed;
        rss.push([elapsed, rssMiB(opts.serverPid)]);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const k = next++;
      const status = await post(agent, writeUrl, factory.make(k));
      if (status === 204) rowsAcked += opts.rowsPerBatch;
      else batchesFailed++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  await probe;
  agent.destroy();
  probeAgent.destroy();

  const res = await fetch(`${opts.url}/v1/sql?sql=${encodeURIComponent('SELECT count(*) FROM cpu')}`);
  const body = (await res.json()) as { output?: Array<{ records?: { rows: number[][] } }> };
  const storedRows = Number(body.output?.[0]?.records?.rows[0]?.[0] ?? -1);

  healthMs.sort((a, b) => a - b);
  return {
    hosts: opts.hosts,
    seconds: elapsedS,
    rowsAcked,
    rowsPerSecond: rowsAcked / elapsedS,
    samplesPerSecond: (rowsAcked * FIELDS_PER_ROW) / elapsedS,
    batchesFailed,
    healthP50Ms: percentile(healthMs, 50),
    healthP99Ms: percentile(healthMs, 99),
    healthMaxMs: healthMs[healthMs.length - 1] ?? 0,
    rssMiB: rss,
    storedRows,
  };
}
