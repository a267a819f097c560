/**
 * The peers of the query bench as child processes: each started fresh on free loopback ports with
 * its data in a new temporary directory, stopped by its PID (SIGKILL if it lingers) and its
 * directory removed. Only the Debian packages' binaries are used; no system service or default
 * data directory is touched.
 *
 * InfluxDB 1.6 is Debian's `influxdb` (`apt-get install -y influxdb`; its service is not needed,
 * and in a container policy-rc.d keeps it from starting anyway).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stopperOf } from '../stop-child.js';

export const PROMETHEUS_BINARY = '/usr/bin/prometheus';
export const VICTORIA_METRICS_BINARY = '/usr/bin/victoria-metrics';
export const INFLUXD_BINARY = '/usr/bin/influxd';

const READY_TIMEOUT_MS = 60_000;

export interface PeerProcess {
  url: string;
  pid: number;
  dir: string;
  stop(): Promise<void>;
}

export function installed(binary: string): boolean {
  try {
    fs.accessSync(binary, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `binary` with its output in `<dir>/output.log` and waits until `readyUrl` answers 2xx.
 * A process that does not come up is stopped before the error is thrown, so nothing is left over.
 */
async function startProcess(name: string, binary: string, args: string[], dir: string, readyUrl: string) {
  const logFile = path.join(dir, 'output.log');
  const log = fs.openSync(logFile, 'w');
  const child: ChildProcess = spawn(binary, args, { cwd: dir, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const stop = stopperOf(child, dir);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}): ${readTail(logFile)}`);
      }
      if (Date.now() > deadline) throw new Error(`${name} not ready in ${READY_TIMEOUT_MS / 1000} s`);
      try {
        if ((await fetch(readyUrl)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid: child.pid as number, stop };
}

function readTail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-2000);
  } catch {
    return '';
  }
}

/**
 * Prometheus with the remote-write receiver and no scrape targets (so nothing but the bench's
 * data is in the TSDB, not even its own metrics).
 */
export async function startPrometheus(): Promise<PeerProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prometheus-qbench-'));
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(config, 'scrape_configs: []\n');
  const url = `http://127.0.0.1:${port}`;
  const { pid, stop } = await startProcess(
    'prometheus',
    PROMETHEUS_BINARY,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--log.level=warn',
    ],
    dir,
    `${url}/-/ready`,
  );
  return { url, pid, dir, stop };
}

/**
 * VictoriaMetrics with no query-time latency offset (otherwise the last 30 s are hidden) and its
 * rollup cache off (otherwise repeated runs of a query would time the cache).
 */
export async function startVictoriaMetrics(): Promise<PeerProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vm-qbench-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { pid, stop } = await startProcess(
    'victoria-metrics',
    VICTORIA_METRICS_BINARY,
    [
      `-storageDataPath=${path.join(dir, 'data')}`,
      `-httpListenAddr=127.0.0.1:${port}`,
      '-loggerLevel=ERROR',
      '-retentionPeriod=1y',
      '-search.latencyOffset=0s',
      '-search.disableCache',
    ],
    dir,
    `${url}/health`,
  );
  return { url, pid, dir, stop };
}

/**
 * InfluxDB 1.6 from a generated config: everything under the temporary directory, HTTP and the
 * backup RPC port on free loopback ports, usage reporting, self-monitoring, retention and
 * continuous queries off. The cache is snapshotted to TSM files after 1 s without writes (default
 * 10 min), so queries read files, as they read ShoalDB's flushed segments.
 */
export async function startInfluxDb(): Promise<PeerProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'influxdb-qbench-'));
  const port = await freePort();
  const rpcPort = await freePort();
  const toml = `reporting-disabled = true
bind-address = "127.0.0.1:${rpcPort}"

[meta]
  dir = ${JSON.stringify(path.join(dir, 'meta'))}
  logging-enabled = false

[data]
  dir = ${JSON.stringify(path.join(dir, 'data'))}
  wal-dir = ${JSON.stringify(path.join(dir, 'wal'))}
  query-log-enabled = false
  cache-snapshot-write-cold-duration = "1s"

[retention]
  enabled = false

[monitor]
  store-enabled = false

[http]
  bind-address = "127.0.0.1:${port}"
  log-enabled = false

[logging]
  level = "warn"

[continuous_queries]
  enabled = false
`;
  const config = path.join(dir, 'influxdb.conf');
  fs.writeFileSync(config, toml);
  const url = `http://127.0.0.1:${port}`;
  const { pid, stop } = await startProcess('influxd', INFLUXD_BINARY, ['-config', config], dir, `${url}/ping`);
  return { url, pid, dir, stop };
}
