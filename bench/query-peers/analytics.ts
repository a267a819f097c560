/**
 * SQL analytics over many rows: ShoalDB beside DuckDB (in this process, through
 * `@duckdb/node-api`, no HTTP or JSON in its timings) and ClickHouse 18.16 (Debian's
 * `clickhouse-server`, started as in the log bench). Each system draws the same rows from the
 * seeded generator: ShoalDB as line protocol, ClickHouse and DuckDB as tab-separated text.
 *
 * Each query uses the system's own spelling of the same meaning: hour buckets from the epoch
 * (`date_bin`, `date_trunc`, `intDiv(toUInt32(ts), 3600)`, which ignores the server's time zone),
 * and each one's approximate percentile (ShoalDB `approx_percentile_cont`, DuckDB
 * `approx_quantile`, ClickHouse `quantile`), so percentile values may differ; rows must agree.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLICKHOUSE_BINARY, clickHouseInstalled, startClickHouse } from '../logs/clickhouse.js';
import { startBenchServer } from '../server.js';
import { analyticsChunks, METRICS } from './dataset.js';
import { chunkLineProtocol, chunkTsv } from './encode.js';
import { postBodies, waitFor } from './load.js';
import { countRows, flushTables, shoalSql } from './shoaldb.js';
import { benchSystems, type Starter } from './system.js';
import { type Answer, countAnswer, type RunOnce, type Section } from './timing.js';

type Dialect = 'ShoalDB' | 'DuckDB' | 'ClickHouse';

const FIELDS_DDL = METRICS.map((m) => `${m} DOUBLE`).join(', ');

const QUERIES: Array<{ name: string; sql: Record<Dialect, string>; countsValue?: boolean }> = [
  {
    name: 'group by region, datacenter: avg',
    sql: {
      ShoalDB:
        'SELECT region, datacenter, avg(usage_user), avg(usage_system) FROM cpu GROUP BY region, datacenter ORDER BY region, datacenter',
      DuckDB:
        'SELECT region, datacenter, avg(usage_user), avg(usage_system) FROM cpu GROUP BY region, datacenter ORDER BY region, datacenter',
      ClickHouse:
        'SELECT region, datacenter, avg(usage_user), avg(usage_system) FROM cpu GROUP BY region, datacenter ORDER BY region, datacenter',
    },
  },
  {
    name: 'hour buckets: p90 of usage_user',
    sql: {
      ShoalDB:
        "SELECT date_bin(INTERVAL '1 hour', greptime_timestamp) AS hour, approx_percentile_cont(usage_user, 0.9) FROM cpu GROUP BY hour ORDER BY hour",
      DuckDB:
        "SELECT date_trunc('hour', ts) AS hour, approx_quantile(usage_user, 0.9) FROM cpu GROUP BY hour ORDER BY hour",
      ClickHouse:
        'SELECT intDiv(toUInt32(ts), 3600) AS hour, quantile(0.9)(usage_user) FROM cpu GROUP BY hour ORDER BY hour',
    },
  },
  {
    name: 'top 5 hosts by avg usage_user',
    sql: {
      ShoalDB: 'SELECT hostname, avg(usage_user) AS a FROM cpu GROUP BY hostname ORDER BY a DESC LIMIT 5',
      DuckDB: 'SELECT hostname, avg(usage_user) AS a FROM cpu GROUP BY hostname ORDER BY a DESC LIMIT 5',
      ClickHouse: 'SELECT hostname, avg(usage_user) AS a FROM cpu GROUP BY hostname ORDER BY a DESC LIMIT 5',
    },
  },
  {
    name: 'count distinct hostname',
    sql: {
      ShoalDB: 'SELECT count(DISTINCT hostname) FROM cpu',
      DuckDB: 'SELECT count(DISTINCT hostname) FROM cpu',
      // count(DISTINCT) is uniqExact in ClickHouse's default settings: exact, as the others.
      ClickHouse: 'SELECT count(DISTINCT hostname) FROM cpu',
    },
    countsValue: true,
  },
];

/** The answer: its rows, and for the distinct count the count itself. */
function answerOf(rows: unknown[][], countsValue: boolean): Answer {
  if (!countsValue) return countAnswer(rows.length, 'rows');
  const value = String(rows[0]?.[0]);
  return { key: `count ${value}`, detail: `count ${value}` };
}

function shoalStarter(rows: number, hosts: number, endMs: number): Starter {
  return async (onStop) => {
    const server = await startBenchServer();
    onStop(() => server.stop());
    let loadSeconds = 0;
    for (const chunk of analyticsChunks(rows, hosts, endMs)) {
      loadSeconds += await postBodies(
        `${server.url}/v1/lineproto/write?db=public&precision=ms`,
        chunkLineProtocol(chunk),
      );
    }
    await flushTables(server.url, ['cpu']);
    return {
      pid: server.pid,
      stored: await countRows(server.url, ['cpu']),
      loadSeconds,
      notes: [],
      query: (name) => {
        const q = QUERIES.find((x) => x.name === name);
        if (!q) return null;
        const run: RunOnce = async () => {
          const r = await shoalSql(server.url, q.sql.ShoalDB);
          return { ms: r.ms, answer: answerOf(r.rows, q.countsValue ?? false) };
        };
        return run;
      },
    };
  };
}

const TSV_COLUMNS = `t BIGINT, hostname VARCHAR, region VARCHAR, datacenter VARCHAR, ${FIELDS_DDL}`;

/**
 * DuckDB on a database file in a temporary directory (so its data lives where the servers'
 * does: on disk, read through its buffer pool), loaded from a TSV file with one COPY-like
 * INSERT ... SELECT, then checkpointed.
 */
