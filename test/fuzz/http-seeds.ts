/**
 * Valid requests the HTTP fuzz run mutates: one per registered route (the auth matrix's probes)
 * and, for the ingest routes, richer bodies in every encoding they accept, so that mutations reach
 * past the first check of each decoder.
 */

import { lokiTypes } from '../../src/shared/proto/loki.js';
import { OtlpTypes } from '../../src/shared/proto/otlp.js';
import { metricsRequestBytes, metricsRequestJson } from '../helpers/otlp-metrics.js';
import {
  exponentialHistogram,
  gauge,
  histogram,
  metricsRequest,
  ns,
  sum,
  summary,
} from '../helpers/otlp-metrics-requests.js';
import { snappyBlock, writeRequestBytes } from '../helpers/prom-remote.js';
import { PROBES, type Probe } from '../helpers/route-probes.js';

export interface Seed {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const PB = { 'content-type': 'application/x-protobuf' };
const T0 = 1_700_000_000_000;

const text = (s: string): Uint8Array => Buffer.from(s);

function otlpMetrics(): { bytes: Uint8Array; json: string } {
  const request = metricsRequest({
    attributes: { 'service.name': 'fuzz', 'host.name': 'h1' },
    metrics: [
      gauge('fuzz_gauge', [{ timeMs: T0, value: 1.5, attributes: { k: 'v' } }]),
      sum('fuzz_sum', [{ timeMs: T0, value: 3n, attributes: { k: 'w' } }], { monotonic: true, temporality: 2 }),
      histogram('fuzz_hist', [{ timeMs: T0, sum: 6, bounds: [1, 5], counts: [1, 1, 1] }]),
      summary('fuzz_summary', [{ timeMs: T0, count: 2, sum: 4, quantiles: [[0.5, 2]] }]),
      exponentialHistogram('fuzz_exp', [
        { timeMs: T0, sum: 10, scale: 1, zeroCount: 1, positive: { offset: 0, counts: [1, 2] } },
      ]),
    ],
  });
  return { bytes: metricsRequestBytes(request), json: metricsRequestJson(request) };
}

function otlpTraces(): Uint8Array {
  const type = OtlpTypes.exportTraceRequest;
  const span = {
    traceId: Buffer.alloc(16, 1),
    spanId: Buffer.alloc(8, 2),
    parentSpanId: Buffer.alloc(8, 3),
    name: 'GET /fuzz',
    kind: 2,
    startTimeUnixNano: String(ns(T0)),
    endTimeUnixNano: String(ns(T0 + 5)),
    attributes: [{ key: 'http.method', value: { stringValue: 'GET' } }],
    events: [{ timeUnixNano: String(ns(T0 + 1)), name: 'e', attributes: [] }],
    status: { code: 1, message: '' },
  };
  const request = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] },
        scopeSpans: [{ scope: { name: 's', version: '1' }, spans: [span] }],
      },
    ],
  };
  return type.encode(type.fromObject(request)).finish();
}

function otlpLogs(): Uint8Array {
  const type = OtlpTypes.exportLogsRequest;
  const record = {
    timeUnixNano: String(ns(T0)),
    severityNumber: 9,
    severityText: 'INFO',
    body: { stringValue: 'GET /index.html 200' },
    attributes: [
      { key: 'path', value: { stringValue: '/index.html' } },
      { key: 'n', value: { intValue: '7' } },
    ],
    traceId: Buffer.alloc(16, 4),
    spanId: Buffer.alloc(8, 5),
  };
  const request = {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] },
        scopeLogs: [{ scope: { name: 's' }, logRecords: [record] }],
      },
    ],
  };
  return type.encode(type.fromObject(request)).finish();
}

function lokiProtobuf(): Uint8Array {
  const type = lokiTypes.PushRequest;
  const request = {
    streams: [
      {
        labels: '{app="fuzz", env="test"}',
        entries: [{ timestamp: { seconds: String(T0 / 1000), nanos: 5 }, line: 'a log line' }],
      },
    ],
  };
  return snappyBlock(type.encode(type.fromObject(request)).finish());
}

const LOKI_JSON = JSON.stringify({
  streams: [
    {
      stream: { app: 'fuzz', env: 'test' },
      values: [
        [`${T0}000000`, 'first line'],
        [`${T0 + 1}000000`, 'second', { trace_id: 'abc' }],
      ],
    },
  ],
});

function fromProbe(p: Probe): Seed {
  const body = p.body === undefined ? new Uint8Array() : typeof p.body === 'string' ? text(p.body) : p.body;
  return { method: p.method, path: p.path, headers: { ...(p.headers ?? {}) }, body };
}

/** Every probe but the debug routes (profiling and log levels are an operator's, and slow by design). */
export function httpSeeds(): Seed[] {
  const seeds = PROBES.filter((p) => !p.path.startsWith('/debug/')).map(fromProbe);
  const metrics = otlpMetrics();
  const post = (path: string, headers: Record<string, string>, body: Uint8Array | string): Seed => ({
    method: 'POST',
    path,
    headers,
    body: typeof body === 'string' ? text(body) : body,
  });
  seeds.push(
    post('/v1/otlp/v1/metrics', PB, metrics.bytes),
    post('/v1/otlp/v1/metrics', JSON_TYPE, metrics.json),
    post('/v1/otlp/v1/traces', PB, otlpTraces()),
    post('/v1/otlp/v1/logs', PB, otlpLogs()),
    post('/v1/logpush/api/v1/push', { ...PB, 'content-encoding': 'snappy' }, lokiProtobuf()),
    post('/v1/logpush/api/v1/push', JSON_TYPE, LOKI_JSON),
    post(
      '/v1/metricsapi/write',
      { ...PB, 'content-encoding': 'snappy' },
      snappyBlock(
        writeRequestBytes([
          { labels: { __name__: 'fuzz_rw', job: 'j', instance: 'i:1' }, samples: [{ value: 2.5, timestamp: T0 }] },
          { labels: { __name__: 'fuzz_rw', job: 'k' }, samples: [{ value: Number.NaN, timestamp: T0 }] },
        ]),
      ),
    ),
    post(
      '/v1/lineproto/write?db=public&precision=ms',
      {},
      `fuzz_lp,host=a,dc=x v=1.5,n=2i,ok=t,s="q\\"x" ${T0}\nfuzz_lp,host=b v=2 ${T0}\n`,
    ),
    post(
      '/v1/tsjson/api/put',
      {},
      JSON.stringify([{ metric: 'fuzz_tsdb', timestamp: T0, value: 1, tags: { h: 'a' } }]),
    ),
    post(
      '/v1/ingest?table=fuzz_ingest&pipeline_name=greptime_identity',
      JSON_TYPE,
      JSON.stringify([{ msg: 'a', n: 1, nested: { x: [1, 2] } }, { msg: 'b' }]),
    ),
    post(
      '/v1/sql',
      { 'content-type': 'application/x-www-form-urlencoded' },
      "sql=SELECT host, avg(v) RANGE '5m' FROM fuzz_lp ALIGN '1m' BY (host) ORDER BY host",
    ),
  );
  return seeds;
}
