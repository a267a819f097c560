/**
 * A section's systems side by side: each started fresh and loaded in turn, what it stored
 * checked, then every query warmed on each and timed on all of them interleaved, run by run,
 * so that a moment of the shared machine falls on every system alike rather than on whichever
 * ran then. Everything started is stopped at the end, also when something failed; a system that
 * fails to start or load is reported and the others go on.
 */
import { median, peakRssMiB, resetPeakRss } from '../peers/stats.js';
import { type Answer, type RunOnce, type SystemFigures, warmQuery } from './timing.js';

export interface Loaded {
  /** The process whose peak RSS is reported (the bench's own for an in-process engine). */
  pid: number;
  inProcess?: boolean;
  stored: number;
  loadSeconds: number;
  notes: string[];
  /** How to run the named query once, or null when this system does not take it. */
  query(name: string): RunOnce | null;
}

/** Starts and loads a system; registers each stop with `onStop` as soon as there is something to stop. */
export type Starter = (onStop: (stop: () => Promise<void>) => void) => Promise<Loaded>;

/** A system being timed: its figures, and how it answers while it has not failed. */
interface Running {
  figures: SystemFigures;
  loaded: Loaded;
}

function fresh(name: string, expected: number): SystemFigures {
  return { name, stored: 0, expected, peakRssMiB: 0, peakRssNote: '', loadSeconds: 0, notes: [], outcomes: new Map() };
}

async function load(name: string, expected: number, unit: string, start: Starter, stops: Array<() => Promise<void>>) {
  const figures = fresh(name, expected);
  try {
    const loaded = await start((stop) => stops.push(stop));
    figures.stored = loaded.stored;
    figures.loadSeconds = loaded.loadSeconds;
    figures.notes.push(...loaded.notes);
    const mark = loaded.stored === expected ? 'OK' : `!! MISMATCH: expected ${expected.toLocaleString('en-US')}`;
    console.log(
      `  ${name}: loaded in ${loaded.loadSeconds.toFixed(1)} s, stored ${loaded.stored.toLocaleString('en-US')} ${unit} ${mark}`,
    );
    for (const note of loaded.notes) console.log(`    note: ${note}`);
    return { figures, loaded };
  } catch (err) {
    const message = `failed: ${(err as Error).message.slice(0, 500)}`;
    figures.notes.push(message);
    console.log(`  ${name}: ${message}`);
    return { figures, loaded: null };
  }
}

/**
 * Times `queryNames` on every system of `starters`: warm-ups on each (timing.ts), then `runs`
 * rounds in which each system answers once, the order of the systems turning each round.
 */
export async function benchSystems(
  starters: Array<[string, Starter]>,
  expected: number,
  unit: string,
  queryNames: string[],
  runs: number,
): Promise<SystemFigures[]> {
  const stops: Array<() => Promise<void>> = [];
  const all: SystemFigures[] = [];
  try {
    const running: Running[] = [];
    for (const [name, start] of starters) {
      const { figures, loaded } = await load(name, expected, unit, start, stops);
      all.push(figures);
      if (loaded) running.push({ figures, loaded });
    }
    for (const { figures, loaded } of running) {
      const reset = resetPeakRss(loaded.pid);
      figures.peakRssNote = loaded.inProcess
        ? 'in process: the bench runner itself'
        : reset
          ? ''
          : 'peak since start (VmHWM reset refused)';
    }
    for (const q of queryNames) await timeInterleaved(q, running, runs);
    for (const { figures, loaded } of running) figures.peakRssMiB = peakRssMiB(loaded.pid);
  } finally {
    for (const stop of stops.reverse()) {
      await stop().catch((err: Error) => console.log(`  stop failed: ${err.message}`));
    }
  }
  return all;
}

async function timeInterleaved(q: string, running: Running[], runs: number): Promise<void> {
  const timed: Array<{ figures: SystemFigures; run: RunOnce; answer: Answer; times: number[] }> = [];
  for (const { figures, loaded } of running) {
    const run = loaded.query(q);
    if (!run) continue;
    const warm = await warmQuery(run);
    if ('error' in warm) figures.outcomes.set(q, warm);
    else timed.push({ figures, run, answer: warm.answer, times: [] });
  }
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < timed.length; k++) {
      const t = timed[(i + k) % timed.length];
      if (!t || t.figures.outcomes.has(q)) continue;
      try {
        const r = await t.run();
        // An answer that changes between runs would make the comparison meaningless.
        if (r.answer.key !== t.answer.key) {
          t.figures.outcomes.set(q, { error: `answer changed between runs: ${t.answer.key} then ${r.answer.key}` });
        } else t.times.push(r.ms);
      } catch (err) {
        t.figures.outcomes.set(q, { error: (err as Error).message.slice(0, 300) });
      }
    }
  }
  for (const t of timed) {
    if (!t.figures.outcomes.has(q)) {
      t.figures.outcomes.set(q, { medianMs: median(t.times), minMs: Math.min(...t.times), answer: t.answer });
    }
  }
  for (const { figures } of running) {
    const outcome = figures.outcomes.get(q);
    if (!outcome) continue;
    console.log(
      'error' in outcome
        ? `    ${figures.name} ${q}: ERROR ${outcome.error}`
        : `    ${figures.name} ${q}: median ${outcome.medianMs.toFixed(2)} ms, min ${outcome.minMs.toFixed(2)} ms (${outcome.answer.detail})`,
    );
  }
}
