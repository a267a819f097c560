/**
 * The load driver both log-bench targets share: posts pre-made bodies with a fixed number of
 * requests in flight and measures, over the posting window only, the server's CPU seconds, its
 * peak RSS and the latency of its health endpoint. The server's work after the last answer
 * (flushes, merges) is not counted for either target.
 */
import fs from 'node:fs';
import http from 'node:http';
import { postForAnswer } from '../http-client.js';
import { peakRssMiB, quantile, resetPeakRss } from '../peers/stats.js';

/** What one data set's ingest measured on one target; per-line figures use the raw log lines. */
export interface IngestFigures {
  linesPerSecond: number;
  mbPerSecond: number;
  cpuSecondsPerGb: number;
  peakRssMiB: number;
  healthP99Ms: number;
  /** Rows the target holds afterwards (-1 when the count failed). */
  stored: number;
  /** Bytes on disk of the data set's table divided by its lines (NaN when not measured). */
  diskBytesPerLine: number;
  firstFailure: string;
}

/** A search's best-of-3 time and its answer (a count, or rows of a page, or an error). */
export interface SearchFigures {
  search: string;
  ms: number;
  answer: string;
}

/** Everything one run on one target measured. */
export interface RunFigures {
  ingest: IngestFigures[];
  searches: SearchFigures[];
}

/** User + system CPU seconds of a process (clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / 100;
}

export interface LoadSpec {
  url: URL;
  headers: Record<string, string>;
  bodies: Buffer[];
  /** Bytes of the raw log lines the bodies carry (MB/s and CPU per GB are of these). */
  rawBytes: number;
  lines: number;
  concurrency: number;
  pid: number;
  healthUrl: string;
}

/** Posts every body and returns the figures of the window; `stored` and disk are left to the caller. */
export async function postAll(spec: LoadSpec): Promise<IngestFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency });
  resetPeakRss(spec.pid);
  const cpu0 = cpuSeconds(spec.pid);
  const health: number[] = [];
  let stop = false;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      await fetch(spec.healthUrl);
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const t0 = performance.now();
  let next = 0;
  let firstFailure = '';
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      while (next < spec.bodies.length) {
        const body = spec.bodies[next++] as Buffer;
        const res = await postForAnswer(agent, spec.url, body, spec.headers);
        if (res.status !== 200 && firstFailure === '') firstFailure = `${res.status} ${res.text.slice(0, 200)}`;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(spec.pid) - cpu0;
  const peak = peakRssMiB(spec.pid);
  stop = true;
  await probe;
  agent.destroy();
  health.sort((a, b) => a - b);
  return {
    linesPerSecond: spec.lines / seconds,
    mbPerSecond: spec.rawBytes / 1e6 / seconds,
    cpuSecondsPerGb: (cpu / spec.rawBytes) * 1e9,
    peakRssMiB: peak,
    healthP99Ms: quantile(health, 0.99),
    stored: -1,
    diskBytesPerLine: Number.NaN,
    firstFailure,
  };
}

/** The best of three timings of `run`, with the answer of the last. */
export async function bestOfThree(run: () => Promise<string>): Promise<{ ms: number; answer: string }> {
  let best = Number.POSITIVE_INFINITY;
  let answer = '';
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    answer = await run();
    best = Math.min(best, performance.now() - t);
  }
  return { ms: best, answer };
}
