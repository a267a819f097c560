/**
 * The soak (issue 16, docs/reliability.md), shared by the bench script (an hour, a sample a
 * minute) and the CI test (a minute and a half, a sample every 10 s): one server at half the
 * rate it sustains, with queries, and a sample of its vital signs at a fixed period. A leak shows
 * as a line that climbs: RSS, open file descriptors, live segments (compaction must keep up),
 * WAL files, query and /health latency.
 *
 * 1. Calibrate: line protocol at 4 requests in flight; the rate reached is "sustainable".
 * 2. Soak: bodies paced at half that rate (up to 8 in flight when the server falls behind), a
 *    PromQL and a SQL query over the last 60 bodies in turn every 2 s, /health every 500 ms.
 * 3. Check: count(*) of the table, to compare with the acknowledged rows.
 *
 * Data: the mixed bench's bodies (1,000 hosts × 5 cores, 5,000 rows a body), one step per second
 * of data, starting ten days back, so an hour at any rate this machine reaches stays in the past;
 * the stored volume grows all along. With `ttl` (soak-ttl.ts) the table has a retention and each
 * body is stamped with the wall clock, so the volume levels off after one ttl, and the check
 * compares only the rows inside the ttl window.
 */
import fs from 'node:fs';
import http from 'node:http';
import { post, postForAnswer } from '../http-client.js';
import { BodySource, ROWS_PER_BODY } from '../mixed/bodies.js';
import { quantile } from '../peers/stats.js';
import { startServerProcess } from './server-process.js';
import { AckedTimes, mixpTableSql, soakTtlMs, WallClockTimes, windowMarginMs } from './soak-ttl.js';

const STEP_MS = 1000;
const START_AGO_MS = 10 * 24 * 3600_000;
const QUERY_EVERY_MS = 2000;
const HEALTH_EVERY_MS = 500;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export interface SoakOptions {
  durationMs: number;
  /** Time between samples. */
  sampleMs: number;
  calibrateMs?: number;
  /** An empty directory; the caller removes it and `${dataDir}.toml` afterwards. */
  dataDir: string;
  /** TOML appended to the generated configuration (default: none, the default configuration). */
  toml?: string;
  /** Create `mixp` with this ttl (a duration) and stamp bodies with the wall clock (soak-ttl.ts). */
  ttl?: string | undefined;
  /** `storage.retention_check_interval` of the server (default: the server's default). */
  retentionCheckInterval?: string | undefined;
  log?: (line: string) => void;
}

export interface SoakSample {
  /** Whole minutes since the soak started (the bench's table is by minute). */
  minute: number;
  seconds: number;
  rowsPerS: number;
  rssMiB: number;
  fds: number;
  segments: number;
  walFiles: number;
  queryP50: number;
  queryP99: number;
  healthP99: number;
  /** Queries run and failed since the previous sample. */
  queries: number;
  failedQueries: number;
  /** /health probes that failed (error or not 200) since the previous sample. */
  failedHealth: number;
  /** Memtable flushes and compactions since the server started, over all shards. */
  flushes: number;
  compactions: number;
  /** Bytes of the live segments, in MiB: the stored volume. */
  segmentMiB: number;
  /** Segments retired for being past the ttl since the server started. */
  segmentsExpired: number;
}

export interface SoakResult {
  /** Rows/s reached by the calibration. */
  sustainable: number;
  samples: SoakSample[];
  ackedRows: number;
  storedRows: number;
  /** Write requests answered with anything but 200/204. */
  refused: number;
  queries: number;
  failedQueries: number;
  failedHealth: number;
  /** With a ttl: the rows at or after `fromMs`, acknowledged and stored. */
  window?: { fromMs: number; ackedRows: number; storedRows: number };
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
}

const openFds = (pid: number): number => fs.readdirSync(`/proc/${pid}/fd`).length;

