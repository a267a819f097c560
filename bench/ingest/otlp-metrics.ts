/**
 * OTLP metrics ingest load: protobuf `ExportMetricsServiceRequest`s built before the clock starts
 * (the shape of a collector batch: 4 services as resources, each with gauges, monotonic counters
 * and explicit-bucket histograms over 25 attribute sets), posted to `POST /v1/otlp/v1/metrics`
 * with a few requests in flight over keep-alive connections for a bounded time. Reports samples/s
 * (rows written: one per gauge/counter point, buckets + _sum + _count per histogram point) and
 * data points/s acknowledged, then checks the stored row count through SQL.
 *
 * Every point of a request carries the same timestamp; before each send the timestamp bytes are
 * rewritten in place (their offsets are found once per pre-built request), so every request writes
 * new rows instead of overwriting the previous ones.
 */

import http from 'node:http';
import { OtlpTypes } from '../../src/shared/proto/otlp.js';
import { postForAnswer } from '../http-client.js';

export interface OtlpMetricsLoadOptions {
  url: string;
  seconds: number;
  concurrency: number;
}

export interface OtlpMetricsLoadResult {
  seconds: number;
  requests: number;
  pointsPerRequest: number;
  samplesPerRequest: number;
  samplesAcked: number;
  samplesPerSecond: number;
  pointsPerSecond: number;
  megabytesPerSecond: number;
  requestsFailed: number;
  firstFailure: string;
  storedSamples: number;
}

/** Distinct pre-built requests cycled through: more than `concurrency`, so none is in flight twice. */
const REQUEST_VARIANTS = 16;
const SERVICES = ['checkout', 'billing', 'inventory', 'gateway'];
const ATTRIBUTE_SETS = 25;
const GAUGES = 10;
const COUNTERS = 5;
const HISTOGRAMS = 2;
const BOUNDS = [5, 10, 25, 50, 75, 100, 250, 500, 750, 1000];
const START_MS = 1_700_000_000_000;
const NANOS_PER_MS = 1_000_000n;

const str = (value: string) => ({ stringValue: value });

interface PrebuiltRequest {
  body: Buffer;
  /** Byte offsets of every `time_unix_nano` value (fixed64, little endian). */
  timeOffsets: number[];
}

/** A time no other field of the request can spell: found by its 8 bytes after encoding. */
function markerNanos(variant: number): bigint {
  return 1_234_567_890_123_456_789n + BigInt(variant) * 1_000_003n;
}

function buildRequest(variant: number): { request: PrebuiltRequest; points: number; samples: number } {
  const time = markerNanos(variant).toString();
  const attributeSets = Array.from({ length: ATTRIBUTE_SETS }, (_, a) => [
    { key: 'host', value: str(`host-${a % 5}`) },
    { key: 'http.route', value: str(`/api/v1/items/${a}`) },
    { key: 'http.status_code', value: { intValue: a % 7 === 0 ? 500 : 200 } },
  ]);
  let points = 0;
  let samples = 0;
  const resourceMetrics = SERVICES.map((service, s) => {
    const metrics: Array<Record<string, unknown>> = [];
    for (let g = 0; g < GAUGES; g++) {
      metrics.push({
        name: `system.gauge.${g}`,
        unit: 'By',
        gauge: {
          dataPoints: attributeSets.map((attributes, a) => ({
            attributes,
            timeUnixNano: time,
            asDouble: (variant * 31 + a * 7 + g) % 1000,
          })),
        },
      });
      points += ATTRIBUTE_SETS;
      samples += ATTRIBUTE_SETS;
    }
    for (let c = 0; c < COUNTERS; c++) {
      metrics.push({
        name: `http.server.requests.${c}`,
        unit: '{request}',
        sum: {
          aggregationTemporality: 2,
          isMonotonic: true,
          dataPoints: attributeSets.map((attributes, a) => ({
            attributes,
            startTimeUnixNano: '1',
            timeUnixNano: time,
            asInt: String(variant * 1000 + a),
          })),
        },
      });
      points += ATTRIBUTE_SETS;
      samples += ATTRIBUTE_SETS;
    }
    for (let h = 0; h < HISTOGRAMS; h++) {
      metrics.push({
        name: `http.server.duration.${h}`,
        unit: 'ms',
        histogram: {
          aggregationTemporality: 2,
          dataPoints: attributeSets.map((attributes, a) => {
            const bucketCounts = [...BOUNDS, 0].map((_, k) => String((a + k + variant) % 9));
            const count = bucketCounts.reduce((n, c) => n + Number(c), 0);
            return {
              attributes,
              startTimeUnixNano: '1',
              timeUnixNano: time,
              count: String(count),
              sum: count * 42.5,
              bucketCounts,
              explicitBounds: BOUNDS,
            };
          }),
        },
      });
      points += ATTRIBUTE_SETS;
      samples += ATTRIBUTE_SETS * (BOUNDS.length + 1 + 2);
    }
    return {
      resource: {
        attributes: [
          { key: 'service.name', value: str(service) },
          { key: 'service.instance.id', value: str(`${service}-${s}`) },
          { key: 'host.name', value: str(`node-${s}`) },
        ],
      },
      scopeMetrics: [{ scope: { name: `${service}.meter`, version: '1.0.0' }, metrics }],
    };
  });
  // target_info: one row per resource per request.
  samples += SERVICES.length;
  const type = OtlpTypes.exportMetricsRequest;
  const body = Buffer.from(type.encode(type.fromObject({ resourceMetrics })).finish());
  const marker = Buffer.alloc(8);
  marker.writeBigUInt64LE(markerNanos(variant));
  const timeOffsets: number[] = [];
  for (let at = body.indexOf(marker); at >= 0; at = body.indexOf(marker, at + 8)) timeOffsets.push(at);
  if (timeOffsets.length !== points) throw new Error(`found ${timeOffsets.length} timestamps, expected ${points}`);
  return { request: { body, timeOffsets }, points, samples };
}

