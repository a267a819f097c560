/**
 * Coverage-guided fuzzing on V8's own block coverage. `@jazzer.js/core` is the library for this,
 * but it does not install here: 4.0.0's prebuilt binary needs glibc 2.38 (Debian 12 has 2.36),
 * and 2.x/3.x fetch their binaries from GitHub at install or build them from source. V8 already
 * counts every block a function runs (the inspector's precise coverage), so the loop below
 * keeps, as libFuzzer does, each input that runs a block — or a block a number of times — that no
 * earlier input did, and mutates the kept ones further. Inputs then reach what a random input
 * almost never does: the inside of a check that needs several bytes right at once.
 *
 * Coverage is read after every input (a fraction of a millisecond in this process), so a guided
 * run is slower per input than a random one; what it buys is depth.
 */
import inspector from 'node:inspector';

/** Taken from V8 per function: source ranges and how often they ran. */
interface FunctionCoverage {
  ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
}
interface ScriptCoverage {
  scriptId: string;
  url: string;
  functions: FunctionCoverage[];
}

/** Hit counts in AFL's buckets: a loop running once more is not news, running 8× instead of 2× is. */
function bucket(count: number): number {
  if (count <= 3) return count;
  if (count <= 7) return 4;
  if (count <= 15) return 5;
  if (count <= 31) return 6;
  if (count <= 127) return 7;
  return 8;
}

/** Block coverage of the scripts `watched` accepts, read and reset per input. */
export class BlockCoverage {
  private readonly session = new inspector.Session();
  private readonly watchedScripts = new Map<string, boolean>();

  constructor(private readonly watched: (url: string) => boolean) {
    this.session.connect();
    this.post('Profiler.enable');
    this.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  }

  /** The post's result; the in-thread session answers before `post` returns. */
  private post<T>(method: string, params?: object): T {
    let out: { error: Error | null; result: T } | null = null;
    this.session.post(method, params, (error, result) => {
      out = { error, result: result as T };
    });
    const answer = out as { error: Error | null; result: T } | null;
    if (answer === null) throw new Error(`inspector ${method} did not answer synchronously`);
    if (answer.error) throw answer.error;
    return answer.result;
  }

  /** Blocks (with their count bucket) run since the last call, as keys. */
  take(): string[] {
    const { result } = this.post<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage');
    const keys: string[] = [];
    for (const script of result) {
      let watched = this.watchedScripts.get(script.scriptId);
      if (watched === undefined) {
        watched = this.watched(script.url);
        this.watchedScripts.set(script.scriptId, watched);
      }
      if (!watched) continue;
      for (const fn of script.functions) {
        // The first range is the function's; it ran if it counts calls. V8 reports a nested
        // block only where its count differs from the range around it, so a block that did
        // not run shows as a zero range and one that ran as often as its parent not at all:
        // both are part of what an input covered.
        if ((fn.ranges[0]?.count ?? 0) === 0) continue;
        for (const r of fn.ranges) keys.push(`${script.scriptId}:${r.startOffset}:${r.endOffset}:${bucket(r.count)}`);
      }
    }
    return keys;
  }

  stop(): void {
    this.post('Profiler.stopPreciseCoverage');
    this.post('Profiler.disable');
    this.session.disconnect();
  }
}

/** A small, seeded generator (the runs replay with FUZZ_SEED). */
export function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

/** Interesting bytes: boundaries of integer widths and the characters parsers branch on. */
const MAGIC = [0, 1, 0x7f, 0x80, 0xff, 0x0a, 0x20, 0x22, 0x2c, 0x3d, 0x5c, 0x7b, 0x7d, 0x30, 0x39];

/** One libFuzzer-style mutation of `input`; `other` is another kept input to splice from. */
export function mutate(input: Uint8Array, other: Uint8Array, next: (n: number) => number): Uint8Array {
  const out = Array.from(input);
  const steps = 1 + next(4);
  for (let s = 0; s < steps; s++) {
    const at = out.length === 0 ? 0 : next(out.length);
    switch (next(7)) {
      case 0:
        if (out.length > 0) out[at] = (out[at] as number) ^ (1 << next(8));
        break;
      case 1:
        if (out.length > 0) out[at] = next(256);
        break;
      case 2:
        out.splice(at, 0, ...Array.from({ length: 1 + next(4) }, () => next(256)));
        break;
      case 3:
        out.splice(at, 1 + next(8));
        break;
      case 4: {
        const len = 1 + next(Math.max(1, Math.min(16, out.length - at)));
        out.splice(at, 0, ...out.slice(at, at + len));
        break;
      }
      case 5: {
        if (other.length === 0) break;
        const from = next(other.length);
        out.splice(at, 0, ...other.subarray(from, from + 1 + next(32)));
        break;
      }
      default:
        out.splice(at, 0, MAGIC[next(MAGIC.length)] as number);
    }
  }
  return Uint8Array.from(out.slice(0, 4096));
}

export interface GuidedTarget {
  seeds: readonly Uint8Array[];
  /** A fresh input from the target's own generator, mixed in now and then. */
  fresh: () => Uint8Array;
  /** Null when the input was answered or refused as documented, else what went wrong. */
  check: (input: Uint8Array) => string | null;
}

export interface GuidedResult {
  problems: string[];
  /** Inputs tried. */
  runs: number;
  /** Inputs kept for new coverage (seeds included). */
  kept: Uint8Array[];
  features: number;
}

/** Runs up to `runs` mutated inputs, keeping those that run something new; stops at the first problem (as libFuzzer stops at a crash). */
export function fuzzGuided(target: GuidedTarget, coverage: BlockCoverage, runs: number, seed: number): GuidedResult {
  const next = rng(seed);
  const seen = new Set<string>();
  const kept: Uint8Array[] = [];
  const problems: string[] = [];
  // Between inputs only this harness runs, which is not watched: each take is one input's coverage.
  coverage.take();
  const tryInput = (input: Uint8Array): void => {
    const problem = target.check(input);
    if (problem !== null) problems.push(problem);
    let fresh = false;
    for (const key of coverage.take()) {
      if (!seen.has(key)) {
        seen.add(key);
        fresh = true;
      }
    }
    if (fresh) kept.push(input);
  };
  for (const s of target.seeds) tryInput(s);
  let i = 0;
  for (; i < runs && problems.length === 0; i++) {
    if (kept.length === 0 || next(10) === 0) tryInput(target.fresh());
    else {
      const parent = kept[next(kept.length)] as Uint8Array;
      tryInput(mutate(parent, kept[next(kept.length)] as Uint8Array, next));
    }
  }
  return { problems, runs: i, kept, features: seen.size };
}