function duckDbStarter(rows: number, hosts: number, endMs: number): Starter {
  return async (onStop) => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'duckdb-qbench-'));
    onStop(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const tsv = path.join(dir, 'rows.tsv');
    const fd = fs.openSync(tsv, 'w');
    try {
      for (const chunk of analyticsChunks(rows, hosts, endMs)) fs.writeSync(fd, chunkTsv(chunk));
    } finally {
      fs.closeSync(fd);
    }
    const instance = await DuckDBInstance.create(path.join(dir, 'bench.duckdb'));
    const connection = await instance.connect();
    onStop(async () => {
      connection.closeSync();
      instance.closeSync();
    });
    const t0 = performance.now();
    await connection.run(
      `CREATE TABLE cpu (ts TIMESTAMP, hostname VARCHAR, region VARCHAR, datacenter VARCHAR, ${FIELDS_DDL})`,
    );
    const columns = TSV_COLUMNS.split(', ')
      .map((c) => c.split(' '))
      .map(([name, type]) => `'${name}': '${type}'`)
      .join(', ');
    await connection.run(
      `INSERT INTO cpu SELECT epoch_ms(t * 1000), hostname, region, datacenter, ${METRICS.join(', ')} FROM read_csv('${tsv}', delim = '\t', header = false, columns = {${columns}})`,
    );
    await connection.run('CHECKPOINT');
    const loadSeconds = (performance.now() - t0) / 1000;
    fs.rmSync(tsv);
    const stored = Number((await connection.runAndReadAll('SELECT count(*) FROM cpu')).getRows()[0]?.[0]);
    return {
      pid: process.pid,
      inProcess: true,
      stored,
      loadSeconds,
      notes: [],
      query: (name) => {
        const q = QUERIES.find((x) => x.name === name);
        if (!q) return null;
        const run: RunOnce = async () => {
          const t = performance.now();
          const reader = await connection.runAndReadAll(q.sql.DuckDB);
          const result = reader.getRows();
          return { ms: performance.now() - t, answer: answerOf(result, q.countsValue ?? false) };
        };
        return run;
      },
    };
  };
}

/**
 * ClickHouse: a MergeTree ordered by (hostname, ts), the TSV chunks posted as INSERTs, then a
 * wait until its background merges are done so they do not run during the timings.
 */
function clickHouseStarter(rows: number, hosts: number, endMs: number): Starter {
  return async (onStop) => {
    const server = await startClickHouse();
    onStop(() => server.stop());
    const fields = METRICS.map((m) => `${m} Float64`).join(', ');
    await server.query(
      `CREATE TABLE cpu (ts DateTime, hostname String, region String, datacenter String, ${fields}) ENGINE = MergeTree() ORDER BY (hostname, ts)`,
    );
    let loadSeconds = 0;
    for (const chunk of analyticsChunks(rows, hosts, endMs)) {
      const t0 = performance.now();
      await server.query('INSERT INTO cpu FORMAT TabSeparated', chunkTsv(chunk));
      loadSeconds += (performance.now() - t0) / 1000;
    }
    const notes: string[] = [];
    if (!(await waitFor(async () => (await server.query('SELECT count() FROM system.merges')).trim() === '0', 300_000)))
      notes.push('merges still running after 300 s');
    const parts = (await server.query("SELECT count() FROM system.parts WHERE active AND table = 'cpu'")).trim();
    notes.push(`${parts} active parts`);
    return {
      pid: server.pid,
      stored: Number((await server.query('SELECT count() FROM cpu')).trim()),
      loadSeconds,
      notes,
      query: (name) => {
        const q = QUERIES.find((x) => x.name === name);
        if (!q) return null;
        const sql = `${q.sql.ClickHouse} FORMAT JSONCompact`;
        const run: RunOnce = async () => {
          const t = performance.now();
          const text = await server.query(sql);
          const ms = performance.now() - t;
          const body = JSON.parse(text) as { data: unknown[][] };
          return { ms, answer: answerOf(body.data, q.countsValue ?? false) };
        };
        return run;
      },
    };
  };
}

async function duckDbAvailable(): Promise<boolean> {
  try {
    await import('@duckdb/node-api');
    return true;
  } catch {
    return false;
  }
}

export async function analyticsSection(rows: number, hosts: number, endMs: number, runs: number): Promise<Section> {
  const section: Section = {
    title: `SQL analytics: ${rows.toLocaleString('en-US')} rows (${hosts.toLocaleString('en-US')} hosts, 10 s apart, 10 fields)`,
    unit: 'rows',
    queries: QUERIES.map((q) => ({ name: q.name, text: q.sql })),
    systems: [],
    notes: [],
  };
  const starters: Array<[string, Starter]> = [['ShoalDB', shoalStarter(rows, hosts, endMs)]];
  if (await duckDbAvailable()) starters.push(['DuckDB', duckDbStarter(rows, hosts, endMs)]);
  else section.notes.push('@duckdb/node-api does not load here (npm install): DuckDB skipped');
  if (clickHouseInstalled()) starters.push(['ClickHouse', clickHouseStarter(rows, hosts, endMs)]);
  else
    section.notes.push(
      `ClickHouse is not installed (${CLICKHOUSE_BINARY}; apt-get install clickhouse-server): skipped`,
    );
  console.log(`${section.title}`);
  for (const note of section.notes) console.log(`  ${note}`);
  section.systems.push(
    ...(await benchSystems(
      starters,
      rows,
      section.unit,
      QUERIES.map((q) => q.name),
      runs,
    )),
  );
  return section;
}
