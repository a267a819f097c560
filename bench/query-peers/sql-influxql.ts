/**
 * SQL on ShoalDB beside InfluxQL on InfluxDB 1.6, over the same hour of `cpu` loaded as the same
 * wide line-protocol bodies (one measurement, 10 fields, millisecond timestamps). The queries
 * mean the same: minute buckets from the epoch, the hour as [end − 1 h, end); InfluxQL's
 * `fill(none)` leaves out empty buckets as SQL's GROUP BY does. Answers must agree on rows (for
 * InfluxQL, the rows of every series it returns).
 */
import { startBenchServer } from '../server.js';
import { cpuHour, HOUR_MS, METRICS } from './dataset.js';
import { lineProtocolBodies } from './encode.js';
import { postBodies, settledCount, timedFetch, waitFor } from './load.js';
import { INFLUXD_BINARY, installed, startInfluxDb } from './servers.js';
import { countRows, flushTables, shoalSqlQuery } from './shoaldb.js';
import { benchSystems, type Starter } from './system.js';
import { countAnswer, type RunOnce, type Section } from './timing.js';

/** `exact`: the answer's values are loaded samples or their maximum, so their sums must agree too. */
function queries(endMs: number): Array<{ name: string; sql: string; influxql: string; exact?: boolean }> {
  const from = new Date(endMs - HOUR_MS).toISOString();
  const to = new Date(endMs).toISOString();
  const sqlRange = `greptime_timestamp >= '${from}' AND greptime_timestamp < '${to}'`;
  const influxRange = `time >= ${endMs - HOUR_MS}ms AND time < ${endMs}ms`;
  return [
    {
      name: 'avg by host per minute, 1 h',
      sql: `SELECT hostname, date_bin(INTERVAL '1 minute', greptime_timestamp) AS minute, avg(usage_user) FROM cpu WHERE ${sqlRange} GROUP BY hostname, minute`,
      influxql: `SELECT mean(usage_user) FROM cpu WHERE ${influxRange} GROUP BY time(1m), hostname fill(none)`,
    },
    {
      name: 'max over all hosts per minute, 1 h',
      sql: `SELECT date_bin(INTERVAL '1 minute', greptime_timestamp) AS minute, max(usage_user) FROM cpu WHERE ${sqlRange} GROUP BY minute ORDER BY minute`,
      influxql: `SELECT max(usage_user) FROM cpu WHERE ${influxRange} GROUP BY time(1m) fill(none)`,
      exact: true,
    },
    {
      name: 'one host raw samples, 1 h',
      sql: `SELECT greptime_timestamp, usage_user FROM cpu WHERE hostname = 'host_7' AND ${sqlRange} ORDER BY greptime_timestamp`,
      influxql: `SELECT usage_user FROM cpu WHERE hostname = 'host_7' AND ${influxRange}`,
      exact: true,
    },
  ];
}

interface InfluxBody {
  results?: Array<{ error?: string; series?: Array<{ columns: string[]; values: unknown[][] }> }>;
  error?: string;
}

async function influxQuery(url: string, q: string): Promise<{ ms: number; body: InfluxBody }> {
  const params = new URLSearchParams({ db: 'bench', q, epoch: 'ms' });
  const r = await timedFetch(`${url}/query?${params}`);
  const body = JSON.parse(r.text) as InfluxBody;
  const error = body.error ?? body.results?.[0]?.error;
  if (r.status !== 200 || error) throw new Error(`InfluxDB ${r.status}: ${error ?? r.text.slice(0, 200)}`);
  return { ms: r.ms, body };
}

/** Fields stored: InfluxQL `count(*)` answers one count per field. */
async function influxSamples(url: string, endMs: number): Promise<number> {
  const { body } = await influxQuery(
    url,
    `SELECT count(*) FROM cpu WHERE time >= ${endMs - HOUR_MS}ms AND time < ${endMs}ms`,
  );
  const row = body.results?.[0]?.series?.[0]?.values?.[0] ?? [];
  return row.slice(1).reduce<number>((n, v) => n + Number(v), 0);
}

