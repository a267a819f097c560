/**
 * A fresh ClickHouse server for the log bench: Debian's `clickhouse-server` started as a child
 * process with a copy of the package's config.xml and users.xml in a temporary directory (data,
 * tmp, user files and logs there; HTTP and native ports free loopback ports; no interserver port),
 * stopped by its PID and removed afterwards. The system service and /var/lib/clickhouse are never
 * touched.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stopperOf } from '../stop-child.js';

export const CLICKHOUSE_BINARY = '/usr/sbin/clickhouse-server';
const SYSTEM_CONFIG_DIR = '/etc/clickhouse-server';
const STARTUP_TIMEOUT_MS = 60_000;

export interface ClickHouseServer {
  url: string;
  pid: number;
  dir: string;
  /** Runs one statement (with `body` appended, for INSERT) and returns the answer's text. */
  query(sql: string, body?: string): Promise<string>;
  stop(): Promise<void>;
}

export function clickHouseInstalled(): boolean {
  return fs.existsSync(CLICKHOUSE_BINARY) && fs.existsSync(path.join(SYSTEM_CONFIG_DIR, 'config.xml'));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Replaces the single `<tag>...</tag>` element of `xml` (which must exist) by `value`. */
function setElement(xml: string, tag: string, value: string): string {
  const re = new RegExp(`<${tag}>[^<]*</${tag}>`);
  if (!re.test(xml)) throw new Error(`config.xml has no <${tag}>`);
  return xml.replace(re, `<${tag}>${value}</${tag}>`);
}

/**
 * The package's config.xml with comments dropped (they hold sample `listen_host` and port
 * elements), the paths moved into `dir`, the given ports, listening on 127.0.0.1 only, and every
 * other listener (interserver, https, secure native, MySQL) removed.
 */
export function adaptConfig(xml: string, dir: string, httpPort: number, tcpPort: number): string {
  let out = xml.replace(/<!--[\s\S]*?-->/g, '');
  out = setElement(out, 'log', path.join(dir, 'clickhouse-server.log'));
  out = setElement(out, 'errorlog', path.join(dir, 'clickhouse-server.err.log'));
  out = setElement(out, 'path', `${path.join(dir, 'data')}/`);
  out = setElement(out, 'tmp_path', `${path.join(dir, 'tmp')}/`);
  out = setElement(out, 'user_files_path', `${path.join(dir, 'user_files')}/`);
  out = setElement(out, 'http_port', String(httpPort));
  out = setElement(out, 'tcp_port', String(tcpPort));
  if (out.includes('<format_schema_path>'))
    out = setElement(out, 'format_schema_path', `${path.join(dir, 'format_schemas')}/`);
  for (const tag of ['interserver_http_port', 'https_port', 'tcp_port_secure', 'mysql_port', 'listen_host']) {
    out = out.replace(new RegExp(`\\s*<${tag}>[^<]*</${tag}>`, 'g'), '');
  }
  return out.replace('</yandex>', '    <listen_host>127.0.0.1</listen_host>\n</yandex>');
}

async function waitForPing(url: string, child: ChildProcess, dir: string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = fs.readFileSync(path.join(dir, 'stderr.log'), 'utf8').slice(-2000);
      throw new Error(`clickhouse-server exited with ${child.exitCode ?? child.signalCode}: ${log}`);
    }
    try {
      const res = await fetch(`${url}/ping`);
      if ((await res.text()) === 'Ok.\n') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`clickhouse-server did not answer /ping in ${STARTUP_TIMEOUT_MS / 1000} s`);
}

/** Starts a server on free loopback ports; if it does not come up, it is stopped before the throw. */
export async function startClickHouse(): Promise<ClickHouseServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clickhouse-bench-'));
  const httpPort = await freePort();
  const tcpPort = await freePort();
  const config = fs.readFileSync(path.join(SYSTEM_CONFIG_DIR, 'config.xml'), 'utf8');
  fs.writeFileSync(path.join(dir, 'config.xml'), adaptConfig(config, dir, httpPort, tcpPort));
  // users.xml is found next to config.xml (`<users_config>users.xml</users_config>`).
  fs.copyFileSync(path.join(SYSTEM_CONFIG_DIR, 'users.xml'), path.join(dir, 'users.xml'));
  const stderr = fs.openSync(path.join(dir, 'stderr.log'), 'w');
  const child = spawn(CLICKHOUSE_BINARY, [`--config-file=${path.join(dir, 'config.xml')}`], {
    cwd: dir,
    stdio: ['ignore', stderr, stderr],
  });
  fs.closeSync(stderr);
  const url = `http://127.0.0.1:${httpPort}`;

  const stop = stopperOf(child, dir);
  try {
    await waitForPing(url, child, dir);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    pid: child.pid as number,
    dir,
    async query(sql, body) {
      const res = await fetch(`${url}/?query=${encodeURIComponent(sql)}`, { method: 'POST', body: body ?? '' });
      const text = await res.text();
      if (res.status !== 200)
        throw new Error(`ClickHouse ${res.status} for ${sql.slice(0, 80)}: ${text.slice(0, 300)}`);
      return text;
    },
    stop,
  };
}
