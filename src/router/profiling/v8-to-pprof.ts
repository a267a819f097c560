/**
 * Turns the raw V8 profiles of each thread into one pprof profile, mapping every call frame back
 * to TypeScript through the source maps. CPU: one sample per distinct stack with
 * `[samples/count, cpu/nanoseconds]`. Heap: one sample per allocation site with
 * `[inuse_objects/count, inuse_space/bytes]` (live objects only, as V8 samples them).
 */
import type { Profile } from 'pprof-format';
import type { CpuProfile, HeapProfile } from '../../shared/thread-profiler.js';
import { type Frame, PprofBuilder } from './pprof-builder.js';
import type { SourceLocator } from './source-locator.js';

/** One thread's raw profile and the name its samples are labelled with. */
export interface ThreadProfile<P> {
  thread: string;
  profile: P;
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

/**
 * V8's pseudo frame for "this thread had nothing to run". Idle samples are left out: they are not
 * CPU time, and on a shard waiting for work they would hide everything else.
 */
const IDLE_FRAME = '(idle)';
const ROOT_FRAME = '(root)';

function frameOf(callFrame: CallFrame, locator: SourceLocator): Frame {
  const at = locator.locate(callFrame.url, callFrame.lineNumber, callFrame.columnNumber);
  return { name: callFrame.functionName === '' ? '(anonymous)' : callFrame.functionName, file: at.file, line: at.line };
}

export function cpuProfilesToPprof(
  threads: ThreadProfile<CpuProfile>[],
  timing: { startMs: number; durationMs: number; periodNs: number },
  locator: SourceLocator,
): Profile {
  const builder = new PprofBuilder(
    [
      ['samples', 'count'],
      ['cpu', 'nanoseconds'],
    ],
    { type: 'cpu', unit: 'nanoseconds', value: timing.periodNs },
  );
  for (const { thread, profile } of threads) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
    const hits = new Map<number, number>();
    for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
    let idle = 0;
    let total = 0;
    for (const [id, count] of hits) {
      total += count;
      const node = byId.get(id);
      if (node === undefined) continue;
      if (node.callFrame.functionName === IDLE_FRAME) {
        idle += count;
        continue;
      }
      const stack: number[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
        const frame = byId.get(at)?.callFrame;
        if (frame === undefined || frame.functionName === ROOT_FRAME) continue;
        stack.push(builder.locationOf(frameOf(frame, locator)));
      }
      builder.addSample(stack, [count, count * timing.periodNs], thread);
    }
    builder.addComment(`thread ${thread}: ${total} samples, ${idle} idle (left out)`);
  }
  return builder.build(timing.startMs, timing.durationMs);
}

export function heapProfilesToPprof(
  threads: ThreadProfile<HeapProfile>[],
  timing: { startMs: number; samplingIntervalBytes: number },
  locator: SourceLocator,
): Profile {
  const builder = new PprofBuilder(
    [
      ['inuse_objects', 'count'],
      ['inuse_space', 'bytes'],
    ],
    { type: 'space', unit: 'bytes', value: timing.samplingIntervalBytes },
  );
  for (const { thread, profile } of threads) {
    const objects = new Map<number, number>();
    for (const sample of profile.samples) objects.set(sample.nodeId, (objects.get(sample.nodeId) ?? 0) + 1);
    // Depth-first with the stack of location ids kept alongside: the tree can be deep.
    type Visit = { node: HeapProfile['head']; stack: number[] };
    const pending: Visit[] = [{ node: profile.head, stack: [] }];
    let bytes = 0;
    while (pending.length > 0) {
      const { node, stack } = pending.pop() as Visit;
      const here =
        node.callFrame.functionName === ROOT_FRAME
          ? stack
          : [builder.locationOf(frameOf(node.callFrame, locator)), ...stack];
      if (node.selfSize > 0) {
        bytes += node.selfSize;
        builder.addSample(here, [objects.get(node.id) ?? 0, node.selfSize], thread);
      }
      for (const child of node.children) pending.push({ node: child, stack: here });
    }
    builder.addComment(`thread ${thread}: ${bytes} sampled live bytes`);
  }
  return builder.build(timing.startMs, 0);
}