async function sqlRows(url: string, statement: string): Promise<unknown[][]> {
  const res = await fetch(`${url}/v1/sql?sql=${encodeURIComponent(statement)}`);
  const answer = (await res.json()) as { output?: Array<{ records?: { rows: unknown[][] } }> };
  return answer.output?.[0]?.records?.rows ?? [];
}

export async function runOtlpMetricsLoad(opts: OtlpMetricsLoadOptions): Promise<OtlpMetricsLoadResult> {
  const built = Array.from({ length: REQUEST_VARIANTS }, (_, v) => buildRequest(v));
  const pointsPerRequest = built[0]?.points ?? 0;
  const samplesPerRequest = built[0]?.samples ?? 0;
  const url = new URL(`${opts.url}/v1/otlp/v1/metrics`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });

  let sent = 0;
  let requestsAcked = 0;
  let requestBytes = 0;
  let requestsFailed = 0;
  let firstFailure = '';
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const n = sent++;
      const { request } = built[n % REQUEST_VARIANTS] as (typeof built)[number];
      // One second apart per request: every request's rows are new.
      const timeNanos = BigInt(START_MS + n * 1000) * NANOS_PER_MS;
      for (const at of request.timeOffsets) request.body.writeBigUInt64LE(timeNanos, at);
      const res = await postForAnswer(agent, url, request.body, 'application/x-protobuf');
      if (res.status === 200) {
        requestsAcked++;
        requestBytes += request.body.length;
      } else {
        requestsFailed++;
        if (firstFailure === '') firstFailure = `${res.status} ${res.text.slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();

  let storedSamples = 0;
  for (const [table] of await sqlRows(opts.url, 'SHOW TABLES')) {
    // The built-in `numbers` table is listed too.
    if (table === 'numbers') continue;
    const [[count] = [0]] = (await sqlRows(opts.url, `SELECT count(*) FROM "${table}"`)) as number[][];
    storedSamples += Number(count);
  }
  const samplesAcked = requestsAcked * samplesPerRequest;
  return {
    seconds: elapsedS,
    requests: requestsAcked,
    pointsPerRequest,
    samplesPerRequest,
    samplesAcked,
    samplesPerSecond: samplesAcked / elapsedS,
    pointsPerSecond: (requestsAcked * pointsPerRequest) / elapsedS,
    megabytesPerSecond: requestBytes / 2 ** 20 / elapsedS,
    requestsFailed,
    firstFailure,
    storedSamples,
  };
}

/** The figures as bench/RESULTS.md shows them. */
export function describeOtlpMetrics(r: OtlpMetricsLoadResult, opts: Omit<OtlpMetricsLoadOptions, 'url'>): string {
  return [
    `${r.pointsPerRequest} data points (${r.samplesPerRequest} samples) per request, ${opts.concurrency} in flight, duration=${r.seconds.toFixed(1)}s`,
    `  samples/s acknowledged:     ${Math.round(r.samplesPerSecond).toLocaleString('en-US')}`,
    `  data points/s acknowledged: ${Math.round(r.pointsPerSecond).toLocaleString('en-US')}`,
    `  request MiB/s (protobuf, uncompressed): ${r.megabytesPerSecond.toFixed(1)}`,
    `  samples acknowledged: ${r.samplesAcked}  stored (sum of count(*)): ${r.storedSamples}  ${r.storedSamples === r.samplesAcked ? 'OK' : 'MISMATCH'}`,
    `  failed requests: ${r.requestsFailed}${r.firstFailure ? ` (first: ${r.firstFailure})` : ''}`,
  ].join('\n');
}
