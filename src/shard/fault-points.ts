/**
 * Named fault points in the storage engine's crash-sensitive steps, for the reliability tests
 * (docs/reliability.md): a kill at one of them is a crash at exactly that step, which random
 * SIGKILLs hit too rarely to trust. They do nothing unless the test-only environment variable
 * `SHOALDB_FAULT_POINTS` is set when the thread starts:
 *
 *   SHOALDB_FAULT_POINTS="flush.before-manifest:kill,compaction.after-output:delay:200"
 *
 * Actions: `kill` (SIGKILL the whole process), `kill@N` (at the Nth hit of the point in this
 * thread), `delay:MS` (wait, to widen a window for a test). Off, `faultPoint` costs one boolean
 * check and the call sites stay synchronous for it.
 */

export const FAULT_POINTS = [
  /** A segment file is written and fsynced under its temporary name, not yet renamed. */
  'segment.before-rename',
  /** A flush's segments are in place, the manifest does not list them yet. */
  'flush.before-manifest',
  /** The manifest lists the flushed segments; the WAL files they cover are not deleted yet. */
  'flush.before-wal-delete',
  /** `MANIFEST.tmp` is written and fsynced, not yet renamed over `MANIFEST`. */
  'manifest.after-temp-write',
  /** `MANIFEST` is renamed into place, its directory not yet fsynced. */
  'manifest.after-rename',
  /** A compaction's output segment is in place, the manifest still lists its inputs. */
  'compaction.after-output',
  /** The manifest lists the compaction's output; its inputs are not unlinked yet. */
  'compaction.before-retire',
  /** The manifest no longer lists the segments a retention step expired; they are not unlinked yet. */
  'retention.before-retire',
  /** A WAL record is appended, not yet fdatasynced (so not acknowledged). */
  'wal.after-append',
  /** A shard starts to open its directory (recovery); a delay keeps it "still recovering". */
  'recovery.before-open',
] as const;
export type FaultPointName = (typeof FAULT_POINTS)[number];

interface FaultAction {
  kind: 'kill' | 'delay';
  /** kill: the hit that kills (1 = the first); delay: milliseconds. */
  n: number;
  hits: number;
}

function parse(spec: string | undefined): Map<string, FaultAction> {
  const actions = new Map<string, FaultAction>();
  if (!spec) return actions;
  for (const item of spec.split(',')) {
    const [name, kind, arg] = item.trim().split(':');
    if (!(FAULT_POINTS as readonly string[]).includes(name ?? '')) throw new Error(`unknown fault point "${name}"`);
    if (kind?.startsWith('kill')) {
      const at = kind.startsWith('kill@') ? Number(kind.slice(5)) : 1;
      actions.set(name as string, { kind: 'kill', n: at, hits: 0 });
    } else if (kind === 'delay' && Number(arg) >= 0) {
      actions.set(name as string, { kind: 'delay', n: Number(arg), hits: 0 });
    } else {
      throw new Error(`bad fault point action "${item}" (kill, kill@N or delay:MS)`);
    }
  }
  return actions;
}

const actions = parse(process.env.SHOALDB_FAULT_POINTS);
const enabled = actions.size > 0;

function hit(name: FaultPointName): Promise<void> | undefined {
  const action = actions.get(name);
  if (action === undefined) return undefined;
  action.hits++;
  if (action.kind === 'delay') return new Promise((resolve) => setTimeout(resolve, action.n));
  if (action.hits === action.n) {
    // stderr is unbuffered: the line is out before the signal lands, so the test can see where it died.
    process.stderr.write(`fault point ${name}: SIGKILL\n`);
    process.kill(process.pid, 'SIGKILL');
  }
  return undefined;
}

/** A crash-sensitive step; `await` it only where a `delay` action may apply (it returns undefined when off). */
export function faultPoint(name: FaultPointName): Promise<void> | undefined {
  return enabled ? hit(name) : undefined;
}
