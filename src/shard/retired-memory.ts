/**
 * A full garbage collection right after a flush has retired its memtable.
 *
 * A frozen memtable's columns are ArrayBuffers held by objects that
 * lived long enough to reach V8's old generation, so they are freed only by a mark-compact; with
 * the old generation allowed to grow 4× (src/main.ts) one may not come for seconds, and a
 * shard then holds a dead 64 MiB memtable beside the live one. Collecting at once returns that
 * memory when it is known to be garbage: lp-narrow's peak RSS fell by about 35 MiB
 * (bench/RESULTS.md). `gc` exists because src/main.ts sets `--expose-gc` before the shard
 * isolates start; without it this does nothing. At most one collection in five seconds, and none
 * after compactions: collecting after those too, at most once a second, cost remote write about
 * 10% of its CPU a request for no lower peak.
 */
import { performance } from 'node:perf_hooks';

const MIN_INTERVAL_MS = 5000;
let lastMs = Number.NEGATIVE_INFINITY;

/** Runs the collection unless one ran in the last MIN_INTERVAL_MS; true when it ran. */
export function collectRetiredMemory(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  const now = performance.now();
  if (now - lastMs < MIN_INTERVAL_MS) return false;
  lastMs = now;
  gc();
  return true;
}
