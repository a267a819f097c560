/**
 * Starts the real server as a child process on free loopback ports with a temporary data
 * directory, the way a user would run it. Tests speak HTTP to it and stop it by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join(ROOT, 'dist', 'main.js');

export interface TestServer {
  url: string;
  apiUrl: string | null;
  dataDir: string;
  configFile: string;
  child: ChildProcess;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit: a crash as far as the data is concerned. */
  kill(): Promise<void>;
}

export interface StartOptions {
  /** Extra TOML appended after the generated [http]/[storage] sections (top-level keys first). */
  topLevelToml?: string;
  httpToml?: string;
  /** Extra keys of the generated [storage] section. */
  storageToml?: string;
  extraToml?: string;
  /** Reuse a data directory (restart after kill). */
  dataDir?: string;
  shards?: number;
  env?: NodeJS.ProcessEnv;
  args?: string[];
}

export function tempDir(prefix = 'shoaldb-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does)`);
  const dataDir = opts.dataDir ?? tempDir();
  const configFile = path.join(dataDir, '..', `${path.basename(dataDir)}.toml`);
  const toml = [
    opts.topLevelToml ?? '',
    '[http]',
    'addr = "127.0.0.1:0"',
    opts.httpToml ?? '',
    '[storage]',
    `data_home = ${JSON.stringify(dataDir)}`,
    `shards = ${opts.shards ?? 2}`,
    opts.storageToml ?? '',
    '[logging]',
    'level = "info"',
    opts.extraToml ?? '',
  ].join('\n');
  fs.writeFileSync(configFile, toml);
  const child = spawn(process.execPath, [MAIN, '--config', configFile, ...(opts.args ?? [])], {
    env: { ...process.env, ...(opts.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ports = await new Promise<{ main: number; api: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${out}`)), 30_000);
    const check = (): void => {
      for (const line of out.split('\n')) {
        if (!line.includes('"listening"')) continue;
        try {
          const rec = JSON.parse(line) as { mainPort: number; apiPort: number | null };
          clearTimeout(timer);
          resolve({ main: rec.mainPort, api: rec.apiPort });
          return;
        } catch {
          // not a complete JSON line yet
        }
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${ports.main}`,
    apiUrl: ports.api ? `http://127.0.0.1:${ports.api}` : null,
    dataDir,
    configFile,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs a CLI invocation of the server to completion (for --help and config errors). */
export function runServerCommand(
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...(env ?? {}) } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** POSTs a SQL statement through the form body and returns the parsed JSON and status. */
export async function sql(url: string, statement: string, db?: string, headers: Record<string, string> = {}) {
  const form = new URLSearchParams({ sql: statement });
  if (db) form.set('db', db);
  const res = await fetch(`${url}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body: body as SqlBody, headers: res.headers, text };
}

export interface SqlBody {
  output?: Array<{
    records?: {
      schema: { column_schemas: Array<{ name: string; data_type: string }> };
      rows: unknown[][];
      total_rows: number;
    };
    affectedrows?: number;
  }>;
  code?: number;
  error?: string;
  execution_time_ms?: number;
}

/**
 * A SQL runner for tests whose statements must all succeed: each answer is asserted to be 200
 * (the message names the statement and the server's text). `url` is read per call, so a test
 * that restarts its server keeps one runner.
 */
export function checkedSql(t: Test, url: () => string) {
  return async (statement: string): Promise<SqlBody> => {
    const r = await sql(url(), statement);
    t.equal(r.status, 200, `${statement}: ${r.text}`);
    return r.body;
  };
}

/** The rows of the first statement's records. */
export function rowsOf(body: SqlBody): unknown[][] {
  const rec = body.output?.[0]?.records;
  if (!rec) throw new Error(`no records in ${JSON.stringify(body)}`);
  return rec.rows;
}

export async function writeLines(
  url: string,
  lines: string,
  query = 'db=public&precision=ms',
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${url}/v1/lineproto/write?${query}`, { method: 'POST', body: lines, headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The sum of a metric's samples over all its label sets in the server's `/metrics`. */
export async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').pop());
  }
  return sum;
}
