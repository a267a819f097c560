/**
 * The server as a child process on a data directory that outlives it, for the reliability
 * campaigns (kill cycles): started, killed with SIGKILL (or left to kill itself at a fault point)
 * and started again on the same directory. The test suite's helper (test/helpers/server.ts)
 * cannot be used here because bench code does not import from test/.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** dist/main.js from the repository root, whether this runs from source (tap) or from dist-bench. */
function mainJs(): string {
  for (const root of [ROOT, path.resolve(ROOT, '..')]) {
    const file = path.join(root, 'dist', 'main.js');
    if (fs.existsSync(file)) return file;
  }
  throw new Error('dist/main.js is missing: build first (npm run build)');
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves when the process is gone, with the signal that ended it (null: it exited). */
  exited: Promise<NodeJS.Signals | null>;
  output(): string;
  kill(): Promise<NodeJS.Signals | null>;
  stop(): Promise<NodeJS.Signals | null>;
}

export async function startServerProcess(
  dataDir: string,
  toml: string,
  env: NodeJS.ProcessEnv = {},
): Promise<ServerProcess> {
  const configFile = `${dataDir}.toml`;
  fs.writeFileSync(
    configFile,
    `[http]\naddr = "127.0.0.1:0"\n[storage]\ndata_home = ${JSON.stringify(dataDir)}\nshards = 2\n[logging]\nlevel = "info"\n${toml}`,
  );
  const child = spawn(process.execPath, [mainJs(), '--config', configFile], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer): void => {
    // Bounded: a campaign runs for minutes and only the start-up lines and the end matter.
    out = (out + d.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, signal) => resolve(signal)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${out.slice(-4000)}`)), 60_000);
    const check = (): void => {
      const m = /"listening".*?"mainPort":(\d+)/.exec(out) ?? /"mainPort":(\d+).*?"listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening:\n${out.slice(-4000)}`));
    });
  });
  const signal = (s: NodeJS.Signals) => async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(s);
    return exited;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    exited,
    output: () => out,
    kill: signal('SIGKILL'),
    stop: signal('SIGTERM'),
  };
}
