/**
 * PromQL on ShoalDB, Prometheus and VictoriaMetrics: the same remote-write bodies (the day first,
 * then the hour, in time order and one body at a time, which is what Prometheus' head accepts),
 * the same queries through each one's Prometheus HTTP API.
 *
 * Instant queries run 5 s before the end: the hour's last sample is 10 s before it, so a `[1h]`
 * window holds all 360 samples whether it is closed on the left (Prometheus 2.x) or open
 * (VictoriaMetrics). Answers must agree on the number of series (and, for the raw samples, on
 * their number and sum); points per series at the edges of a range are allowed to differ.
 */
import { startBenchServer } from '../server.js';
import { cpuDay, cpuHour, DAY_METRIC, DAY_MS, HOUR_MS, METRICS, type SeriesSet, sampleCount } from './dataset.js';
import { remoteWriteBodies } from './encode.js';
import { postBodies, REMOTE_WRITE_HEADERS, settledCount, timedFetch, waitFor } from './load.js';
import {
  installed,
  PROMETHEUS_BINARY,
  startPrometheus,
  startVictoriaMetrics,
  VICTORIA_METRICS_BINARY,
} from './servers.js';
import { countRows, flushTables } from './shoaldb.js';
import { benchSystems, type Loaded, type Starter } from './system.js';
import { type Answer, countAnswer, type RunOnce, type Section } from './timing.js';

interface PromQuery {
  name: string;
  query: string;
  /** Instant queries are evaluated once at `end − 5 s`; range queries span `rangeMs` up to `end`. */
  rangeMs?: number;
  stepS?: number;
  /** Raw samples: their number and sum must agree as well as the number of series. */
  rawSamples?: boolean;
}

const QUERIES: PromQuery[] = [
  { name: 'avg by (hostname), 1 h / 60 s', query: 'avg by (hostname) (cpu_usage_user)', rangeMs: HOUR_MS, stepS: 60 },
  { name: 'max, 1 h / 60 s', query: 'max(cpu_usage_user)', rangeMs: HOUR_MS, stepS: 60 },
  {
    name: 'one host raw samples [1h], instant',
    query: 'cpu_usage_user{hostname="host_7"}[1h]',
    rawSamples: true,
  },
  { name: 'sum(rate [5m]), 1 h / 60 s', query: 'sum(rate(cpu_usage_user[5m]))', rangeMs: HOUR_MS, stepS: 60 },
  {
    name: 'quantile_over_time(0.9, [10m]), 1 h / 60 s',
    query: 'quantile_over_time(0.9, cpu_usage_user[10m])',
    rangeMs: HOUR_MS,
    stepS: 60,
  },
  { name: 'topk(5, avg_over_time [1h]), instant', query: 'topk(5, avg_over_time(cpu_usage_user[1h]))' },
  {
    name: 'user / on(hostname) system, 1 h / 60 s',
    query: 'cpu_usage_user / on(hostname) cpu_usage_system',
    rangeMs: HOUR_MS,
    stepS: 60,
  },
  {
    name: 'day: max by (region) (max_over_time [5m]), 24 h / 5 min',
    query: `max by (region) (max_over_time(cpu_${DAY_METRIC}[5m]))`,
    rangeMs: DAY_MS,
    stepS: 300,
  },
];

interface PromBody {
  status: string;
  error?: string;
  data?: { resultType: string; result: Array<{ values?: unknown[]; value?: unknown }> };
}

function promAnswer(text: string, rawSamples: boolean): Answer {
  const body = JSON.parse(text) as PromBody;
  if (body.status !== 'success' || !body.data) throw new Error(`query failed: ${body.error ?? text.slice(0, 200)}`);
  const series = body.data.result.length;
  const points = body.data.result.flatMap((r) => (r.values ?? [r.value]) as Array<[number, string]>);
  if (rawSamples) {
    const samples = countAnswer(
      points.length,
      'samples',
      points.map((p) => p[1]),
    );
    return { key: `${series} series, ${samples.key}`, detail: `${series} series, ${samples.detail}` };
  }
  // Steps at the edges of a range may be answered differently (lookback, alignment): series must agree, points are shown.
  return {
    key: `${series} series`,
    detail: `${series.toLocaleString('en-US')} series, ${points.length.toLocaleString('en-US')} points`,
  };
}

