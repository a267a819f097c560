/**
 * The shard's side of /debug/prof: each worker profiles its own isolate (a connected inspector
 * session only ever sees the thread that opened it) and hands the raw V8 profile to the router,
 * which maps it to sources and merges it with the other threads' (src/router/profiling/).
 */
import type { ShardTask } from '../shared/messages.js';
import { type CpuProfile, type HeapProfile, ThreadProfiler } from '../shared/thread-profiler.js';

/** The profiling tasks of the router↔shard contract. */
export type ProfileTask = Extract<ShardTask, { op: 'profile-start' | 'profile-read' | 'profile-stop' }>;

const profiler = new ThreadProfiler();

/** Runs one profiling task; the reply is null or the V8 profile the task asked for. */
export async function runProfileTask(task: ProfileTask): Promise<CpuProfile | HeapProfile | null> {
  switch (task.op) {
    case 'profile-start':
      if (task.kind === 'cpu') await profiler.startCpu(task.samplingInterval);
      else await profiler.startHeap(task.samplingInterval);
      return null;
    case 'profile-read':
      return profiler.readHeap();
    case 'profile-stop':
      if (task.kind === 'cpu') return profiler.stopCpu();
      await profiler.stopHeap();
      return null;
  }
}
