/**
 * Malformed OTLP trace and log requests: every case gets its 4xx with a message that says what
 * was wrong, and none of them stores anything (checked at the end through SHOW TABLES).
 */
import zlib from 'node:zlib';
import t from 'tap';
import { decodeOtlpJson } from '../../src/shared/ingest/otlp/json.js';
import { decodeOtlp, OtlpTypes } from '../../src/shared/proto/otlp.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const BODY_LIMIT_BYTES = 64 * 1024;

type Signal = 'traces' | 'logs';

const TRACE_ID = Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex');
const SPAN_ID = Buffer.from('b7ad6b7169203331', 'hex');

/** A valid protobuf request of the signal with one record whose trace id is `traceId`. */
function protobufRequest(signal: Signal, traceId: Buffer = TRACE_ID, padding = ''): Uint8Array {
  if (signal === 'traces') {
    const type = OtlpTypes.exportTraceRequest;
    const span = { traceId, spanId: SPAN_ID, name: `span${padding}`, startTimeUnixNano: 1, endTimeUnixNano: 2 };
    return type.encode(type.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] })).finish();
  }
  const type = OtlpTypes.exportLogsRequest;
  const record = { traceId, spanId: SPAN_ID, timeUnixNano: 1, body: { stringValue: `log${padding}` } };
  return type.encode(type.fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [record] }] }] })).finish();
}

/** An OTLP/JSON request of the signal with `recordJson` as its only span / log record. */
function jsonRequest(signal: Signal, recordJson: string): string {
  return signal === 'traces'
    ? `{"resourceSpans":[{"scopeSpans":[{"spans":[${recordJson}]}]}]}`
    : `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${recordJson}]}]}]}`;
}

interface Case {
  name: string;
  contentType?: string;
  contentEncoding?: string;
  body: (signal: Signal) => Uint8Array | string;
  status: number;
  /** How the error body reads: a google.rpc.Status (protobuf or JSON) or the HTTP layer's text. */
  answer: 'protobuf-status' | 'json-status' | 'text';
  message: RegExp;
}

const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

