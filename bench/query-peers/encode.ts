/**
 * The data sets as request bodies, encoded once and posted unchanged to every system that takes
 * the format, so the systems differ only in what they do with the same bytes.
 */
import snappy from 'snappyjs';
import { prometheusTypes } from '../../src/shared/proto/prometheus.js';
import { hostTags, METRICS, type RowChunk, type SeriesSet } from './dataset.js';

/** Under every receiver's default body limit once compressed, and few enough requests to load fast. */
const SAMPLES_PER_WRITE = 100_000;
const LP_ROWS_PER_BODY = 5_000;

function writeRequest(
  set: SeriesSet,
  series: Array<{ host: number; metric: number }>,
  fromPoint: number,
  toPoint: number,
): Buffer {
  const timeseries = series.map(({ host, metric }) => {
    const t = hostTags(host);
    const base = (host * set.metrics.length + metric) * set.points;
    const samples = [];
    for (let k = fromPoint; k < toPoint; k++) {
      samples.push({ timestamp: set.firstMs + k * set.stepMs, value: set.values[base + k] as number });
    }
    // Sorted by name, as Prometheus' own senders write them.
    const labels = [
      { name: '__name__', value: `cpu_${set.metrics[metric]}` },
      { name: 'datacenter', value: t.datacenter },
      { name: 'hostname', value: t.hostname },
      { name: 'region', value: t.region },
    ];
    return { labels, samples };
  });
  const bytes = prometheusTypes.WriteRequest.encode(prometheusTypes.WriteRequest.fromObject({ timeseries })).finish();
  return Buffer.from(snappy.compress(Buffer.from(bytes)));
}

/**
 * Remote-write bodies in time order: each body holds every series for one slice of time, and the
 * slices follow one another. Prometheus' head only takes samples newer than its newest sample
 * minus 1 h, so a set longer than that has to arrive this way (slices of at most 30 min).
 */
export function remoteWriteBodies(set: SeriesSet): Buffer[] {
  const all: Array<{ host: number; metric: number }> = [];
  for (let metric = 0; metric < set.metrics.length; metric++) {
    for (let host = 0; host < set.hosts; host++) all.push({ host, metric });
  }
  const sliceMs = 1_800_000;
  const pointsPerSlice = Math.max(1, Math.min(set.points, Math.floor(sliceMs / set.stepMs)));
  const seriesPerBody = Math.max(1, Math.floor(SAMPLES_PER_WRITE / pointsPerSlice));
  const bodies: Buffer[] = [];
  for (let from = 0; from < set.points; from += pointsPerSlice) {
    const to = Math.min(set.points, from + pointsPerSlice);
    for (let s = 0; s < all.length; s += seriesPerBody) {
      bodies.push(writeRequest(set, all.slice(s, s + seriesPerBody), from, to));
    }
  }
  return bodies;
}

function lineProtocolRow(measurement: string, host: number, fields: ArrayLike<number>, offset: number, ms: number) {
  const t = hostTags(host);
  let line = `${measurement},hostname=${t.hostname},region=${t.region},datacenter=${t.datacenter} `;
  for (let m = 0; m < METRICS.length; m++) line += `${m === 0 ? '' : ','}${METRICS[m]}=${fields[offset + m]}`;
  return `${line} ${ms}\n`;
}

/** The hour of `cpu` as wide line-protocol rows (one table, 10 fields), millisecond timestamps, in time order. */
export function lineProtocolBodies(set: SeriesSet): Buffer[] {
  const bodies: Buffer[] = [];
  const row = new Float64Array(METRICS.length);
  let text = '';
  let rows = 0;
  for (let k = 0; k < set.points; k++) {
    for (let host = 0; host < set.hosts; host++) {
      for (let m = 0; m < METRICS.length; m++)
        row[m] = set.values[(host * METRICS.length + m) * set.points + k] as number;
      text += lineProtocolRow('cpu', host, row, 0, set.firstMs + k * set.stepMs);
      if (++rows === LP_ROWS_PER_BODY) {
        bodies.push(Buffer.from(text));
        text = '';
        rows = 0;
      }
    }
  }
  if (rows > 0) bodies.push(Buffer.from(text));
  return bodies;
}

/** An analytics chunk as line-protocol bodies for the `cpu` table. */
export function chunkLineProtocol(chunk: RowChunk): Buffer[] {
  const bodies: Buffer[] = [];
  for (let start = 0; start < chunk.rows; start += LP_ROWS_PER_BODY) {
    let text = '';
    for (let r = start; r < Math.min(chunk.rows, start + LP_ROWS_PER_BODY); r++) {
      text += lineProtocolRow(
        'cpu',
        chunk.host[r] as number,
        chunk.values,
        r * METRICS.length,
        chunk.tsMs[r] as number,
      );
    }
    bodies.push(Buffer.from(text));
  }
  return bodies;
}

/**
 * An analytics chunk as tab-separated text: unix seconds, hostname, region, datacenter, the 10
 * values. Seconds because ClickHouse 18.16 has only DateTime; the rows are 10 s apart anyway.
 */
export function chunkTsv(chunk: RowChunk): string {
  let text = '';
  for (let r = 0; r < chunk.rows; r++) {
    const t = hostTags(chunk.host[r] as number);
    text += `${(chunk.tsMs[r] as number) / 1000}\t${t.hostname}\t${t.region}\t${t.datacenter}`;
    for (let m = 0; m < METRICS.length; m++) text += `\t${chunk.values[r * METRICS.length + m]}`;
    text += '\n';
  }
  return text;
}
