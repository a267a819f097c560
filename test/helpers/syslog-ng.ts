/**
 * Runs a real syslog-ng (Debian packages `syslog-ng-core` and `syslog-ng-mod-http`) for shipper
 * tests: a TCP syslog source on a free loopback port, the test's destinations, and every file
 * (config, persist, pid, control socket) in a temporary directory. Stopped by PID, always.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './prometheus-peer.js';

export const SYSLOG_NG_BINARY = '/usr/sbin/syslog-ng';
const HTTP_MODULE_DIRS = ['/usr/lib/syslog-ng/3.38', '/usr/lib/x86_64-linux-gnu/syslog-ng', '/usr/lib/syslog-ng'];

/** Why syslog-ng tests cannot run here, or null when they can. */
export function syslogNgMissingReason(): string | null {
  if (!fs.existsSync(SYSLOG_NG_BINARY)) {
    return `${SYSLOG_NG_BINARY} not found: apt-get install -y syslog-ng-core syslog-ng-mod-http`;
  }
  const hasHttp = HTTP_MODULE_DIRS.some((d) => fs.existsSync(path.join(d, 'libhttp.so')));
  return hasHttp ? null : 'the syslog-ng http() module is missing: apt-get install -y syslog-ng-mod-http';
}

export interface RunningSyslogNg {
  /** TCP port of the syslog source. */
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/** Starts syslog-ng with `destinations` (config text defining `d_*` destinations) fed by one TCP source. */
export async function startSyslogNg(destinations: string, destinationNames: string[]): Promise<RunningSyslogNg> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoaldb-syslog-ng-'));
  const port = await freePort();
  const config = [
    '@version: 3.38',
    'options { keep-hostname(yes); chain-hostnames(no); stats-freq(0); };',
    `source s_tcp { network(ip("127.0.0.1") port(${port}) transport("tcp")); };`,
    destinations,
    ...destinationNames.map((d) => `log { source(s_tcp); destination(${d}); };`),
  ].join('\n');
  const file = path.join(dir, 'syslog-ng.conf');
  fs.writeFileSync(file, config);
  const child: ChildProcess = spawn(
    SYSLOG_NG_BINARY,
    [
      '-F',
      '--no-caps',
      '-f',
      file,
      '-R',
      path.join(dir, 'persist'),
      '-p',
      path.join(dir, 'pid'),
      '-c',
      path.join(dir, 'ctl'),
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
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Ready once the source port accepts connections.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`syslog-ng exited:\n${out}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`syslog-ng did not listen in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
