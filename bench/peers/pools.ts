/**
 * Pre-generated request bodies for the side-by-side ingest bench, the same bytes for every
 * server. Data: TSBS devops `cpu`, 1,000 hosts with 10 tags and 10 float metrics, one point per
 * series every 10 s starting 12 h ago (inside every peer's default retention). Every sample has
 * its own (series, time), so each server's stored count must equal what was sent.
 */
import snappy from 'snappyjs';
import { FIELDS } from '../ingest/tsbs-cpu.js';

export const HOSTS = 1000;
export const METRICS = FIELDS;
const REGIONS = ['us-east-1', 'us-west-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1'];
const STEP_MS = 10_000;

export type WorkloadName = 'lp-wide' | 'lp-highcard' | 'lp-churn' | 'lp-narrow' | 'rw-20' | 'rw-1' | 'tsdb';

/** Hosts of the high-cardinality variant: 100,000 series of 10 fields. */
export const HIGHCARD_HOSTS = 100_000;

/**
 * Steps (10 s each) after which the churn variant replaces all 1,000 hosts with new ones: a new
 * set of series every 3 minutes of data, as pods of a redeployed service come with new names.
 */
export const CHURN_STEPS = 18;

export interface Pool {
  name: WorkloadName;
  describe: string;
  bodies: Buffer[];
  samples: number;
  /** Tables (ShoalDB) the samples land in, and how many samples a stored row holds. */
  tables: string[];
  samplesPerRow: number;
  /** Last sample time, ms. */
  lastMs: number;
}

/** Tag pairs of a host, sorted by name (as Prometheus sends labels). */
function hostTags(h: number): Array<[string, string]> {
  const region = REGIONS[h % REGIONS.length] as string;
  return [
    ['arch', h % 2 ? 'x64' : 'x86'],
    ['datacenter', `${region}${'abc'[h % 3]}`],
    ['hostname', `host_${h}`],
    ['os', ['Ubuntu16.04LTS', 'Ubuntu16.10', 'Ubuntu15.10'][h % 3] as string],
    ['rack', String(h % 100)],
    ['region', region],
    ['service', String(h % 20)],
    ['service_environment', ['production', 'staging', 'test'][h % 3] as string],
    ['service_version', String(h % 2)],
    ['team', ['SF', 'NYC', 'LON', 'CHI'][h % 4] as string],
  ];
}

function sampleValue(i: number): number {
  return ((i * 2654435761) % 10000) / 100;
}

/** Start time: 12 h ago on a 10 s boundary, ms. */
export function startMs(): number {
  return Math.floor((Date.now() - 12 * 3600_000) / STEP_MS) * STEP_MS;
}