const CASES: Case[] = [
  {
    name: 'truncated protobuf',
    contentType: PROTOBUF,
    body: (signal) => protobufRequest(signal).subarray(0, 20),
    status: 400,
    answer: 'protobuf-status',
    message: /Failed to decode OTLP (traces|logs) request \(protobuf\): index out of range/,
  },
  {
    name: 'garbage protobuf',
    contentType: PROTOBUF,
    body: () => Buffer.from('this is not protobuf at all, just text'),
    status: 400,
    answer: 'protobuf-status',
    message: /Failed to decode OTLP (traces|logs) request \(protobuf\)/,
  },
  {
    name: 'invalid JSON',
    contentType: JSON_TYPE,
    body: (signal) => jsonRequest(signal, '{"name": "x",').slice(0, -5),
    status: 400,
    answer: 'json-status',
    message: /Failed to decode OTLP (traces|logs) request \(JSON\): invalid JSON/,
  },
  {
    name: 'a JSON array instead of an object',
    contentType: JSON_TYPE,
    body: () => '[]',
    status: 400,
    answer: 'json-status',
    message: /expected a JSON object for Export(Trace|Logs)ServiceRequest/,
  },
  {
    name: 'a number where JSON needs a string',
    contentType: JSON_TYPE,
    body: (signal) => jsonRequest(signal, signal === 'traces' ? '{"name": 5}' : '{"severityText": 5}'),
    status: 400,
    answer: 'json-status',
    message:
      /resource(Spans|Logs)\[0\]\.scope(Spans|Logs)\[0\]\.(spans|logRecords)\[0\]\.(name|severityText): expected a string/,
  },
  {
    name: 'a fractional int64 in JSON',
    contentType: JSON_TYPE,
    body: (signal) =>
      jsonRequest(signal, signal === 'traces' ? '{"startTimeUnixNano": "1.5"}' : '{"timeUnixNano": 1.5}'),
    status: 400,
    answer: 'json-status',
    message: /(startTimeUnixNano|timeUnixNano): expected an integer/,
  },
  {
    name: 'an unknown enum name in JSON',
    contentType: JSON_TYPE,
    body: (signal) =>
      jsonRequest(signal, signal === 'traces' ? '{"kind": "SPAN_KIND_MAGIC"}' : '{"severityNumber": "LOUD"}'),
    status: 400,
    answer: 'json-status',
    message: /unknown (SpanKind|SeverityNumber) value/,
  },
  {
    name: 'a trace id that is not hex in JSON',
    contentType: JSON_TYPE,
    body: (signal) => jsonRequest(signal, `{"traceId": "zz${'0'.repeat(30)}", "spanId": "${SPAN_ID.toString('hex')}"}`),
    status: 400,
    answer: 'json-status',
    message: /traceId: expected a hex string/,
  },
  {
    name: 'a JSON body that is not UTF-8',
    contentType: JSON_TYPE,
    body: () => Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    status: 400,
    answer: 'json-status',
    message: /Failed to decode OTLP (traces|logs) request \(JSON\)/,
  },
  {
    name: 'a 3-byte trace id (protobuf)',
    contentType: PROTOBUF,
    body: (signal) => protobufRequest(signal, Buffer.from('010203', 'hex')),
    status: 400,
    answer: 'protobuf-status',
    message: /All 1 (spans|log records) were rejected: .*trace_id must be 16 bytes, got 3/,
  },
  {
    name: 'a 4-byte trace id (JSON)',
    contentType: JSON_TYPE,
    body: (signal) =>
      jsonRequest(
        signal,
        `{"traceId": "01020304", "spanId": "${SPAN_ID.toString('hex')}", "timeUnixNano": "1", "startTimeUnixNano": "1", "endTimeUnixNano": "2"}`,
      ),
    status: 400,
    answer: 'json-status',
    message: /trace_id must be 16 bytes, got 4/,
  },
  {
    name: 'a content type OTLP does not define',
    contentType: 'text/plain',
    body: (signal) => protobufRequest(signal),
    status: 415,
    answer: 'text',
    message: /Unsupported content type 'text\/plain'/,
  },
  {
    name: 'an unknown Content-Encoding',
    contentType: PROTOBUF,
    contentEncoding: 'snappy',
    body: (signal) => protobufRequest(signal),
    status: 415,
    answer: 'text',
    message: /Unsupported Content-Encoding 'snappy'/,
  },
  {
    name: 'a corrupt gzip body',
    contentType: PROTOBUF,
    contentEncoding: 'gzip',
    body: () => Buffer.from('1f8b0800000000000003ffffffff', 'hex'),
    status: 400,
    answer: 'text',
    message: /Failed to decompress the request body \(gzip\)/,
  },
  {
    name: 'a body over the limit',
    contentType: PROTOBUF,
    body: (signal) => protobufRequest(signal, TRACE_ID, 'x'.repeat(BODY_LIMIT_BYTES)),
    status: 413,
    answer: 'text',
    message: /length limit exceeded/,
  },
  {
    name: 'a gzip body that expands over the limit',
    contentType: PROTOBUF,
    contentEncoding: 'gzip',
    body: (signal) => zlib.gzipSync(protobufRequest(signal, TRACE_ID, 'x'.repeat(4 * BODY_LIMIT_BYTES))),
    status: 413,
    answer: 'text',
    message: /length limit exceeded/,
  },
];

function messageOf(answer: Case['answer'], body: Buffer): string {
  if (answer === 'protobuf-status') return decodeOtlp<{ message: string }>(OtlpTypes.rpcStatus, body).message;
  if (answer === 'json-status')
    return decodeOtlpJson<{ message: string }>(OtlpTypes.rpcStatus, body.toString()).message;
  return body.toString();
}

