/**
 * The crash-consistency campaign (docs/reliability.md), shared by the bench script (100+ cycles)
 * and the CI test (a dozen): on one data directory, start the server, check everything written
 * so far, put a mixed load on it (five ingest protocols and a query loop) and SIGKILL it, at a
 * random moment or at a named fault point (src/shard/fault-points.ts) inside a flush, a manifest
 * update or a compaction. Small memtable, WAL and compaction thresholds make flushes and
 * compactions happen inside every cycle.
 *
 * Every request is one batch of ROWS rows with a batch id no other request has. After each
 * restart: every acknowledged batch has exactly ROWS rows (fewer: lost, more: duplicated), no
 * batch appears that was never sent, a request cut by the kill has at most ROWS, and while the
 * server is down every MANIFEST passes its checksum and every segment it lists opens and passes
 * its footer and block CRCs (the same checks as recovery, run from outside the server).
 */
import fs from 'node:fs';
import path from 'node:path';
import snappy from 'snappyjs';
import { FAULT_POINTS, type FaultPointName } from '../../src/shard/fault-points.js';
import { readManifest } from '../../src/shard/manifest.js';
import { SegmentFile } from '../../src/shard/segment/segment-reader.js';
import { prometheusTypes } from '../../src/shared/proto/prometheus.js';
import { prng } from '../query-peers/dataset.js';
import { type ServerProcess, startServerProcess } from './server-process.js';

const ROWS = 40;
const BASE_MS = 1_700_000_000_000;

export const SMALL_THRESHOLDS_TOML = `
[wal]
segment_size = "32KiB"
[memtable]
flush_size = "64KiB"
reject_size = "32MiB"
[segment]
block_rows = 256
compaction_trigger = 2
`;

const PROTOCOLS = ['line', 'prom', 'tsdb', 'otlp', 'loki'] as const;

/** Fault cycles take the points in this order: a short run covers the manifest switches first. */
const FAULT_ORDER: readonly FaultPointName[] = [
  'flush.before-manifest',
  'compaction.after-output',
  'manifest.after-temp-write',
  'compaction.before-retire',
  'flush.before-wal-delete',
  'wal.after-append',
  'segment.before-rename',
  'manifest.after-rename',
];
// Retention's point is reached only by tables with a ttl, which these cycles do not make: its
// crash is tested in test/http/retention-crash.test.ts. The recovery point comes before a shard
// touches its directory (it exists to widen the recovering window, test/http/cli.test.ts): a kill
// there is one of the random kills during start-up.
const CYCLED_POINTS = FAULT_POINTS.filter((p) => !p.startsWith('retention.') && !p.startsWith('recovery.'));
if (new Set(FAULT_ORDER).size !== CYCLED_POINTS.length) throw new Error('FAULT_ORDER must list every fault point once');
type Protocol = (typeof PROTOCOLS)[number];

export interface KillCycleOptions {
  cycles: number;
  dataDir: string;
  seed?: number;
  /** Load time before a random kill, ms. */
  loadMs?: [number, number];
  /** Every how many cycles the kill is at a fault point (the rest are at random times). */
  faultEvery?: number;
  log?: (line: string) => void;
}

export interface KillCycleResult {
  cycles: number;
  randomKills: number;
  faultKills: Partial<Record<FaultPointName, number>>;
  /** Fault point armed but not reached in time (the cycle then ended with a random kill). */
  faultMissed: number;
  /** Kills at a fault point during start-up, before the server listened. */
  killedInStartup: number;
  ackedBatches: number;
  ackedRows: number;
  lost: number;
  duplicated: number;
  unsent: number;
  /** Batches a kill cut in flight that are stored partly (one shard had them, the other not). */
  partialUnacked: number;
  flushes: number;
  compactions: number;
  walCuts: number;
  /** File problems found while stopped, or quarantines the server reported: must be empty. */
  fileProblems: string[];
  seconds: number;
}

const tsOf = (batch: number, i: number): number => BASE_MS + batch * ROWS + i;

