/**
 * One phase of the mixed bench: writers post for a fixed time while `inFlight` loops each keep one
 * query outstanding (the next is sent as soon as an answer arrives) and a prober times /health.
 */
import http from 'node:http';
import { postForAnswer } from '../http-client.js';
import { peakRssMiB, resetPeakRss } from '../peers/stats.js';
import type { Target } from '../peers/targets.js';
import { type BodySource, ROWS_PER_BODY } from './bodies.js';
import type { Query } from './queries.js';

export interface PhaseResult {
  rows: number;
  /** From the start to the last write's answer. */
  seconds: number;
  failedWrites: number;
  queryMs: number[];
  failedQueries: number;
  healthMs: number[];
  failedProbes: number;
  firstFailure: string;
  peakRssMiB: number;
  /** False when the kernel would not reset the peak, so it counts from the server's start. */
  peakOfPhase: boolean;
  lastMs: number;
}

const PROBE_EVERY_MS = 20;
/**
 * How long answers still out at the end may take before their connections are dropped: a slow
 * query must not stretch the run without bound (both servers cancel a query whose client left).
 */
const DRAIN_MS = 15_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function get(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) =>
    http.get(url, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0))).on('error', reject),
  );
}

export async function runPhase(
  target: Target,
  bodies: BodySource,
  writers: number,
  seconds: number,
  query: Query | undefined,
  inFlight: number,
): Promise<PhaseResult> {
  const { url, headers } = target.endpoint('lp-narrow');
  const writeAgent = new http.Agent({ keepAlive: true, maxSockets: writers });
  const queryAgent = new http.Agent({ keepAlive: true, maxSockets: Math.max(1, inFlight) });
  const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const r: PhaseResult = {
    rows: 0,
    seconds: 0,
    failedWrites: 0,
    queryMs: [],
    failedQueries: 0,
    healthMs: [],
    failedProbes: 0,
    firstFailure: '',
    peakRssMiB: 0,
    peakOfPhase: resetPeakRss(target.pid),
    lastMs: 0,
  };
  const started = performance.now();
  const deadline = started + seconds * 1000;

  const writing = Array.from({ length: writers }, async () => {
    while (performance.now() < deadline) {
      const { body, ms } = bodies.take();
      try {
        const answer = await postForAnswer(writeAgent, url, body, headers);
        if (answer.status >= 200 && answer.status < 300) {
          r.rows += ROWS_PER_BODY;
          r.lastMs = Math.max(r.lastMs, ms);
        } else {
          r.failedWrites++;
          r.firstFailure ||= `write ${answer.status} ${answer.text.slice(0, 200)}`;
        }
      } catch (err) {
        r.failedWrites++;
        r.firstFailure ||= `write: ${(err as Error).message}`;
        await sleep(100);
      }
    }
  });

  const querying = Array.from({ length: query ? inFlight : 0 }, async () => {
    const q = query as Query;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const answer = await postForAnswer(queryAgent, q.url, q.body, q.headers);
        if (answer.status === 200) r.queryMs.push(performance.now() - t0);
        else {
          r.failedQueries++;
          r.firstFailure ||= `query ${answer.status} ${answer.text.slice(0, 200)}`;
        }
      } catch (err) {
        r.failedQueries++;
        r.firstFailure ||= `query: ${(err as Error).message}`;
        await sleep(100);
      }
    }
  });

  let probing = true;
  const probe = (async () => {
    while (probing) {
      const t0 = performance.now();
      try {
        if ((await get(probeAgent, target.healthUrl)) === 200) r.healthMs.push(performance.now() - t0);
        else r.failedProbes++;
      } catch {
        r.failedProbes++;
      }
      await sleep(PROBE_EVERY_MS);
    }
  })();

  await Promise.all(writing);
  r.seconds = (performance.now() - started) / 1000;
  probing = false;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all([...querying, probe]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, DRAIN_MS);
    }),
  ]);
  clearTimeout(timer);
  for (const agent of [writeAgent, queryAgent, probeAgent]) agent.destroy();
  await Promise.all([...querying, probe]);
  r.peakRssMiB = peakRssMiB(target.pid);
  r.queryMs.sort((a, b) => a - b);
  r.healthMs.sort((a, b) => a - b);
  return r;
}