t.test('malformed OTLP trace and log requests', async (t) => {
  const server = await startServer({ httpToml: `body_limit = "${BODY_LIMIT_BYTES / 1024}KiB"` });
  t.teardown(() => server.stop());
  const url = server.url;

  for (const signal of ['traces', 'logs'] as const) {
    for (const c of CASES) {
      t.test(`${signal}: ${c.name} → ${c.status}`, async (t) => {
        const headers: Record<string, string> = {};
        if (c.contentType) headers['content-type'] = c.contentType;
        if (c.contentEncoding) headers['content-encoding'] = c.contentEncoding;
        const res = await fetch(`${url}/v1/otlp/v1/${signal}`, { method: 'POST', headers, body: c.body(signal) });
        const body = Buffer.from(await res.arrayBuffer());
        t.equal(res.status, c.status, body.toString());
        if (c.answer === 'protobuf-status') t.equal(res.headers.get('content-type'), PROTOBUF);
        if (c.answer === 'json-status') t.equal(res.headers.get('content-type'), JSON_TYPE);
        t.match(messageOf(c.answer, body), c.message);
      });
    }
  }

  t.test('a valid request still works, so the cases above failed for their own reason', async (t) => {
    for (const signal of ['traces', 'logs'] as const) {
      const res = await fetch(`${url}/v1/otlp/v1/${signal}`, {
        method: 'POST',
        headers: {
          'content-type': PROTOBUF,
          [`x-greptime-${signal === 'traces' ? 'trace' : 'log'}-table-name`]: `valid_${signal}`,
        },
        body: protobufRequest(signal),
      });
      t.equal(res.status, 200, signal);
    }
  });

  t.test('none of the malformed requests stored anything', async (t) => {
    const res = await sql(url, 'SHOW TABLES');
    const tables = rowsOf(res.body).map((r) => String(r[0]));
    t.same(
      tables.filter((name) => name.startsWith('opentelemetry_') || name.startsWith('valid_')),
      ['valid_logs', 'valid_traces', 'valid_traces_operations', 'valid_traces_services'],
    );
  });
});

t.test('a request that outlives the timeout gets 408 and stores nothing', async (t) => {
  const server = await startServer({ httpToml: 'timeout = "1ms"\nbody_limit = "64MiB"' });
  t.teardown(() => server.stop());
  // Big enough to arrive in many chunks, so the 1 ms timer fires while the body is read.
  const records = Array.from(
    { length: 40_000 },
    (_, i) => `{"timeUnixNano":"${i + 1}","body":{"stringValue":"${'x'.repeat(100)}"}}`,
  );
  const body = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${records.join(',')}]}]}]}`;
  for (const signal of ['logs', 'traces'] as const) {
    const res = await fetch(`${server.url}/v1/otlp/v1/${signal}`, {
      method: 'POST',
      headers: { 'content-type': JSON_TYPE },
      body:
        signal === 'logs'
          ? body
          : body.replaceAll('resourceLogs', 'resourceSpans').replaceAll('scopeLogs', 'scopeSpans'),
    });
    t.equal(res.status, 408, signal);
  }
  // Give a handler that might still be running a moment to (wrongly) write.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const tables = rowsOf((await sql(server.url, 'SHOW TABLES')).body).map((r) => String(r[0]));
  t.notOk(
    tables.some((name) => name.startsWith('opentelemetry_')),
    `no OTLP table: ${tables.join(', ')}`,
  );
});

t.test('logs and traces need credentials when a user provider is configured', async (t) => {
  const server = await startServer({ topLevelToml: 'user_provider = "static_user_provider:cmd:writer=pw"' });
  t.teardown(() => server.stop());
  for (const signal of ['logs', 'traces'] as const) {
    const anonymous = await fetch(`${server.url}/v1/otlp/v1/${signal}`, {
      method: 'POST',
      headers: { 'content-type': PROTOBUF },
      body: protobufRequest(signal),
    });
    t.equal(anonymous.status, 401, `${signal} without credentials`);
    const wrong = await fetch(`${server.url}/v1/otlp/v1/${signal}`, {
      method: 'POST',
      headers: { 'content-type': PROTOBUF, authorization: `Basic ${Buffer.from('writer:nope').toString('base64')}` },
      body: protobufRequest(signal),
    });
    t.equal(wrong.status, 401, `${signal} with a wrong password`);
    const authorized = await fetch(`${server.url}/v1/otlp/v1/${signal}`, {
      method: 'POST',
      headers: { 'content-type': PROTOBUF, authorization: `Basic ${Buffer.from('writer:pw').toString('base64')}` },
      body: protobufRequest(signal),
    });
    t.equal(authorized.status, 200, `${signal} with credentials`);
  }
});