function request(url: string, protocol: Protocol, batch: number): Promise<Response> {
  const rows = Array.from({ length: ROWS }, (_, i) => i);
  const post = (route: string, body: string | Uint8Array, type = 'text/plain') =>
    fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': type }, body });
  switch (protocol) {
    case 'line':
      return post(
        '/v1/lineproto/write?db=public&precision=ms',
        rows.map((i) => `kc_line,k=k${i % 4} batch=${batch}i,i=${i}i ${tsOf(batch, i)}`).join('\n'),
      );
    case 'prom': {
      const timeseries = [0, 1, 2, 3].map((k) => ({
        labels: [
          { name: '__name__', value: 'kc_prom' },
          { name: 'k', value: `k${k}` },
        ],
        samples: rows.filter((i) => i % 4 === k).map((i) => ({ value: batch, timestamp: tsOf(batch, i) })),
      }));
      const bytes = prometheusTypes.WriteRequest.encode(
        prometheusTypes.WriteRequest.fromObject({ timeseries }),
      ).finish();
      return fetch(`${url}/v1/metricsapi/write`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-protobuf',
          'content-encoding': 'snappy',
          'x-prometheus-remote-write-version': '0.1.0',
        },
        body: snappy.compress(Buffer.from(bytes)),
      });
    }
    case 'tsdb':
      return post(
        '/v1/tsjson/api/put',
        JSON.stringify(
          rows.map((i) => ({ metric: 'kc_tsdb', timestamp: tsOf(batch, i), value: batch, tags: { k: `k${i % 4}` } })),
        ),
        'application/json',
      );
    case 'otlp': {
      const logRecords = rows.map((i) => ({
        timeUnixNano: `${tsOf(batch, i)}000000`,
        body: { stringValue: `b${batch}` },
      }));
      const body = { resourceLogs: [{ resource: { attributes: [] }, scopeLogs: [{ logRecords }] }] };
      return post('/v1/otlp/v1/logs', JSON.stringify(body), 'application/json');
    }
    case 'loki': {
      const values = rows.map((i) => [`${tsOf(batch, i)}000000`, `b${batch}`]);
      return post(
        '/v1/logpush/api/v1/push',
        JSON.stringify({ streams: [{ stream: { job: 'kc' }, values }] }),
        'application/json',
      );
    }
  }
}

const COUNT_SQL: Record<Protocol, string> = {
  line: 'SELECT batch, count(*) FROM kc_line GROUP BY batch',
  prom: 'SELECT greptime_value, count(*) FROM kc_prom GROUP BY greptime_value',
  tsdb: 'SELECT greptime_value, count(*) FROM kc_tsdb GROUP BY greptime_value',
  otlp: 'SELECT body, count(*) FROM opentelemetry_logs GROUP BY body',
  loki: 'SELECT line, count(*) FROM loki_logs GROUP BY line',
};

