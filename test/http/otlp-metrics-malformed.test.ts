/**
 * Malformed OTLP metrics requests are refused with a 4xx and store nothing: each body below also
 * carries a valid gauge (`canary`), so a half-applied request would leave a table behind.
 */
import zlib from 'node:zlib';
import t from 'tap';
import {
  decodeStatus,
  metricsRequestBytes,
  metricsRequestJson,
  type OtlpAnswer,
  postMetrics,
} from '../helpers/otlp-metrics.js';
import { gauge, histogram, metricsRequest } from '../helpers/otlp-metrics-requests.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const DB = 'malformed';
const BODY_LIMIT_BYTES = 64 * 1024;

const canary = gauge('canary', [{ timeMs: T0, value: 1 }]);

function validRequest(): Uint8Array {
  return metricsRequestBytes(metricsRequest({ attributes: { 'service.name': 'api' }, metrics: [canary] }));
}

interface Case {
  name: string;
  body: Uint8Array | string;
  contentType: string | null;
  headers?: Record<string, string>;
  status: number;
  /** Text the google.rpc.Status message must contain (our own 400s). */
  message?: RegExp;
}

function jsonCanaryWith(extraMetric: string): string {
  return `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"canary","gauge":{"dataPoints":[{"timeUnixNano":"${T0}000000","asDouble":1}]}},${extraMetric}]}]}]}`;
}

const valid = validRequest();
const cases: Case[] = [
  {
    name: 'truncated protobuf',
    body: valid.subarray(0, valid.length - 3),
    contentType: 'application/x-protobuf',
    status: 400,
    message: /Failed to decode OTLP metrics request \(protobuf\)/,
  },
  {
    name: 'bytes that are not protobuf',
    body: new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    contentType: 'application/x-protobuf',
    status: 400,
    message: /Failed to decode/,
  },
  {
    name: 'protobuf sent as JSON',
    body: valid,
    contentType: 'application/json',
    status: 400,
    message: /JSON/,
  },
  {
    name: 'invalid JSON',
    body: `${jsonCanaryWith('{"name":"x"}').slice(0, -5)}`,
    contentType: 'application/json',
    status: 400,
    message: /invalid JSON/,
  },
  {
    name: 'a JSON array instead of an object',
    body: '[]',
    contentType: 'application/json',
    status: 400,
  },
  {
    name: 'resourceMetrics of the wrong JSON type',
    body: '{"resourceMetrics":{"scopeMetrics":[]}}',
    contentType: 'application/json',
    status: 400,
    message: /resourceMetrics/,
  },
  {
    name: 'a boolean timestamp',
    body: jsonCanaryWith('{"name":"bad","gauge":{"dataPoints":[{"timeUnixNano":true,"asDouble":1}]}}'),
    contentType: 'application/json',
    status: 400,
    message: /timeUnixNano/,
  },
  {
    name: 'a string where a double belongs',
    body: jsonCanaryWith(`{"name":"bad","gauge":{"dataPoints":[{"timeUnixNano":"${T0}000000","asDouble":"lots"}]}}`),
    contentType: 'application/json',
    status: 400,
    message: /asDouble/,
  },
  {
    name: 'a content type OTLP does not define',
    body: valid,
    contentType: 'text/plain',
    status: 415,
  },
  {
    name: 'a content encoding nobody decoded',
    body: valid,
    contentType: 'application/x-protobuf',
    headers: { 'content-encoding': 'snappy' },
    status: 415,
  },
  {
    name: 'a gzip header on a plain body',
    body: valid,
    contentType: 'application/x-protobuf',
    headers: { 'content-encoding': 'gzip' },
    status: 400,
  },
  {
    name: 'a body over the limit',
    body: new Uint8Array(BODY_LIMIT_BYTES + 1024).fill(0x0a),
    contentType: 'application/x-protobuf',
    status: 413,
  },
  {
    name: 'a gzip body that expands over the limit',
    body: zlib.gzipSync(Buffer.alloc(BODY_LIMIT_BYTES * 4)),
    contentType: 'application/x-protobuf',
    headers: { 'content-encoding': 'gzip' },
    status: 413,
  },
  {
    name: 'a metric without a name (protobuf)',
    body: metricsRequestBytes(metricsRequest({ metrics: [canary, gauge('', [{ timeMs: T0, value: 2 }])] })),
    contentType: 'application/x-protobuf',
    status: 400,
    message: /metrics\[1\]: metric name is required/,
  },
  {
    name: 'a metric without a name (JSON)',
    body: metricsRequestJson(metricsRequest({ metrics: [canary, gauge('', [{ timeMs: T0, value: 2 }])] })),
    contentType: 'application/json',
    status: 400,
    message: /metric name is required/,
  },
  {
    name: 'a histogram whose bucket_counts do not match explicit_bounds',
    body: metricsRequestBytes(
      metricsRequest({
        metrics: [canary, histogram('latency', [{ timeMs: T0, bounds: [1, 2], counts: [1, 2], sum: 3 }])],
      }),
    ),
    contentType: 'application/x-protobuf',
    status: 400,
    message: /2 bucket_counts for 2 explicit_bounds \(expected 3\)/,
  },
  {
    name: 'an unknown translation strategy',
    body: valid,
    contentType: 'application/x-protobuf',
    headers: { 'x-greptime-otlp-metric-translation-strategy': 'Lowercase' },
    status: 400,
    message: /translation strategy/,
  },
];

function statusMessage(answer: OtlpAnswer, json: boolean): string {
  if (json) return (JSON.parse(Buffer.from(answer.body).toString()) as { message?: string }).message ?? '';
  return decodeStatus(answer.body).message ?? '';
}

t.test('malformed OTLP metrics requests', async (t) => {
  const server = await startServer({ httpToml: `body_limit = "${BODY_LIMIT_BYTES / 1024}KiB"` });
  t.teardown(() => server.stop());
  const url = server.url;
  t.equal((await sql(url, `CREATE DATABASE ${DB}`)).status, 200);

  for (const c of cases) {
    t.test(`${c.name} → ${c.status}, nothing stored`, async (t) => {
      const answer = await postMetrics(url, c.body, c.contentType, { 'x-greptime-db-name': DB, ...(c.headers ?? {}) });
      t.equal(answer.status, c.status);
      if (c.message) {
        const json = c.contentType === 'application/json';
        t.equal(
          answer.contentType,
          json ? 'application/json' : 'application/x-protobuf',
          'answered in the request encoding',
        );
        t.match(statusMessage(answer, json), c.message);
      }
      const tables = rowsOf((await sql(url, 'SHOW TABLES', DB)).body);
      t.same(tables, [], 'no table was created');
    });
  }

  t.test('the same canary alone is stored, so the checks above can fail', async (t) => {
    const answer = await postMetrics(url, valid, 'application/x-protobuf', { 'x-greptime-db-name': DB });
    t.equal(answer.status, 200);
    t.same(rowsOf((await sql(url, 'SELECT greptime_value, job FROM canary', DB)).body), [[1, 'api']]);
  });
});
