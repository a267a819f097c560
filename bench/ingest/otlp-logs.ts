/**
 * OTLP logs ingest load: protobuf `ExportLogsServiceRequest`s built before the clock starts
 * (what an OpenTelemetry SDK or collector sends: 1,000 records per request over 4 services,
 * realistic attributes and bodies, trace ids on half the records), posted to
 * `POST /v1/otlp/v1/logs` with a few requests in flight over keep-alive connections for a bounded
 * time. Reports log records/s and request bytes/s acknowledged, and checks the stored count
 * through SQL afterwards.
 */

import http from 'node:http';
import { OtlpTypes } from '../../src/shared/proto/otlp.js';
import { postForAnswer } from '../http-client.js';

export interface OtlpLogsLoadOptions {
  url: string;
  seconds: number;
  concurrency: number;
  recordsPerRequest: number;
}

export interface OtlpLogsLoadResult {
  seconds: number;
  requestBytes: number;
  recordsAcked: number;
  recordsPerSecond: number;
  megabytesPerSecond: number;
  requestsFailed: number;
  firstFailure: string;
  storedRecords: number;
}

/** Distinct pre-built requests cycled through; times differ per request so rows stay distinct. */
const REQUEST_VARIANTS = 16;
const START_NANOS = 1_700_000_000_000_000_000n;
const SERVICES = ['checkout', 'billing', 'inventory', 'gateway'];
const LEVELS: Array<[number, string]> = [
  [9, 'INFO'],
  [9, 'INFO'],
  [5, 'DEBUG'],
  [13, 'WARN'],
  [17, 'ERROR'],
];

const str = (value: string) => ({ stringValue: value });

/** One request of `records` records, spread over the services as separate resources. */
export function buildRequest(variant: number, records: number): Buffer {
  const perService = Math.ceil(records / SERVICES.length);
  let n = 0;
  const resourceLogs = SERVICES.map((service, s) => {
    const logRecords = [];
    for (let i = 0; i < perService && n < records; i++, n++) {
      const [severityNumber, severityText] = LEVELS[n % LEVELS.length] as [number, string];
      const time = START_NANOS + BigInt(variant * records + n) * 1_000_017n;
      const traced = n % 2 === 0;
      logRecords.push({
        timeUnixNano: time.toString(),
        observedTimeUnixNano: (time + 1_500_000n).toString(),
        severityNumber,
        severityText,
        body: str(`request ${variant}-${n} handled by ${service} in ${(n * 7) % 500} ms, user u-${(n * 31) % 10_000}`),
        attributes: [
          { key: 'http.method', value: str(n % 3 === 0 ? 'POST' : 'GET') },
          { key: 'http.route', value: str(`/api/v1/items/${n % 50}`) },
          { key: 'http.status_code', value: { intValue: n % 17 === 0 ? 500 : 200 } },
          { key: 'duration_ms', value: { doubleValue: (n * 7) % 500 } },
          { key: 'cache.hit', value: { boolValue: n % 4 === 0 } },
        ],
        flags: traced ? 1 : 0,
        traceId: traced ? Buffer.alloc(16, (variant * 31 + n) & 0xff) : Buffer.alloc(0),
        spanId: traced ? Buffer.alloc(8, (n * 7) & 0xff) : Buffer.alloc(0),
      });
    }
    return {
      resource: {
        attributes: [
          { key: 'service.name', value: str(service) },
          { key: 'service.version', value: str('1.4.2') },
          { key: 'host.name', value: str(`node-${s}`) },
          { key: 'k8s.pod.name', value: str(`${service}-7d9f8-${s}`) },
        ],
      },
      scopeLogs: [{ scope: { name: `${service}.logger`, version: '2.0.0' }, logRecords }],
    };
  });
  const type = OtlpTypes.exportLogsRequest;
  return Buffer.from(type.encode(type.fromObject({ resourceLogs })).finish());
}

export async function runOtlpLogsLoad(opts: OtlpLogsLoadOptions): Promise<OtlpLogsLoadResult> {
  const requests = Array.from({ length: REQUEST_VARIANTS }, (_, v) => buildRequest(v, opts.recordsPerRequest));
  const url = new URL(`${opts.url}/v1/otlp/v1/logs`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });

  let next = 0;
  let recordsAcked = 0;
  let requestBytes = 0;
  let requestsFailed = 0;
  let firstFailure = '';
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const body = requests[next++ % requests.length] as Buffer;
      const res = await postForAnswer(agent, url, body, 'application/x-protobuf');
      if (res.status === 200) {
        recordsAcked += opts.recordsPerRequest;
        requestBytes += body.length;
      } else {
        requestsFailed++;
        if (firstFailure === '') firstFailure = `${res.status} ${res.text.slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();

  const res = await fetch(`${opts.url}/v1/sql?sql=${encodeURIComponent('SELECT count(*) FROM opentelemetry_logs')}`);
  const answer = (await res.json()) as { output?: Array<{ records?: { rows: number[][] } }> };
  return {
    seconds: elapsedS,
    requestBytes,
    recordsAcked,
    recordsPerSecond: recordsAcked / elapsedS,
    megabytesPerSecond: requestBytes / 2 ** 20 / elapsedS,
    requestsFailed,
    firstFailure,
    storedRecords: Number(answer.output?.[0]?.records?.rows[0]?.[0] ?? -1),
  };
}

/** The figures as bench/RESULTS.md shows them. */
export function describeOtlpLogs(r: OtlpLogsLoadResult, opts: Omit<OtlpLogsLoadOptions, 'url'>): string {
  return [
    `${opts.recordsPerRequest} records per request, ${opts.concurrency} in flight, duration=${r.seconds.toFixed(1)}s`,
    `  log records/s acknowledged: ${Math.round(r.recordsPerSecond).toLocaleString('en-US')}`,
    `  request MiB/s (protobuf, uncompressed): ${r.megabytesPerSecond.toFixed(1)}`,
    `  records acknowledged: ${r.recordsAcked}  stored (SELECT count(*)): ${r.storedRecords}  ${r.storedRecords === r.recordsAcked ? 'OK' : 'MISMATCH'}`,
    `  failed requests: ${r.requestsFailed}${r.firstFailure ? ` (first: ${r.firstFailure})` : ''}`,
  ].join('\n');
}