export async function sqlRows(url: string, statement: string): Promise<unknown[][] | { error: string }> {
  const res = await fetch(`${url}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: statement }).toString(),
  });
  const body = (await res.json()) as { output?: Array<{ records?: { rows: unknown[][] } }>; error?: string };
  if (res.status !== 200) return { error: `${res.status} ${body.error ?? ''}` };
  return body.output?.[0]?.records?.rows ?? [];
}

/** Stored rows per batch id of one protocol's table (empty while the table does not exist). */
async function countsOf(url: string, protocol: Protocol): Promise<Map<number, number>> {
  const rows = await sqlRows(url, COUNT_SQL[protocol]);
  if (!Array.isArray(rows)) {
    if (/not found|not exist/i.test(rows.error)) return new Map();
    throw new Error(`${protocol}: ${rows.error}`);
  }
  const counts = new Map<number, number>();
  for (const [id, n] of rows) counts.set(Number(String(id).replace(/^b/, '')), Number(n));
  return counts;
}

/** While the server is down: the checks recovery makes, from outside. */
export function verifyFiles(dataDir: string): string[] {
  const problems: string[] = [];
  const shardDirs: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (fs.existsSync(path.join(dir, 'MANIFEST'))) shardDirs.push(dir);
    if (depth === 0) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) walk(path.join(dir, e.name), depth - 1);
  };
  walk(dataDir, 3);
  for (const dir of shardDirs) {
    let manifest: ReturnType<typeof readManifest>;
    try {
      manifest = readManifest(dir);
    } catch (err) {
      problems.push(`${dir}: ${(err as Error).message}`);
      continue;
    }
    for (const [table, t] of Object.entries(manifest?.tables ?? {})) {
      for (const s of t.segments) {
        try {
          const f = SegmentFile.open(path.join(dir, s.file), s.file, s.id, Number(table));
          const bad = f.bytes !== s.bytes ? `size ${f.bytes}, manifest ${s.bytes}` : f.verifyBlocks();
          f.close();
          if (bad) problems.push(`${dir}/${s.file}: ${bad}`);
        } catch (err) {
          problems.push(`${dir}/${s.file}: ${(err as Error).message}`);
        }
      }
    }
  }
  return problems;
}

async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').pop());
  return sum;
}

export async function runKillCycles(o: KillCycleOptions): Promise<KillCycleResult> {
  const rand = prng(o.seed ?? 1);
  const [loadMin, loadMax] = o.loadMs ?? [300, 1500];
  const faultEvery = o.faultEvery ?? 2;
  const log = o.log ?? (() => {});
  const started = performance.now();
  const sent = new Map<Protocol, Set<number>>(PROTOCOLS.map((p) => [p, new Set()]));
  const acked = new Map<Protocol, Set<number>>(PROTOCOLS.map((p) => [p, new Set()]));
  let nextBatch = 0;
  const r: KillCycleResult = {
    cycles: 0,
    randomKills: 0,
    faultKills: {},
    faultMissed: 0,
    killedInStartup: 0,
    ackedBatches: 0,
    ackedRows: 0,
    lost: 0,
    duplicated: 0,
    unsent: 0,
    partialUnacked: 0,
    flushes: 0,
    compactions: 0,
    walCuts: 0,
    fileProblems: [],
    seconds: 0,
  };

  /** Checks every table against the ledger; returns this check's figures. */
  const check = async (url: string) => {
    const now = { lost: 0, duplicated: 0, unsent: 0, partial: 0, acked: 0 };
    for (const p of PROTOCOLS) {
      const counts = await countsOf(url, p);
      const ok = acked.get(p) as Set<number>;
      const all = sent.get(p) as Set<number>;
      for (const b of ok) {
        const n = counts.get(b) ?? 0;
        if (n < ROWS) now.lost += ROWS - n;
      }
      now.acked += ok.size;
      for (const [b, n] of counts) {
        if (n > ROWS) now.duplicated += n - ROWS;
        if (!all.has(b)) now.unsent += n;
        else if (!ok.has(b) && n < ROWS) now.partial++;
      }
    }
    return now;
  };

  for (let cycle = 0; cycle <= o.cycles; cycle++) {
    const last = cycle === o.cycles;
    const fault =
      !last && cycle % faultEvery === 1
        ? (FAULT_ORDER[Math.floor(cycle / faultEvery) % FAULT_ORDER.length] as FaultPointName)
        : null;
    // Past the first hits: those are the flush and compactions of the start-up (WAL replay), not under load.
    const hitAt = fault === 'wal.after-append' ? 1 + Math.floor(rand() * 40) : 3 + Math.floor(rand() * 3);
    const env = fault ? { SHOALDB_FAULT_POINTS: `${fault}:kill@${hitAt}` } : {};
    const problems = verifyFiles(o.dataDir);
    if (problems.length > 0) r.fileProblems.push(...problems.map((p) => `before cycle ${cycle}: ${p}`));

    let server: ServerProcess;
    try {
      server = await startServerProcess(o.dataDir, SMALL_THRESHOLDS_TOML, env);
    } catch (err) {
      if (fault && /exited before listening/.test((err as Error).message)) {
        r.killedInStartup++;
        r.faultKills[fault] = (r.faultKills[fault] ?? 0) + 1;
        log(`cycle ${cycle}: killed at ${fault} during start-up`);
        r.cycles++;
        continue;
      }
      throw err;
    }
    let flushes = 0;
    let compactions = 0;
    server.child.stdout?.on('data', (d: Buffer) => {
      const s = d.toString();
      flushes += s.split('memtable flushed').length - 1;
      compactions += s.split('segments compacted').length - 1;
    });
    /** The armed fault point fired (start-up flushes and compactions hit it too): the cycle's kill. */
    const firedEarly = async (): Promise<boolean> => {
      if (!fault) return false;
      const signal = await Promise.race([
        server.exited,
        new Promise<'alive'>((res) => setTimeout(() => res('alive'), 500)),
      ]);
      if (signal !== 'SIGKILL') return false;
      r.faultKills[fault] = (r.faultKills[fault] ?? 0) + 1;
      r.cycles++;
      log(`cycle ${cycle}: killed itself at ${fault} before the load, while checking`);
      return true;
    };
    try {
      let now: Awaited<ReturnType<typeof check>>;
      let recovery: { cuts: number; quarantined: number; rebuilt: number };
      try {
        now = await check(server.url);
        recovery = {
          cuts: await metricSum(server.url, 'shoaldb_wal_recovery_cuts'),
          quarantined: await metricSum(server.url, 'shoaldb_recovery_segments_quarantined'),
          rebuilt: await metricSum(server.url, 'shoaldb_recovery_manifest_rebuilt'),
        };
      } catch (err) {
        if (await firedEarly()) continue;
        throw err;
      }
      r.lost = now.lost;
      r.duplicated = now.duplicated;
      r.unsent = now.unsent;
      r.partialUnacked = now.partial;
      r.ackedBatches = now.acked;
      r.ackedRows = now.acked * ROWS;
      r.walCuts += recovery.cuts;
      const { quarantined, rebuilt } = recovery;
      if (quarantined + rebuilt > 0)
        r.fileProblems.push(
          `cycle ${cycle}: recovery quarantined ${quarantined} segments, rebuilt ${rebuilt} manifests`,
        );
      log(
        `cycle ${cycle}: acked ${r.ackedRows} rows, lost ${now.lost}, duplicated ${now.duplicated}, unsent ${now.unsent}, partial unacked ${now.partial}`,
      );
      if (last) {
        await server.stop();
        break;
      }

      let stop = false;
      const writer = async (p: Protocol): Promise<void> => {
        while (!stop) {
          const batch = nextBatch++;
          (sent.get(p) as Set<number>).add(batch);
          try {
            const res = await request(server.url, p, batch);
            await res.arrayBuffer();
            if (res.ok) (acked.get(p) as Set<number>).add(batch);
          } catch {
            return; // the kill cut this request: sent, not acknowledged
          }
        }
      };
      const querier = async (): Promise<void> => {
        const queries = [
          () => sqlRows(server.url, 'SELECT k, count(*), max(batch) FROM kc_line GROUP BY k'),
          () => fetch(`${server.url}/v1/prometheus/api/v1/query?query=${encodeURIComponent('count(kc_prom)')}`),
          () => sqlRows(server.url, "SELECT count(*) FROM loki_logs WHERE line = 'b1'"),
        ];
        for (let i = 0; !stop; i++) {
          try {
            await (queries[i % queries.length] as () => Promise<unknown>)();
          } catch {
            return;
          }
        }
      };
      const loops = [...PROTOCOLS.map(writer), querier()];
      let how: string;
      if (fault) {
        const waited = await Promise.race([
          server.exited,
          new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), 8000)),
        ]);
        if (waited === 'timeout') {
          r.faultMissed++;
          r.randomKills++;
          await server.kill();
          how = `${fault} not reached in 8 s; killed`;
        } else {
          r.faultKills[fault] = (r.faultKills[fault] ?? 0) + 1;
          how = `killed itself at ${fault} (hit ${hitAt})`;
        }
      } else {
        await new Promise((res) => setTimeout(res, loadMin + rand() * (loadMax - loadMin)));
        await server.kill();
        r.randomKills++;
        how = 'killed at a random time';
      }
      stop = true;
      await Promise.all(loops);
      r.flushes += flushes;
      r.compactions += compactions;
      r.cycles++;
      log(`cycle ${cycle}: ${how}; ${flushes} flushes, ${compactions} compactions in the cycle`);
    } catch (err) {
      await server.kill();
      throw err;
    }
  }
  r.seconds = Math.round((performance.now() - started) / 100) / 10;
  return r;
}
