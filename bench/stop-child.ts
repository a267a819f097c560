/** Stopping a peer server a bench started: SIGTERM, SIGKILL after a grace period, then its directory removed. */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';

const STOP_TIMEOUT_MS = 30_000;

/** A `stop()` for `child` (call it once the child is spawned, so its exit is seen) that also removes `dir`. */
export function stopperOf(child: ChildProcess, dir: string): () => Promise<void> {
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
