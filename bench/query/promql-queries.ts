/**
 * PromQL query bench: loads BENCH_PROMQL_SERIES counter series (10 jobs) through Prometheus remote
 * write, one hour at a 15 s scrape interval, then times typical dashboard queries over the
 * metrics API, once with pushdown (shards evaluate series-local parts and partial aggregates) and
 * once with `SHOALDB_PROMQL_PUSHDOWN=off` (shards return raw samples, the router evaluates). Each
 * query runs a few times; the median is reported with the samples the shards returned per run.
 */
import snappy from 'snappyjs';
import { prometheusTypes } from '../../src/shared/proto/prometheus.js';
import { startBenchServer } from '../server.js';

const METRIC = 'bench_requests_total';
const SCRAPE_MS = 15_000;
const SAMPLES = 240;
const T0 = 1_700_000_000_000;
const END_MS = T0 + (SAMPLES - 1) * SCRAPE_MS;
const SERIES_PER_WRITE = 500;

export interface PromqlTiming {
  name: string;
  query: string;
  medianMs: number;
  minMs: number;
  /** Per run: what the shards returned (`shoaldb_promql_shard_samples_returned_total` deltas). */
  returned: Record<'raw' | 'step' | 'partial', number>;
}

export interface PromqlBenchResult {
  series: number;
  samplesLoaded: number;
  loadSeconds: number;
  pushdown: PromqlTiming[];
  routerOnly: PromqlTiming[];
}

async function load(url: string, series: number): Promise<void> {
  for (let first = 0; first < series; first += SERIES_PER_WRITE) {
    const timeseries = [];
    for (let i = first; i < Math.min(series, first + SERIES_PER_WRITE); i++) {
      const rate = 1 + (i % 97) / 10;
      const samples = Array.from({ length: SAMPLES }, (_, k) => ({
        timestamp: T0 + k * SCRAPE_MS,
        value: Math.floor(rate * k * 15 + (i % 13)),
      }));
      timeseries.push({
        labels: [
          { name: '__name__', value: METRIC },
          { name: 'job', value: `job${i % 10}` },
          { name: 'instance', value: `host-${i}:9100` },
        ],
        samples,
      });
    }
    const bytes = prometheusTypes.WriteRequest.encode(prometheusTypes.WriteRequest.fromObject({ timeseries })).finish();
    const res = await fetch(`${url}/v1/metricsapi/write`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: snappy.compress(Buffer.from(bytes)),
    });
    if (res.status !== 204) throw new Error(`remote write failed: ${res.status} ${await res.text()}`);
  }
}

async function returned(url: string): Promise<PromqlTiming['returned']> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = { raw: 0, step: 0, partial: 0 };
  for (const m of text.matchAll(/^shoaldb_promql_shard_samples_returned_total\{kind="(\w+)"\} (\d+)$/gm)) {
    out[m[1] as keyof typeof out] = Number(m[2]);
  }
  return out;
}

const QUERIES: Array<{ name: string; path: 'query' | 'query_range'; query: string }> = [
  { name: 'instant sum(rate)', path: 'query', query: `sum(rate(${METRIC}[5m]))` },
  { name: 'instant sum by (job) (rate)', path: 'query', query: `sum by (job) (rate(${METRIC}[5m]))` },
  { name: 'instant topk(5, rate)', path: 'query', query: `topk(5, rate(${METRIC}[5m]))` },
  { name: 'range 1h/60s sum by (job) (rate)', path: 'query_range', query: `sum by (job) (rate(${METRIC}[5m]))` },
  { name: 'range 1h/60s avg(increase)', path: 'query_range', query: `avg(increase(${METRIC}[10m]))` },
  { name: 'range 1h/60s rate, one job', path: 'query_range', query: `rate(${METRIC}{job="job3"}[5m])` },
];

async function timeQueries(url: string, repeats: number): Promise<PromqlTiming[]> {
  const timings: PromqlTiming[] = [];
  for (const q of QUERIES) {
    const params: Record<string, string> =
      q.path === 'query'
        ? { query: q.query, time: String(END_MS / 1000) }
        : { query: q.query, start: String((END_MS - 3_600_000) / 1000), end: String(END_MS / 1000), step: '60' };
    const times: number[] = [];
    const before = await returned(url);
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/metricsapi/api/v1/${q.path}?${new URLSearchParams(params)}`);
      const text = await res.text();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${q.query}: ${res.status} ${text}`);
    }
    const after = await returned(url);
    times.sort((a, b) => a - b);
    timings.push({
      name: q.name,
      query: q.query,
      medianMs: times[Math.floor(times.length / 2)] as number,
      minMs: times[0] as number,
      returned: {
        raw: (after.raw - before.raw) / repeats,
        step: (after.step - before.step) / repeats,
        partial: (after.partial - before.partial) / repeats,
      },
    });
  }
  return timings;
}

/** Runs the bench on two fresh servers (pushdown on, then off) loaded with the same series. */
export async function runPromqlBench(series: number, repeats = 5): Promise<PromqlBenchResult> {
  const result: PromqlBenchResult = {
    series,
    samplesLoaded: series * SAMPLES,
    loadSeconds: 0,
    pushdown: [],
    routerOnly: [],
  };
  for (const pushdown of [true, false]) {
    const previous = process.env.SHOALDB_PROMQL_PUSHDOWN;
    process.env.SHOALDB_PROMQL_PUSHDOWN = pushdown ? 'on' : 'off';
    const server = await startBenchServer();
    if (previous === undefined) delete process.env.SHOALDB_PROMQL_PUSHDOWN;
    else process.env.SHOALDB_PROMQL_PUSHDOWN = previous;
    try {
      const t0 = performance.now();
      await load(server.url, series);
      if (pushdown) result.loadSeconds = (performance.now() - t0) / 1000;
      const timings = await timeQueries(server.url, repeats);
      if (pushdown) result.pushdown = timings;
      else result.routerOnly = timings;
    } finally {
      await server.stop();
    }
  }
  return result;
}

/** The bench's figures as text lines (stdout and RESULTS.md). */
export function describePromql(r: PromqlBenchResult): string {
  const lines = [
    `series=${r.series} samples=${r.samplesLoaded} (1 h at 15 s) loaded by remote write in ${r.loadSeconds.toFixed(1)} s`,
    'query                               pushdown: median / min   returned per run       | router only: median / min   returned per run',
  ];
  const shipped = (x: PromqlTiming['returned']): string =>
    `raw ${x.raw} step ${x.step} partial ${x.partial}`.padEnd(30);
  r.pushdown.forEach((p, i) => {
    const o = r.routerOnly[i] as PromqlTiming;
    lines.push(
      `${p.name.padEnd(36)}${p.medianMs.toFixed(1).padStart(8)} / ${p.minMs.toFixed(1).padStart(7)} ms  ${shipped(p.returned)}| ${o.medianMs.toFixed(1).padStart(8)} / ${o.minMs.toFixed(1).padStart(7)} ms  ${shipped(o.returned)}`,
    );
  });
  return lines.map((line) => line.trimEnd()).join('\n');
}
