/**
 * Runs a real Prometheus server (Debian package `prometheus`, /usr/bin/prometheus) for peer tests:
 * free loopback port, temporary storage directory, config written by the test. The process is
 * stopped by PID in the test's teardown, always.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const PROMETHEUS_BINARY = process.env.PROMETHEUS_BINARY ?? '/usr/bin/prometheus';

/** Bounds each apt-get step (three at most stay under tap's 300 s per file), so an unreachable mirror skips instead of hanging. */
const INSTALL_TIMEOUT_MS = 90_000;

/**
 * Installs Debian's `prometheus` package when the binary is missing and this process may (root,
 * apt-get present); `.ci/run` normally has done it already. Returns what went wrong, or null.
 */
function installPrometheus(): string | null {
  if (process.env.PROMETHEUS_BINARY) return 'PROMETHEUS_BINARY names a missing file';
  if (!fs.existsSync('/usr/bin/apt-get')) return 'apt-get is not available';
  if (process.getuid?.() !== 0) return 'installing packages needs root';
  const run = (args: string[]) =>
    spawnSync('apt-get', args, {
      stdio: 'ignore',
      timeout: INSTALL_TIMEOUT_MS,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  // Package lists may be empty on a fresh machine: update once if the first install fails.
  if (run(['install', '-y', 'prometheus']).status !== 0) {
    run(['update']);
    if (run(['install', '-y', 'prometheus']).status !== 0) return 'apt-get install -y prometheus failed';
  }
  return null;
}

/** Why peer tests cannot run here (after trying to install the package), or null when they can. */
export function prometheusMissingReason(): string | null {
  if (fs.existsSync(PROMETHEUS_BINARY)) return null;
  const failure = installPrometheus();
  if (failure === null && fs.existsSync(PROMETHEUS_BINARY)) return null;
  return `${PROMETHEUS_BINARY} not found and could not be installed (${failure ?? 'no binary after install'}); install the Debian package: apt-get install -y prometheus`;
}

/** A free TCP port on 127.0.0.1 (bound and released; a tiny race is acceptable in tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningPrometheus {
  url: string;
  port: number;
  dir: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM by PID, SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
}

/** Bounded polling: resolves with the first truthy answer, rejects with `what` on timeout. */
export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

/**
 * Starts Prometheus with `configYaml` (a function of its own port, so it can scrape itself) and
 * `extraArgs` (feature flags), and waits until it reports ready. The caller must register `stop` as a teardown right away.
 */
export async function startPrometheus(
  name: string,
  configYaml: (port: number) => string,
  register: (stop: () => Promise<void>) => void,
  extraArgs: readonly string[] = [],
): Promise<RunningPrometheus> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `shoal-prom-${name}-`));
  const configFile = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(configFile, configYaml(port));
  const child = spawn(
    PROMETHEUS_BINARY,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const stop = async (): Promise<void> => {
    const pid = child.pid;
    if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
      process.kill(pid, 'SIGTERM');
      const killTimer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
      }, 5000);
      await exited;
      clearTimeout(killTimer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  register(stop);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`prometheus ${name} to become ready (output so far:\n${out})`, 30_000, async () => {
    if (child.exitCode !== null) throw new Error(`prometheus ${name} exited with ${child.exitCode}:\n${out}`);
    const res = await fetch(`${url}/-/ready`);
    return res.status === 200;
  });
  return { url, port, dir, child, output: () => out, stop };
}

/** Prometheus' own instant query API. */
export async function prometheusQuery(
  url: string,
  query: string,
): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  if (body.status !== 'success') throw new Error(`query ${query} failed: ${body.error}`);
  return body.data?.result ?? [];
}

/** POSTs a snappy remote-write body to a Prometheus running its receiver (`--web.enable-remote-write-receiver`). */
export async function prometheusRemoteWrite(url: string, body: Uint8Array): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/api/v1/write`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}
