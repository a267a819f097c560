/**
 * Heap profiling of the whole process: while active, V8's sampling heap profiler runs in the
 * router and in every shard, and a dump merges what each still holds into one pprof profile
 * (sample values in bytes, a `thread` label per sample). Sampling costs a little on every
 * allocation, so it is off until activated (or `[debug] heap_profiling = true`).
 */
import type { Profile } from 'pprof-format';
import type { HeapProfile, ThreadProfiler } from '../../shared/thread-profiler.js';
import type { ShardBroadcast } from './cpu-capture.js';
import type { SourceLocator } from './source-locator.js';
import { heapProfilesToPprof, type ThreadProfile } from './v8-to-pprof.js';

/**
 * Average bytes allocated between two samples: V8's default. Smaller finds rarer allocation sites
 * but costs more per allocation; a dump scales sizes back up, so totals are estimates either way.
 */
export const HEAP_SAMPLING_INTERVAL_BYTES = 32 * 1024;

export class HeapCapture {
  private activeSince: number | null = null;

  constructor(
    private readonly shards: ShardBroadcast,
    private readonly local: ThreadProfiler,
    private readonly locator: SourceLocator,
  ) {}

  get active(): boolean {
    return this.activeSince !== null;
  }

  /** Starts sampling in every thread; activating again changes nothing. */
  async activate(): Promise<void> {
    if (this.activeSince !== null) return;
    try {
      await this.local.startHeap(HEAP_SAMPLING_INTERVAL_BYTES);
      await this.shards.broadcast({
        op: 'profile-start',
        kind: 'heap',
        samplingInterval: HEAP_SAMPLING_INTERVAL_BYTES,
      });
    } catch (err) {
      await this.stopAll();
      throw err;
    }
    this.activeSince = Date.now();
  }

  /** Stops sampling everywhere and forgets the samples. */
  async deactivate(): Promise<void> {
    this.activeSince = null;
    await this.stopAll();
  }

  /** What every thread holds now, as sampled since activation. Call only while active. */
  async dump(): Promise<Profile> {
    const [routerProfile, shardProfiles] = await Promise.all([
      this.local.readHeap(),
      this.shards.broadcast<HeapProfile | null>({ op: 'profile-read', kind: 'heap' }),
    ]);
    const threads: ThreadProfile<HeapProfile>[] = [];
    if (routerProfile) threads.push({ thread: 'router', profile: routerProfile });
    shardProfiles.forEach((profile, id) => {
      if (profile) threads.push({ thread: `shard-${id}`, profile });
    });
    return heapProfilesToPprof(
      threads,
      { startMs: Date.now(), samplingIntervalBytes: HEAP_SAMPLING_INTERVAL_BYTES },
      this.locator,
    );
  }

  private async stopAll(): Promise<void> {
    await Promise.allSettled([this.local.stopHeap(), this.shards.broadcast({ op: 'profile-stop', kind: 'heap' })]);
  }
}
