/**
 * One system's turn in a section: start fresh, load, check what it stored, then time the queries
 * with nothing else running, and stop everything it started, also when something failed. A
 * system that fails to start or load is reported and the section goes on with the others.
 */
import { peakRssMiB, resetPeakRss } from '../peers/stats.js';
import { type RunOnce, type SystemFigures, timeQuery } from './timing.js';

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

export async function benchSystem(
  name: string,
  expected: number,
  unit: string,
  start: Starter,
  queryNames: string[],
  runs: number,
): Promise<SystemFigures> {
  const figures: SystemFigures = {
    name,
    stored: 0,
    expected,
    peakRssMiB: 0,
    peakRssNote: '',
    loadSeconds: 0,
    notes: [],
    outcomes: new Map(),
  };
  const stops: Array<() => Promise<void>> = [];
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
    const reset = resetPeakRss(loaded.pid);
    figures.peakRssNote = loaded.inProcess
      ? 'in process: the bench runner itself'
      : reset
        ? ''
        : 'peak since start (VmHWM reset refused)';
    for (const q of queryNames) {
      const run = loaded.query(q);
      if (!run) continue;
      const outcome = await timeQuery(run, runs);
      figures.outcomes.set(q, outcome);
      console.log(
        'error' in outcome
          ? `    ${q}: ERROR ${outcome.error}`
          : `    ${q}: median ${outcome.medianMs.toFixed(1)} ms, min ${outcome.minMs.toFixed(1)} ms (${outcome.answer.detail})`,
      );
    }
    figures.peakRssMiB = peakRssMiB(loaded.pid);
  } catch (err) {
    const message = `failed: ${(err as Error).message.slice(0, 500)}`;
    figures.notes.push(message);
    console.log(`  ${name}: ${message}`);
  } finally {
    for (const stop of stops.reverse()) {
      await stop().catch((err: Error) => console.log(`  ${name}: stop failed: ${err.message}`));
    }
  }
  return figures;
}
