/** Starts the built server for a bench run on free ports with a temporary data directory. */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BenchServer {
  url: string;
  pid: number;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startBenchServer(extraToml = '', nodeArgs: string[] = []): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-bench-'));
  const configFile = `${dataDir}.toml`;
  fs.writeFileSync(
    configFile,
    `[http]\naddr = "127.0.0.1:0"\n[storage]\ndata_home = ${JSON.stringify(dataDir)}\n[logging]\nlevel = "warn"\n${extraToml}`,
  );
  const main = path.join(process.cwd(), 'dist', 'main.js');
  // BENCH_NODE_ARGS: extra node flags for experiments (e.g. "--trace-gc", with BENCH_SERVER_LOG).
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...extra, ...nodeArgs, main, '--config', configFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SHOALDB_LOGGING__LEVEL: 'info' },
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"mainPort":(\d+)/.exec(out);
      if (m) {
        resolve(Number(m[1]));
        out = '';
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  // BENCH_SERVER_LOG: a file that gets the server's stdout (logs, --trace-gc) after start-up.
  const log = process.env.BENCH_SERVER_LOG;
  if (log) child.stdout?.pipe(fs.createWriteStream(log));
  else child.stdout?.resume();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    dataDir,
    child,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(configFile, { force: true });
    },
  };
}
