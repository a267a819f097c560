/**
 * V8's own profilers for the calling thread. An inspector `Session` that is `connect()`ed from a
 * thread attaches to that thread's isolate, so the router (main thread) and every shard worker
 * each run one of these and sample themselves; the router merges the results (see
 * src/router/profiling/). Sampling happens inside V8 on a separate profiler thread, so nothing
 * here blocks the event loop for longer than one inspector message.
 */
import { type Profiler, type Runtime, Session } from 'node:inspector';

/** Which V8 profiler a profiling task concerns. */
export type ProfileKind = 'cpu' | 'heap';

/** Plain-data V8 profiles, as they cross the worker boundary. */
export type CpuProfile = Profiler.Profile;

/** V8's sampling heap profile; spelled out because @types/node 20 lacks `samples` and `id`. */
export interface HeapProfile {
  head: HeapProfileNode;
  /** One entry per sampled allocation still alive, pointing at its node. */
  samples: { size: number; nodeId: number; ordinal: number }[];
}

export interface HeapProfileNode {
  callFrame: Runtime.CallFrame;
  /** Estimated bytes allocated here (not in callees) and still alive. */
  selfSize: number;
  id: number;
  children: HeapProfileNode[];
}

export class ThreadProfiler {
  private session: Session | null = null;
  private cpuRunning = false;
  private heapRunning = false;

  /** Whether heap sampling is on in this thread. */
  get heapActive(): boolean {
    return this.heapRunning;
  }

  /** Starts the CPU profiler, sampling every `intervalUs` microseconds. Refuses a second start. */
  async startCpu(intervalUs: number): Promise<void> {
    if (this.cpuRunning) throw new Error('a CPU profile is already running in this thread');
    await this.post('Profiler.enable');
    // The interval must be set before start; V8 ignores changes while a profile runs.
    await this.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.post('Profiler.start');
    this.cpuRunning = true;
  }

  /** Stops the CPU profiler and returns what it recorded; null when none was running. */
  async stopCpu(): Promise<CpuProfile | null> {
    if (!this.cpuRunning) return null;
    this.cpuRunning = false;
    const { profile } = await this.post<Profiler.StopReturnType>('Profiler.stop');
    await this.post('Profiler.disable');
    return profile;
  }

  /**
   * Starts sampling allocations, one sample per `intervalBytes` allocated on average. Only
   * objects still alive when the profile is read are reported (V8's default), which is what a
   * heap dump is for. Starting twice keeps the first session's samples.
   */
  async startHeap(intervalBytes: number): Promise<void> {
    if (this.heapRunning) return;
    await this.post('HeapProfiler.enable');
    await this.post('HeapProfiler.startSampling', { samplingInterval: intervalBytes });
    this.heapRunning = true;
  }

  /** The live sampled allocations so far; sampling goes on. Null when heap sampling is off. */
  async readHeap(): Promise<HeapProfile | null> {
    if (!this.heapRunning) return null;
    const { profile } = await this.post<{ profile: HeapProfile }>('HeapProfiler.getSamplingProfile');
    return profile;
  }

  /** Stops heap sampling and drops its samples. */
  async stopHeap(): Promise<void> {
    if (!this.heapRunning) return;
    this.heapRunning = false;
    await this.post('HeapProfiler.stopSampling');
    await this.post('HeapProfiler.disable');
  }

  private post<T = void>(method: string, params?: object): Promise<T> {
    if (this.session === null) {
      this.session = new Session();
      this.session.connect();
    }
    const session = this.session;
    return new Promise<T>((resolve, reject) => {
      session.post(method, params ?? {}, (err, result) => {
        if (err) reject(err);
        else resolve(result as T);
      });
    });
  }
}
