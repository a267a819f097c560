/**
 * Loading and waiting, shared by the sections. Loading is not what this bench measures, so it
 * only has to be complete and bounded: a fixed list of bodies, the first refusal stops the load
 * with the server's answer.
 */
import http from 'node:http';
import { postForAnswer } from '../http-client.js';

export const REMOTE_WRITE_HEADERS = {
  'content-type': 'application/x-protobuf',
  'content-encoding': 'snappy',
  'x-prometheus-remote-write-version': '0.1.0',
};

/**
 * Posts every body once; returns the seconds taken. `inFlight` 1 keeps the bodies' order, which
 * Prometheus needs when two bodies carry the same series (a series' samples must arrive in time
 * order, and a body overtaken by a later slice would be refused as out of order).
 */
export async function postBodies(
  url: string,
  bodies: Iterable<Buffer>,
  headers: Record<string, string> = {},
  inFlight = 2,
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const target = new URL(url);
  const iterator = bodies[Symbol.iterator]();
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        for (let next = iterator.next(); !next.done; next = iterator.next()) {
          const { status, text } = await postForAnswer(agent, target, next.value, headers);
          if (status < 200 || status >= 300)
            throw new Error(`POST ${target.pathname}: ${status} ${text.slice(0, 300)}`);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return (performance.now() - t0) / 1000;
}

/**
 * Polls `read` until it returns `expected` or the same non-zero value twice in a row `settleMs` apart
 * (some stores make new data visible a moment after a flush), for at most `timeoutMs`.
 */
export async function settledCount(
  read: () => Promise<number>,
  expected: number,
  timeoutMs = 60_000,
  settleMs = 1_000,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = Number.NaN;
  for (;;) {
    const count = await read();
    if (count === expected || (count === last && count > 0) || Date.now() > deadline) return count;
    last = count;
    await new Promise((r) => setTimeout(r, settleMs));
  }
}

/** Waits until `done` says so, at most `timeoutMs`; false when it timed out. */
export async function waitFor(done: () => Promise<boolean>, timeoutMs: number, pollMs = 500): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return false;
}

/** The answer of a GET or form POST as text, with the milliseconds until its last byte. */
export async function timedFetch(
  url: string,
  init?: RequestInit,
): Promise<{ ms: number; status: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(300_000) });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}
