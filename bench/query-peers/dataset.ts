/**
 * The data every system of the query bench holds, from one seeded PRNG per set so a run can be
 * repeated: TSBS-like `cpu` (hosts × 10 metrics, tags hostname/region/datacenter, 1 h at 10 s), a
 * day of one metric for the 24 h range query, and the analytics rows (same shape, streamed in
 * chunks because 10 M rows × 10 values does not belong in memory).
 *
 * Values are whole hundredths in [0, 100): their shortest decimal text reads back as the very
 * double sent by remote write, so text and binary loaders store identical numbers.
 */
import { FIELDS, REGIONS } from '../ingest/tsbs-cpu.js';

/** TSBS' 10 `cpu` metrics, as the ingest benches generate them. */
export const METRICS: readonly string[] = FIELDS;

export interface HostTags {
  hostname: string;
  region: string;
  datacenter: string;
}

export function hostTags(h: number): HostTags {
  const region = REGIONS[h % REGIONS.length] as string;
  return { hostname: `host_${h}`, region, datacenter: `${region}${String.fromCharCode(97 + (h % 3))}` };
}

/** mulberry32: small, fast, and the same sequence on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hundredths(rand: () => number): number {
  return Math.floor(rand() * 10000) / 100;
}

/** A set of regular series: `values[(series * points) + k]` is the sample at `firstMs + k * stepMs`. */
export interface SeriesSet {
  hosts: number;
  metrics: readonly string[];
  points: number;
  firstMs: number;
  stepMs: number;
  values: Float64Array;
}

export const CPU_STEP_MS = 10_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const DAY_STEP_MS = 60_000;
/** The day set's one metric (its PromQL name is `cpu_day_usage_user`). */
export const DAY_METRIC = 'day_usage_user';

/**
 * The hour of `cpu`: samples at [end − 1 h, end), so minute buckets split it into exactly 60 and
 * an instant query a few seconds before `end` sees every sample whether the window is open or
 * closed on the left.
 */
export function cpuHour(hosts: number, endMs: number): SeriesSet {
  const points = HOUR_MS / CPU_STEP_MS;
  const rand = prng(1);
  const values = new Float64Array(hosts * METRICS.length * points);
  for (let i = 0; i < values.length; i++) values[i] = hundredths(rand);
  return { hosts, metrics: METRICS, points, firstMs: endMs - HOUR_MS, stepMs: CPU_STEP_MS, values };
}

/**
 * The day: one metric at 60 s over [end − 24 h, end − 60 s]. It ends a minute before the hour of
 * `cpu` so that, loaded first and in time order, it leaves Prometheus' head able to take the
 * whole hour (the head refuses samples older than its newest minus 1 h).
 */
export function cpuDay(hosts: number, endMs: number): SeriesSet {
  const points = DAY_MS / DAY_STEP_MS;
  const rand = prng(2);
  const values = new Float64Array(hosts * points);
  for (let i = 0; i < values.length; i++) values[i] = hundredths(rand);
  return { hosts, metrics: [DAY_METRIC], points, firstMs: endMs - DAY_MS, stepMs: DAY_STEP_MS, values };
}

export function sampleCount(set: SeriesSet): number {
  return set.values.length;
}

/** One chunk of analytics rows: row r is host `host[r]` at `tsMs[r]` with `values[r * 10 + m]`. */
export interface RowChunk {
  rows: number;
  host: Int32Array;
  tsMs: Float64Array;
  values: Float64Array;
}

/**
 * The analytics rows in chunks: rows walk the hosts, then time steps 10 s, ending just before
 * `endMs`. The same (rows, hosts, endMs) give the same chunks on every call, so each system's
 * loader draws its own copy instead of the bench keeping gigabytes of text.
 */
export function* analyticsChunks(rows: number, hosts: number, endMs: number, chunkRows = 50_000): Generator<RowChunk> {
  const steps = Math.ceil(rows / hosts);
  const firstMs = endMs - steps * CPU_STEP_MS;
  const rand = prng(3);
  for (let start = 0; start < rows; start += chunkRows) {
    const n = Math.min(chunkRows, rows - start);
    const chunk: RowChunk = {
      rows: n,
      host: new Int32Array(n),
      tsMs: new Float64Array(n),
      values: new Float64Array(n * METRICS.length),
    };
    for (let i = 0; i < n; i++) {
      const r = start + i;
      chunk.host[i] = r % hosts;
      chunk.tsMs[i] = firstMs + Math.floor(r / hosts) * CPU_STEP_MS;
    }
    for (let i = 0; i < chunk.values.length; i++) chunk.values[i] = hundredths(rand);
    yield chunk;
  }
}