function lineTags(h: number): string {
  return hostTags(h)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/**
 * 5,000 rows a request, 10 fields a row (measurement `cpu`), rows walking through `hosts`. With
 * `churnSteps`, every that many steps the hosts are replaced by as many new ones.
 */
function lineprotoWide(samples: number, t0: number, hosts = HOSTS, churnSteps = 0): Pool {
  const rows = Math.ceil(samples / METRICS.length / 5000) * 5000;
  const tags = new Map<number, string>();
  const tagsOf = (h: number): string => {
    let t = tags.get(h);
    if (t === undefined) tags.set(h, (t = `cpu,${lineTags(h)} `));
    return t;
  };
  const bodies: Buffer[] = [];
  for (let r = 0; r < rows; r += 5000) {
    const lines: string[] = [];
    for (let i = r; i < r + 5000; i++) {
      const step = Math.floor(i / hosts);
      const generation = churnSteps > 0 ? Math.floor(step / churnSteps) : 0;
      const ts = (t0 + step * STEP_MS) * 1e6;
      const fields = METRICS.map((m, f) => `${m}=${sampleValue(i * 10 + f)}`).join(',');
      lines.push(`${tagsOf(generation * hosts + (i % hosts))}${fields} ${ts}`);
    }
    bodies.push(Buffer.from(lines.join('\n')));
  }
  const lastMs = t0 + Math.floor((rows - 1) / hosts) * STEP_MS;
  const steps = Math.ceil(rows / hosts);
  const seen = churnSteps > 0 ? Math.ceil(steps / churnSteps) * hosts : hosts;
  return {
    name: churnSteps > 0 ? 'lp-churn' : hosts === HOSTS ? 'lp-wide' : 'lp-highcard',
    describe:
      churnSteps > 0
        ? `line protocol, 5,000 rows of 10 fields a request, ${hosts.toLocaleString('en-US')} hosts replaced every ${churnSteps} steps (${seen.toLocaleString('en-US')} hosts in all)`
        : `line protocol, 5,000 rows of 10 fields a request${hosts === HOSTS ? '' : `, ${hosts.toLocaleString('en-US')} hosts`}`,
    bodies,
    samples: rows * METRICS.length,
    tables: ['cpu'],
    samplesPerRow: METRICS.length,
    lastMs,
  };
}

/** 5,000 rows a request, one field a row: measurement `cpu_<metric>`, field `value`. */
function lineprotoNarrow(samples: number, t0: number): Pool {
  const rows = Math.ceil(samples / 5000) * 5000;
  const series = HOSTS * METRICS.length;
  const prefixes = Array.from(
    { length: series },
    (_, s) => `cpu_${METRICS[s % METRICS.length]},${lineTags(Math.floor(s / METRICS.length))} value=`,
  );
  const bodies: Buffer[] = [];
  for (let r = 0; r < rows; r += 5000) {
    const lines: string[] = [];
    for (let i = r; i < r + 5000; i++) {
      lines.push(`${prefixes[i % series]}${sampleValue(i)} ${(t0 + Math.floor(i / series) * STEP_MS) * 1e6}`);
    }
    bodies.push(Buffer.from(lines.join('\n')));
  }
  return {
    name: 'lp-narrow',
    describe: 'line protocol, 5,000 rows of 1 field a request',
    bodies,
    samples: rows,
    tables: METRICS.map((m) => `cpu_${m}`),
    samplesPerRow: 1,
    lastMs: t0 + Math.floor((rows - 1) / series) * STEP_MS,
  };
}

// Remote write, encoded by hand: each series' label bytes are built once and reused.
function varint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

function labelBytes(series: number): Buffer {
  const h = Math.floor(series / METRICS.length);
  const pairs: Array<[string, string]> = [['__name__', `cpu_${METRICS[series % METRICS.length]}`], ...hostTags(h)];
  const out: number[] = [];
  for (const [name, value] of pairs) {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const inner: number[] = [0x0a];
    varint(inner, n.length);
    inner.push(...n, 0x12);
    varint(inner, v.length);
    inner.push(...v);
    out.push(0x0a);
    varint(out, inner.length);
    out.push(...inner);
  }
  return Buffer.from(out);
}

function sampleBytes(value: number, ms: number): Buffer {
  const inner = Buffer.alloc(9);
  inner[0] = 0x09;
  inner.writeDoubleLE(value, 1);
  const t: number[] = [0x10];
  varint(t, ms);
  const body = Buffer.concat([inner, Buffer.from(t)]);
  return Buffer.concat([Buffer.from([0x12, body.length]), body]);
}

/** `perSeries` samples per series, 2,500 series (or 50,000 samples) a request. */
function remoteWrite(samples: number, perSeries: number, t0: number): Pool {
  const seriesCount = HOSTS * METRICS.length;
  const labels = Array.from({ length: seriesCount }, (_, s) => labelBytes(s));
  const perRequest = perSeries === 1 ? 2500 : 50_000 / perSeries;
  const requests = Math.ceil(samples / (perRequest * perSeries));
  const bodies: Buffer[] = [];
  let lastMs = t0;
  for (let q = 0; q < requests; q++) {
    const parts: Buffer[] = [];
    for (let k = 0; k < perRequest; k++) {
      const slot = q * perRequest + k;
      const series = slot % seriesCount;
      const window = Math.floor(slot / seriesCount);
      const ts: Buffer[] = [labels[series] as Buffer];
      for (let j = 0; j < perSeries; j++) {
        const ms = t0 + (window * perSeries + j) * STEP_MS;
        lastMs = Math.max(lastMs, ms);
        ts.push(sampleBytes(sampleValue(slot * perSeries + j), ms));
      }
      const message = Buffer.concat(ts);
      const head: number[] = [0x0a];
      varint(head, message.length);
      parts.push(Buffer.from(head), message);
    }
    bodies.push(snappy.compress(Buffer.concat(parts)));
  }
  return {
    name: perSeries === 1 ? 'rw-1' : 'rw-20',
    describe: `remote write, ${perSeries} sample(s) a series, ${perRequest * perSeries} samples a request`,
    bodies,
    samples: requests * perRequest * perSeries,
    tables: METRICS.map((m) => `cpu_${m}`),
    samplesPerRow: 1,
    lastMs,
  };
}

/** OpenTSDB JSON put, 1,000 points a request. */
function opentsdb(samples: number, t0: number): Pool {
  const points = Math.ceil(samples / 1000) * 1000;
  const series = HOSTS * METRICS.length;
  const tags = Array.from({ length: HOSTS }, (_, h) => JSON.stringify(Object.fromEntries(hostTags(h))));
  const bodies: Buffer[] = [];
  for (let p = 0; p < points; p += 1000) {
    const items: string[] = [];
    for (let i = p; i < p + 1000; i++) {
      const s = i % series;
      const ms = t0 + Math.floor(i / series) * STEP_MS;
      items.push(
        `{"metric":"cpu_${METRICS[s % METRICS.length]}","timestamp":${ms},"value":${sampleValue(i)},"tags":${tags[Math.floor(s / METRICS.length)]}}`,
      );
    }
    bodies.push(Buffer.from(`[${items.join(',')}]`));
  }
  return {
    name: 'tsdb',
    describe: 'OpenTSDB JSON put, 1,000 points a request',
    bodies,
    samples: points,
    tables: METRICS.map((m) => `cpu_${m}`),
    samplesPerRow: 1,
    lastMs: t0 + Math.floor((points - 1) / series) * STEP_MS,
  };
}

/** The pool of a workload with about `samples` samples. */
export function makePool(name: WorkloadName, samples: number, t0: number): Pool {
  switch (name) {
    case 'lp-wide':
      return lineprotoWide(samples, t0);
    case 'lp-highcard':
      return lineprotoWide(samples, t0, HIGHCARD_HOSTS);
    case 'lp-churn':
      return lineprotoWide(samples, t0, HOSTS, CHURN_STEPS);
    case 'lp-narrow':
      return lineprotoNarrow(samples, t0);
    case 'rw-20':
      return remoteWrite(samples, 20, t0);
    case 'rw-1':
      return remoteWrite(samples, 1, t0);
    case 'tsdb':
      return opentsdb(samples, t0);
  }
}
