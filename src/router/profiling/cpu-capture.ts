/**
 * One CPU profile of the whole process: the router's isolate and every shard's are sampled over the
 * same window, then merged into one pprof profile with a `thread` label per sample. Sampling runs
 * on V8's profiler threads, so the request only waits; ingest and queries go on meanwhile.
 * Only one capture runs at a time: V8 has one CPU profiler per isolate, and two overlapping
 * windows would each see the other's interval setting.
 */
import type { Profile } from 'pprof-format';
import type { ShardTask } from '../../shared/messages.js';
import type { CpuProfile, ThreadProfiler } from '../../shared/thread-profiler.js';
import type { SourceLocator } from './source-locator.js';
import { cpuProfilesToPprof, type ThreadProfile } from './v8-to-pprof.js';

/** What the profilers need of the shard cluster (ShardCluster implements it). */
export interface ShardBroadcast {
  readonly count: number;
  broadcast<T>(task: ShardTask): Promise<T[]>;
}

/** A second capture asked for while one runs. */
export class CpuProfileBusy extends Error {}

export interface CpuCaptureRequest {
  seconds: number;
  frequencyHz: number;
  /** `router`, `shard-N`, or null for every thread. */
  thread: string | null;
  /** Ends the window early (the client went away). */
  signal: AbortSignal;
}

export class CpuCapture {
  private running = false;

  constructor(
    private readonly shards: ShardBroadcast,
    private readonly local: ThreadProfiler,
    private readonly locator: SourceLocator,
  ) {}

  async capture(request: CpuCaptureRequest): Promise<Profile> {
    if (this.running) throw new CpuProfileBusy('a CPU profile is already being taken; retry when it has finished');
    this.running = true;
    try {
      return await this.run(request);
    } finally {
      this.running = false;
    }
  }

  private async run({ seconds, frequencyHz, thread, signal }: CpuCaptureRequest): Promise<Profile> {
    const intervalUs = Math.max(1, Math.round(1_000_000 / frequencyHz));
    const withRouter = thread === null || thread === 'router';
    // Shards are profiled together or not at all: the cluster only broadcasts. Profiling one more
    // idle isolate costs next to nothing, and the others' samples are dropped below.
    const withShards = thread === null || thread.startsWith('shard-');
    const startMs = Date.now();
    let failure: unknown = null;
    try {
      if (withRouter) await this.local.startCpu(intervalUs);
      if (withShards) await this.shards.broadcast({ op: 'profile-start', kind: 'cpu', samplingInterval: intervalUs });
      await sleep(seconds * 1000, signal);
    } catch (err) {
      failure = err;
    }
    // Stop everything whatever happened, so a failed start does not leave a profiler running.
    const [routerProfile, shardProfiles] = await Promise.allSettled([
      this.local.stopCpu(),
      withShards ? this.shards.broadcast<CpuProfile | null>({ op: 'profile-stop', kind: 'cpu' }) : Promise.resolve([]),
    ]);
    if (failure !== null) throw failure;
    if (routerProfile.status === 'rejected') throw routerProfile.reason;
    if (shardProfiles.status === 'rejected') throw shardProfiles.reason;
    const durationMs = Date.now() - startMs;
    const threads: ThreadProfile<CpuProfile>[] = [];
    if (routerProfile.value) threads.push({ thread: 'router', profile: routerProfile.value });
    shardProfiles.value.forEach((profile, id) => {
      if (profile) threads.push({ thread: `shard-${id}`, profile });
    });
    const chosen = threads.filter((t) => thread === null || t.thread === thread);
    return cpuProfilesToPprof(chosen, { startMs, durationMs, periodNs: intervalUs * 1000 }, this.locator);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