/** Sum over shards of a gauge on /metrics. */
async function gauge(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

export function sampleLine(s: SoakSample): string {
  return (
    `min ${s.minute}: ${s.rowsPerS} rows/s, RSS ${s.rssMiB} MiB, fds ${s.fds}, segments ${s.segments} ` +
    `(${s.segmentMiB} MiB, ${s.segmentsExpired} expired), ` +
    `WAL files ${s.walFiles}, query p50 ${s.queryP50.toFixed(1)} p99 ${s.queryP99.toFixed(1)} ms ` +
    `(${s.queries} run, ${s.failedQueries} failed), /health p99 ${s.healthP99.toFixed(1)} ms`
  );
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => {});
  const env: NodeJS.ProcessEnv = {};
  if (o.retentionCheckInterval !== undefined) env.SHOALDB_STORAGE__RETENTION_CHECK_INTERVAL = o.retentionCheckInterval;
  const server = await startServerProcess(o.dataDir, o.toml ?? '', env);
  const pid = server.child.pid as number;
  const base = server.url;
  const writeUrl = new URL(`${base}/v1/lineproto/write?db=public&precision=ns`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  try {
    const bodies = new BodySource(Date.now(), STEP_MS, START_AGO_MS);
    let acked = 0;
    let lastMs = 0;
    let refused = 0;
    const ttlMs = o.ttl === undefined ? null : soakTtlMs(o.ttl);
    const clock = new WallClockTimes();
    const ackedTimes = new AckedTimes();
    if (o.ttl !== undefined) {
      const created = await postForAnswer(
        agent,
        new URL(`${base}/v1/sql?db=public`),
        Buffer.from(new URLSearchParams({ sql: mixpTableSql(o.ttl) }).toString()),
        FORM,
      );
      if (created.status !== 200) throw new Error(`CREATE TABLE mixp: ${created.status} ${created.text}`);
    }

    const send = async (): Promise<void> => {
      const { body, ms } = ttlMs === null ? bodies.take() : bodies.takeAt(clock.next());
      const status = await post(agent, writeUrl, body);
      if (status === 204 || status === 200) {
        acked += ROWS_PER_BODY;
        ackedTimes.add(ms);
        lastMs = Math.max(lastMs, ms);
      } else refused++;
    };

    // 1. Calibration.
    const calibrateEnd = Date.now() + (o.calibrateMs ?? 20_000);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (Date.now() < calibrateEnd) await send();
      }),
    );
    const sustainable = acked / ((performance.now() - t0) / 1000);
    const bodiesPerS = sustainable / 2 / ROWS_PER_BODY;
    // Queries read the last 60 bodies: a minute of one-second steps, or with wall-clock times the
    // span 60 bodies take (about a second), so they cost the same in both modes.
    const queryWindowMs = ttlMs === null ? 60 * STEP_MS : Math.max(1, Math.round(60_000 / bodiesPerS));
    log(`sustainable ${Math.round(sustainable)} rows/s; soak at ${Math.round(sustainable / 2)} rows/s`);

    // 2. Soak. A loop that throws ends the others at once (end = 0) so none outlives the server.
    let end = Date.now() + o.durationMs;
    const soakStart = performance.now();
    const queryMs: number[] = [];
    const healthMs: number[] = [];
    let queries = 0;
    let failedQueries = 0;
    let failedHealth = 0;
    const totals = { queries: 0, failedQueries: 0, failedHealth: 0 };
    const samples: SoakSample[] = [];
    let sampledAcked = acked;
    let sampledAt = performance.now();

    const load = async () => {
      const start = performance.now();
      let due = 0;
      const inFlight = new Set<Promise<void>>();
      while (Date.now() < end) {
        const at = start + (due * 1000) / bodiesPerS;
        const wait = at - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        while (inFlight.size >= 8) await Promise.race(inFlight);
        const p = send().finally(() => inFlight.delete(p));
        inFlight.add(p);
        due++;
      }
      await Promise.all(inFlight);
    };

    const queryLoop = async () => {
      let turn = 0;
      while (Date.now() < end) {
        await new Promise((r) => setTimeout(r, QUERY_EVERY_MS));
        if (lastMs === 0) continue;
        const from = lastMs - queryWindowMs;
        const [url, body] =
          turn++ % 2 === 0
            ? [
                new URL(`${base}/v1/metricsapi/api/v1/query`),
                new URLSearchParams({
                  query: `avg by (host) (avg_over_time(mixp[${queryWindowMs}ms]))`,
                  time: String(lastMs / 1000),
                }),
              ]
            : [
                new URL(`${base}/v1/sql?db=public`),
                new URLSearchParams({
                  sql: `SELECT host, max(v) FROM mixp WHERE greptime_timestamp >= '${new Date(from).toISOString()}' GROUP BY host`,
                }),
              ];
        const started = performance.now();
        const answer = await postForAnswer(agent, url, Buffer.from(body.toString()), FORM).catch(() => null);
        queries++;
        if (answer === null || answer.status !== 200) failedQueries++;
        else queryMs.push(performance.now() - started);
      }
    };

    const healthLoop = async () => {
      while (Date.now() < end) {
        const started = performance.now();
        // The body is read so that the connection goes back to fetch's pool.
        const ok = await fetch(`${base}/health`)
          .then(async (r) => {
            await r.arrayBuffer();
            return r.ok;
          })
          .catch(() => false);
        if (ok) healthMs.push(performance.now() - started);
        else failedHealth++;
        await new Promise((r) => setTimeout(r, HEALTH_EVERY_MS));
      }
    };

    const sampler = async () => {
      while (Date.now() < end) {
        await new Promise((r) => setTimeout(r, Math.min(o.sampleMs, Math.max(0, end - Date.now()))));
        if (end === 0) return;
        const now = performance.now();
        const q = queryMs.splice(0).sort((a, b) => a - b);
        const h = healthMs.splice(0).sort((a, b) => a - b);
        const s: SoakSample = {
          minute: Math.round(((samples.length + 1) * o.sampleMs) / 60_000),
          seconds: Math.round((now - soakStart) / 1000),
          rowsPerS: Math.round((acked - sampledAcked) / ((now - sampledAt) / 1000)),
          rssMiB: rssMiB(pid),
          fds: openFds(pid),
          segments: await gauge(base, 'shoaldb_segments'),
          walFiles: await gauge(base, 'shoaldb_wal_files'),
          queryP50: quantile(q, 0.5),
          queryP99: quantile(q, 0.99),
          healthP99: quantile(h, 0.99),
          queries,
          failedQueries,
          failedHealth,
          flushes: await gauge(base, 'shoaldb_flushes_total'),
          compactions: await gauge(base, 'shoaldb_compactions_total'),
          segmentMiB: Math.round((await gauge(base, 'shoaldb_segment_bytes')) / 1024 / 1024),
          segmentsExpired: await gauge(base, 'shoaldb_segments_expired_total'),
        };
        totals.queries += queries;
        totals.failedQueries += failedQueries;
        totals.failedHealth += failedHealth;
        queries = 0;
        failedQueries = 0;
        failedHealth = 0;
        sampledAcked = acked;
        sampledAt = now;
        samples.push(s);
        log(sampleLine(s));
      }
    };

    const loops = await Promise.allSettled(
      [load, queryLoop, healthLoop, sampler].map((loop) =>
        loop().catch((e: unknown) => {
          end = 0;
          throw e;
        }),
      ),
    );
    for (const r of loops) if (r.status === 'rejected') throw r.reason;

    // 3. Count what is stored.
    const count = async (where: string): Promise<number> => {
      const counted = await postForAnswer(
        agent,
        new URL(`${base}/v1/sql?db=public`),
        Buffer.from(new URLSearchParams({ sql: `SELECT count(*) FROM mixp${where}` }).toString()),
        FORM,
      );
      return Number(
        (JSON.parse(counted.text) as { output: Array<{ records: { rows: number[][] } }> }).output[0]?.records
          .rows[0]?.[0],
      );
    };
    const storedRows = await count('');
    let window: SoakResult['window'];
    if (ttlMs !== null) {
      const fromMs = Date.now() - ttlMs + windowMarginMs(ttlMs);
      const stored = await count(` WHERE greptime_timestamp >= '${new Date(fromMs).toISOString()}'`);
      window = { fromMs, ackedRows: ackedTimes.rowsFrom(fromMs), storedRows: stored };
    }
    return {
      ...(window ? { window } : {}),
      sustainable,
      samples,
      ackedRows: acked,
      storedRows,
      refused,
      queries: totals.queries + queries,
      failedQueries: totals.failedQueries + failedQueries,
      failedHealth: totals.failedHealth + failedHealth,
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/** First third against last third of the run, per figure: a leak is a ratio that keeps growing. */
export function thirdsTable(samples: SoakSample[]): string[] {
  const third = Math.max(1, Math.floor(samples.length / 3));
  const mean = (xs: SoakSample[], f: (s: SoakSample) => number) =>
    xs.reduce((a, s) => a + f(s), 0) / Math.max(1, xs.length);
  const first = samples.slice(0, third);
  const last = samples.slice(-third);
  const figures: Array<[string, (s: SoakSample) => number]> = [
    ['rows/s', (s) => s.rowsPerS],
    ['RSS MiB', (s) => s.rssMiB],
    ['open fds', (s) => s.fds],
    ['live segments', (s) => s.segments],
    ['segment MiB', (s) => s.segmentMiB],
    ['WAL files', (s) => s.walFiles],
    ['query p50 ms', (s) => s.queryP50],
    ['query p99 ms', (s) => s.queryP99],
    ['/health p99 ms', (s) => s.healthP99],
  ];
  const lines = [
    '',
    '| figure | first third (mean) | last third (mean) | ratio | min | max |',
    '|---|---|---|---|---|---|',
  ];
  for (const [name, f] of figures) {
    const a = mean(first, f);
    const b = mean(last, f);
    const all = samples.map(f);
    lines.push(
      `| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a === 0 ? 0 : b / a).toFixed(2)} | ${Math.min(...all).toFixed(1)} | ${Math.max(...all).toFixed(1)} |`,
    );
  }
  return lines;
}