/** The bench's queries against one Prometheus-compatible API (`apiBase` ends in `/api/v1`). */
function promQueries(apiBase: string, endMs: number, extraParams: Record<string, string>) {
  return (name: string): RunOnce | null => {
    const q = QUERIES.find((x) => x.name === name);
    if (!q) return null;
    const params = new URLSearchParams(
      q.rangeMs
        ? {
            query: q.query,
            start: String((endMs - q.rangeMs) / 1000),
            end: String(endMs / 1000),
            step: String(q.stepS),
            ...extraParams,
          }
        : { query: q.query, time: String((endMs - 5_000) / 1000), ...extraParams },
    );
    const url = `${apiBase}/${q.rangeMs ? 'query_range' : 'query'}?${params}`;
    return async () => {
      const r = await timedFetch(url);
      if (r.status !== 200) throw new Error(`${r.status} ${r.text.slice(0, 200)}`);
      return { ms: r.ms, answer: promAnswer(r.text, q.rawSamples ?? false) };
    };
  };
}

/** Samples a Prometheus-compatible API holds for the two sets, counted by PromQL. */
async function promCount(apiBase: string, endMs: number, extra: Record<string, string>): Promise<number> {
  let total = 0;
  // One metric at a time: count_over_time drops the name, and Prometheus refuses a vector of
  // several metrics that become the same series that way.
  const queries = METRICS.map((m) => `sum(count_over_time(cpu_${m}[1h]))`);
  for (const query of [...queries, `sum(count_over_time(cpu_${DAY_METRIC}[1d]))`]) {
    const params = new URLSearchParams({ query, time: String((endMs - 5_000) / 1000), ...extra });
    const r = await timedFetch(`${apiBase}/query?${params}`);
    const body = JSON.parse(r.text) as { data?: { result?: Array<{ value: [number, string] }> } };
    total += Number(body.data?.result?.[0]?.value[1] ?? 0);
  }
  return total;
}

interface Sets {
  hour: SeriesSet;
  day: SeriesSet;
  hourBodies: Buffer[];
  dayBodies: Buffer[];
  endMs: number;
  expected: number;
}

function shoalStarter(sets: Sets): Starter {
  return async (onStop) => {
    const server = await startBenchServer();
    onStop(() => server.stop());
    const url = `${server.url}/v1/metricsapi/write?db=public`;
    let loadSeconds = await postBodies(url, sets.dayBodies, REMOTE_WRITE_HEADERS, 1);
    loadSeconds += await postBodies(url, sets.hourBodies, REMOTE_WRITE_HEADERS, 1);
    const tables = [...METRICS.map((m) => `cpu_${m}`), `cpu_${DAY_METRIC}`];
    await flushTables(server.url, tables);
    const loaded: Loaded = {
      pid: server.pid,
      stored: await countRows(server.url, tables),
      loadSeconds,
      notes: [],
      query: promQueries(`${server.url}/v1/metricsapi/api/v1`, sets.endMs, {}),
    };
    return loaded;
  };
}

/** Prometheus compacts a head spanning more than 3 h into 2 h blocks; the timing waits for that to be over. */
async function prometheusSettled(url: string): Promise<boolean> {
  let lastBlocks = '';
  return waitFor(
    async () => {
      const status = (await (await fetch(`${url}/api/v1/status/tsdb`)).json()) as {
        data?: { headStats?: { minTime: number; maxTime: number } };
      };
      const head = status.data?.headStats;
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const blocks = /^prometheus_tsdb_blocks_loaded (\S+)$/m.exec(metrics)?.[1] ?? '';
      const stable = blocks === lastBlocks;
      lastBlocks = blocks;
      return head !== undefined && head.maxTime - head.minTime <= 3 * HOUR_MS && stable;
    },
    180_000,
    2_000,
  );
}