/** InfluxDB's cache (the points not yet in TSM files), summed over its shards, from /debug/vars. */
async function influxCacheBytes(url: string): Promise<number> {
  const vars = (await (await fetch(`${url}/debug/vars`)).json()) as Record<
    string,
    { name?: string; values?: Record<string, number> }
  >;
  let bytes = 0;
  for (const v of Object.values(vars)) if (v?.name === 'tsm1_cache') bytes += v.values?.memBytes ?? 0;
  return bytes;
}

export async function sqlSection(hosts: number, endMs: number, runs: number): Promise<Section> {
  const hour = cpuHour(hosts, endMs);
  const bodies = lineProtocolBodies(hour);
  const rows = hosts * hour.points;
  const expected = rows * METRICS.length;
  const qs = queries(endMs);
  const section: Section = {
    title: `SQL (ShoalDB) vs InfluxQL (InfluxDB): ${hosts.toLocaleString('en-US')} hosts × 1 h at 10 s, one table of 10 fields (line protocol)`,
    unit: 'samples',
    queries: qs.map((q) => ({ name: q.name, text: { ShoalDB: q.sql, InfluxDB: q.influxql } })),
    systems: [],
    notes: [],
  };

  const shoal: Starter = async (onStop) => {
    const server = await startBenchServer();
    onStop(() => server.stop());
    const loadSeconds = await postBodies(`${server.url}/v1/lineproto/write?db=public&precision=ms`, bodies);
    await flushTables(server.url, ['cpu']);
    return {
      pid: server.pid,
      stored: (await countRows(server.url, ['cpu'])) * METRICS.length,
      loadSeconds,
      notes: [],
      query: (name) => {
        const q = qs.find((x) => x.name === name);
        return q ? shoalSqlQuery(server.url, q.sql, q.exact) : null;
      },
    };
  };

  const influx: Starter = async (onStop) => {
    const server = await startInfluxDb();
    onStop(() => server.stop());
    const created = await fetch(`${server.url}/query?q=${encodeURIComponent('CREATE DATABASE bench')}`, {
      method: 'POST',
    });
    if (!created.ok) throw new Error(`CREATE DATABASE: ${created.status} ${await created.text()}`);
    const loadSeconds = await postBodies(`${server.url}/write?db=bench&precision=ms`, bodies);
    const notes: string[] = [];
    if (!(await waitFor(async () => (await influxCacheBytes(server.url)) === 0, 120_000)))
      notes.push('cache not yet snapshotted to TSM after 120 s');
    return {
      pid: server.pid,
      stored: await settledCount(() => influxSamples(server.url, endMs), expected),
      loadSeconds,
      notes,
      query: (name) => {
        const q = qs.find((x) => x.name === name);
        if (!q) return null;
        const run: RunOnce = async () => {
          const { ms, body } = await influxQuery(server.url, q.influxql);
          const rows = (body.results?.[0]?.series ?? []).flatMap((s) => s.values);
          return { ms, answer: countAnswer(rows.length, 'rows', q.exact ? rows.map((r) => r.at(-1)) : undefined) };
        };
        return run;
      },
    };
  };

  const starters: Array<[string, Starter]> = [['ShoalDB', shoal]];
  if (installed(INFLUXD_BINARY)) starters.push(['InfluxDB', influx]);
  else section.notes.push(`InfluxDB is not installed (${INFLUXD_BINARY}; apt-get install -y influxdb): skipped`);
  console.log(`${section.title}: ${expected.toLocaleString('en-US')} samples`);
  for (const note of section.notes) console.log(`  ${note}`);
  section.systems.push(
    ...(await benchSystems(
      starters,
      expected,
      section.unit,
      qs.map((q) => q.name),
      runs,
    )),
  );
  return section;
}
