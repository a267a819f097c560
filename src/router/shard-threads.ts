/**
 * The shard worker threads, started apart from the rest of the router so that `main.ts` can start
 * them before it loads the router's modules: each thread then loads its own module graph on the
 * other core while the router loads its own, and start-up takes the longer of the two instead of
 * their sum (about 2 s less on a 2-core machine; every test that starts a server pays it).
 * Only `piscina`, Node's own modules and the dependency-free package-paths may be imported here.
 */
import path from 'node:path';
import { Piscina } from 'piscina';
import { FROM_SOURCES, PACKAGE_ROOT } from '../shared/package-paths.js';

/** Group commits sent to a shard before the first of them is answered. */
export const WRITE_TASKS_IN_FLIGHT = 2;
/** Decode tasks one shard runs at once: one decoding while the previous answer travels back. */
export const DECODES_IN_FLIGHT = 2;
/**
 * Query tasks one shard runs at once. With the write and decode tasks above they fill the worker's
 * task slots (concurrentTasksPerWorker), so a write never queues behind queries in Piscina; more
 * queries wait in the router for a slot.
 */
export const QUERIES_IN_FLIGHT = 4;
/** Worker task slots: writes, decodes and queries, each bounded above; control tasks queue in Piscina. */
const TASK_SLOTS = WRITE_TASKS_IN_FLIGHT + DECODES_IN_FLIGHT + QUERIES_IN_FLIGHT;
const CONTROL_TASKS_QUEUED_MAX = 1024;

/** The shard worker's entry: the bundle in dist, or its TypeScript source under a TS loader. */
function workerFilename(): string {
  return FROM_SOURCES
    ? path.join(PACKAGE_ROOT, 'src', 'shard', 'worker.ts')
    : path.join(PACKAGE_ROOT, 'dist', 'shard', 'worker.js');
}

/**
 * One Piscina pool of exactly one thread per shard, so a shard's state (WAL, memtable, segments)
 * lives in one place. The threads start now; `ShardCluster.start` opens their storage.
 */
export function startShardThreads(count: number): Piscina[] {
  const filename = workerFilename();
  const pools: Piscina[] = [];
  for (let id = 0; id < count; id++) {
    pools.push(
      new Piscina({
        filename,
        minThreads: 1,
        maxThreads: 1,
        idleTimeout: 60_000,
        atomics: 'disabled',
        // Piscina's own wait and run-time histograms: nothing reads them (the shards' own
        // figures are in /metrics), and they were ~3% of the router's profile under small writes.
        recordTiming: false,
        // Queries and decodes run while a write task awaits its fsync; each kind is bounded above.
        concurrentTasksPerWorker: TASK_SLOTS,
        // Only control tasks (stats, flush, profiles, tracing) can queue here, and they are few.
        // Piscina's 'auto' bound (1 for one thread) refused any task past the slots plus one.
        maxQueue: CONTROL_TASKS_QUEUED_MAX,
      }),
    );
  }
  return pools;
}