function prometheusStarter(sets: Sets): Starter {
  return async (onStop) => {
    const server = await startPrometheus();
    onStop(() => server.stop());
    const url = `${server.url}/api/v1/write`;
    let loadSeconds = await postBodies(url, sets.dayBodies, REMOTE_WRITE_HEADERS, 1);
    loadSeconds += await postBodies(url, sets.hourBodies, REMOTE_WRITE_HEADERS, 1);
    const notes: string[] = [];
    if (!(await prometheusSettled(server.url))) notes.push('head compaction still running after 180 s');
    return {
      pid: server.pid,
      stored: await settledCount(() => promCount(`${server.url}/api/v1`, sets.endMs, {}), sets.expected),
      loadSeconds,
      notes,
      query: promQueries(`${server.url}/api/v1`, sets.endMs, {}),
    };
  };
}

function victoriaMetricsStarter(sets: Sets): Starter {
  return async (onStop) => {
    const server = await startVictoriaMetrics();
    onStop(() => server.stop());
    const url = `${server.url}/api/v1/write`;
    let loadSeconds = await postBodies(url, sets.dayBodies, REMOTE_WRITE_HEADERS, 1);
    loadSeconds += await postBodies(url, sets.hourBodies, REMOTE_WRITE_HEADERS, 1);
    await fetch(`${server.url}/internal/force_flush`);
    const nocache = { nocache: '1' };
    return {
      pid: server.pid,
      stored: await settledCount(() => promCount(`${server.url}/api/v1`, sets.endMs, nocache), sets.expected),
      loadSeconds,
      notes: [],
      query: promQueries(`${server.url}/api/v1`, sets.endMs, nocache),
    };
  };
}

export async function promqlSection(hosts: number, dayHosts: number, endMs: number, runs: number): Promise<Section> {
  const hour = cpuHour(hosts, endMs);
  const day = cpuDay(dayHosts, endMs);
  const sets: Sets = {
    hour,
    day,
    hourBodies: remoteWriteBodies(hour),
    dayBodies: remoteWriteBodies(day),
    endMs,
    expected: sampleCount(hour) + sampleCount(day),
  };
  const section: Section = {
    title: `PromQL: ${hosts.toLocaleString('en-US')} hosts × 10 metrics × 1 h at 10 s, plus ${dayHosts} hosts × 1 metric × 24 h at 60 s (remote write)`,
    unit: 'samples',
    queries: QUERIES.map((q) => ({ name: q.name, text: { all: q.query } })),
    systems: [],
    notes: [],
  };
  const starters: Array<[string, Starter]> = [['ShoalDB', shoalStarter(sets)]];
  if (installed(PROMETHEUS_BINARY)) starters.push(['Prometheus', prometheusStarter(sets)]);
  else section.notes.push(`Prometheus is not installed (${PROMETHEUS_BINARY}; apt-get install prometheus): skipped`);
  if (installed(VICTORIA_METRICS_BINARY)) starters.push(['VictoriaMetrics', victoriaMetricsStarter(sets)]);
  else
    section.notes.push(
      `VictoriaMetrics is not installed (${VICTORIA_METRICS_BINARY}; apt-get install victoria-metrics): skipped`,
    );
  console.log(`${section.title}: ${sets.expected.toLocaleString('en-US')} samples`);
  for (const note of section.notes) console.log(`  ${note}`);
  section.systems.push(
    ...(await benchSystems(
      starters,
      sets.expected,
      section.unit,
      QUERIES.map((q) => q.name),
      runs,
    )),
  );
  return section;
}
