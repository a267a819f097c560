/**
 * OTLP/HTTP traces (`POST /v1/otlp/v1/traces`) end to end: spans made by the real OpenTelemetry
 * JS SDK, sent by its protobuf and JSON exporters, read back through SQL; plus hand-built requests
 * for the rules an SDK never exercises (missing service.name, partial success, type coercion,
 * pipeline and table headers, auth).
 */

import { context, type Link, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import t from 'tap';
import { decodeOtlpJson, encodeOtlpJson } from '../../src/shared/ingest/otlp/json.js';
import { decodeOtlp, OtlpTypes } from '../../src/shared/proto/otlp.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0_SECONDS = 1_700_000_000;

/** Spans of one small request tree made with the SDK, with exact nanosecond times. */
async function makeSdkSpans(): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'checkout', 'deployment.environment': 'test', 'host.cpus': 8 }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('shop-lib', '1.2.3');
  const root = tracer.startSpan('GET /cart', {
    kind: SpanKind.SERVER,
    startTime: [T0_SECONDS, 123_456_789],
    attributes: { 'http.method': 'GET', 'http.status_code': 200, ratio: 0.25, cached: false, tags: ['a', 'b'] },
  });
  root.addEvent('cache-miss', { key: 'cart:1', attempt: 2 }, [T0_SECONDS, 150_000_001]);
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream failed' });
  const parentContext = trace.setSpan(context.active(), root);
  const link: Link = {
    context: { traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: 'bbbbbbbbbbbbbbbb', traceFlags: 1 },
    attributes: { reason: 'retry' },
  };
  const child = tracer.startSpan(
    'SELECT cart',
    { kind: SpanKind.CLIENT, startTime: [T0_SECONDS, 200_000_000], links: [link], attributes: { 'db.rows': 3 } },
    parentContext,
  );
  child.end([T0_SECONDS, 200_000_999]);
  root.end([T0_SECONDS + 1, 7]);
  await provider.forceFlush();
  // Read before shutdown: shutting the in-memory exporter down forgets its spans.
  const finished = memory.getFinishedSpans();
  await provider.shutdown();
  return finished;
}

function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, (result) => resolve(result)));
}

/** Rows of a query; timestamps are selected as strings so nanoseconds survive JSON. */
async function query(url: string, statement: string, db?: string): Promise<unknown[][]> {
  const res = await sql(url, statement, db);
  if (res.status !== 200) throw new Error(`${statement}: ${res.text}`);
  return rowsOf(res.body);
}

const SPAN_COLUMNS =
  'CAST(CAST("timestamp" AS BIGINT) AS STRING), CAST(CAST(timestamp_end AS BIGINT) AS STRING), CAST(duration_nano AS STRING), ' +
  'trace_id, span_id, parent_span_id, span_kind, span_name, span_status_code, span_status_message, ' +
  'scope_name, scope_version, service_name';

async function postTraces(
  url: string,
  request: Record<string, unknown>,
  encoding: 'protobuf' | 'json',
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string | null; body: Buffer }> {
  const type = OtlpTypes.exportTraceRequest;
  const body =
    encoding === 'json'
      ? encodeOtlpJson(type, request)
      : type.encode(type.fromObject(JSON.parse(encodeOtlpJson(type, request), hexIdsToBase64))).finish();
  const res = await fetch(`${url}/v1/otlp/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf', ...headers },
    body,
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

/** protobufjs' fromObject reads bytes fields as base64; the OTLP/JSON text has hex ids. */
function hexIdsToBase64(key: string, value: unknown): unknown {
  if ((key === 'traceId' || key === 'spanId' || key === 'parentSpanId') && typeof value === 'string') {
    return Buffer.from(value, 'hex').toString('base64');
  }
  return value;
}

const stringValue = (s: string) => ({ stringValue: s });
const TRACE_ID = Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex');

function span(name: string, spanIdHex: string, attributes: Array<{ key: string; value: unknown }> = []) {
  return {
    traceId: TRACE_ID,
    spanId: Buffer.from(spanIdHex, 'hex'),
    name,
    kind: 1,
    startTimeUnixNano: 1_700_000_000_000_000_001n,
    endTimeUnixNano: 1_700_000_000_000_000_501n,
    attributes,
  };
}

function request(resourceAttributes: Array<{ key: string; value: unknown }>, spans: unknown[]) {
  return { resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ spans }] }] };
}

t.test('OTLP traces', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;
  const spans = await makeSdkSpans();
  const root = spans.find((s) => s.name === 'GET /cart') as ReadableSpan;
  const child = spans.find((s) => s.name === 'SELECT cart') as ReadableSpan;
  const traceId = root.spanContext().traceId;

  t.test('the protobuf exporter (gzip) stores one row per span with GreptimeDB v1 columns', async (t) => {
    const exporter = new ProtoTraceExporter({
      url: `${url}/v1/otlp/v1/traces`,
      compression: 'gzip' as never,
      headers: { 'x-greptime-trace-table-name': 'traces_proto' },
    });
    const result = await exportWith(exporter, spans);
    t.equal(result.code, ExportResultCode.SUCCESS, result.error?.message ?? 'exported');
    await exporter.shutdown();

    const rows = await query(url, `SELECT ${SPAN_COLUMNS} FROM traces_proto ORDER BY "timestamp"`);
    t.same(rows, [
      [
        '1700000000123456789',
        '1700000001000000007',
        '876543218',
        traceId,
        root.spanContext().spanId,
        null,
        'SPAN_KIND_SERVER',
        'GET /cart',
        'STATUS_CODE_ERROR',
        'upstream failed',
        'shop-lib',
        '1.2.3',
        'checkout',
      ],
      [
        '1700000000200000000',
        '1700000000200000999',
        '999',
        traceId,
        child.spanContext().spanId,
        root.spanContext().spanId,
        'SPAN_KIND_CLIENT',
        'SELECT cart',
        'STATUS_CODE_UNSET',
        '',
        'shop-lib',
        '1.2.3',
        'checkout',
      ],
    ]);

    const attributes = await query(
      url,
      'SELECT "span_attributes.http.method", "span_attributes.http.status_code", "span_attributes.ratio", ' +
        '"span_attributes.cached", "span_attributes.tags", "resource_attributes.deployment.environment", ' +
        '"resource_attributes.host.cpus", span_events, span_links FROM traces_proto ORDER BY "timestamp"',
    );
    t.same(attributes[0], [
      'GET',
      200,
      0.25,
      false,
      ['a', 'b'],
      'test',
      8,
      [{ attributes: { attempt: 2, key: 'cart:1' }, name: 'cache-miss', time: '2023-11-14T22:13:20.150000001Z' }],
      [],
    ]);
    t.same(attributes[1], [
      null,
      null,
      null,
      null,
      null,
      'test',
      8,
      [],
      [
        {
          attributes: { reason: 'retry' },
          span_id: 'bbbbbbbbbbbbbbbb',
          trace_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
          trace_state: '',
        },
      ],
    ]);

    const types = await query(url, 'DESC TABLE traces_proto');
    const typeOf = new Map(types.map((r) => [r[0], [r[1], r[5]]]));
    t.same(typeOf.get('timestamp'), ['TimestampNanosecond', 'TIMESTAMP']);
    t.same(typeOf.get('duration_nano'), ['UInt64', 'FIELD']);
    t.same(typeOf.get('service_name'), ['String', 'TAG']);
    t.same(typeOf.get('span_attributes.http.status_code'), ['Int64', 'FIELD']);
    t.same(typeOf.get('span_attributes.ratio'), ['Float64', 'FIELD']);
    t.same(typeOf.get('span_attributes.cached'), ['Boolean', 'FIELD']);
    t.same(typeOf.get('span_attributes.tags'), ['Json', 'FIELD']);
    t.same(typeOf.get('span_events'), ['Json', 'FIELD']);
    t.notOk(typeOf.has('resource_attributes.service.name'), 'service.name is only in service_name');

    t.same(await query(url, 'SELECT service_name FROM traces_proto_services'), [['checkout']]);
    t.same(
      await query(url, 'SELECT service_name, span_name, span_kind FROM traces_proto_operations ORDER BY span_name'),
      [
        ['checkout', 'GET /cart', 'SPAN_KIND_SERVER'],
        ['checkout', 'SELECT cart', 'SPAN_KIND_CLIENT'],
      ],
    );
  });

  t.test('the JSON exporter stores exactly what the protobuf exporter stored', async (t) => {
    const exporter = new JsonTraceExporter({
      url: `${url}/v1/otlp/v1/traces`,
      headers: { 'x-greptime-trace-table-name': 'traces_json' },
    });
    const result = await exportWith(exporter, spans);
    t.equal(result.code, ExportResultCode.SUCCESS, result.error?.message ?? 'exported');
    await exporter.shutdown();
    const columns = `${SPAN_COLUMNS}, "span_attributes.http.status_code", "span_attributes.tags", span_events, span_links`;
    const json = await query(url, `SELECT ${columns} FROM traces_json ORDER BY "timestamp"`);
    const proto = await query(url, `SELECT ${columns} FROM traces_proto ORDER BY "timestamp"`);
    t.equal(json.length, 2);
    t.same(json, proto);
  });

  t.test('the default table is opentelemetry_traces, with or without the v1 pipeline header', async (t) => {
    const exporter = new ProtoTraceExporter({ url: `${url}/v1/otlp/v1/traces` });
    t.equal((await exportWith(exporter, [root])).code, ExportResultCode.SUCCESS);
    const piped = new ProtoTraceExporter({
      url: `${url}/v1/otlp/v1/traces`,
      headers: { 'x-greptime-pipeline-name': 'greptime_trace_v1' },
    });
    t.equal((await exportWith(piped, [child])).code, ExportResultCode.SUCCESS);
    await exporter.shutdown();
    await piped.shutdown();
    t.same(await query(url, 'SELECT span_name FROM opentelemetry_traces ORDER BY span_name'), [
      ['GET /cart'],
      ['SELECT cart'],
    ]);
  });

  t.test('an unknown pipeline is refused with 400 and stores nothing', async (t) => {
    const res = await postTraces(url, request([], [span('p', '0000000000000001')]), 'json', {
      'x-greptime-pipeline-name': 'my_pipeline',
      'x-greptime-trace-table-name': 'traces_piped',
    });
    t.equal(res.status, 400);
    const status = decodeOtlpJson<{ code: number; message: string }>(OtlpTypes.rpcStatus, res.body.toString());
    t.match(status.message, /Pipeline 'my_pipeline' not found/);
    t.equal(status.code, 3);
    const tables = await query(url, 'SHOW TABLES');
    t.notOk(tables.some((r) => String(r[0]).startsWith('traces_piped')));
  });

  t.test('a resource without service.name gets unknown_service, or unknown_service:<executable>', async (t) => {
    const res = await postTraces(
      url,
      {
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'host.name', value: stringValue('h1') }] },
            scopeSpans: [{ spans: [span('a', '0000000000000001')] }],
          },
          {
            resource: { attributes: [{ key: 'process.executable.name', value: stringValue('node') }] },
            scopeSpans: [{ spans: [span('b', '0000000000000002')] }],
          },
          { scopeSpans: [{ spans: [span('c', '0000000000000003')] }] },
        ],
      },
      'protobuf',
      { 'x-greptime-trace-table-name': 'traces_unknown' },
    );
    t.equal(res.status, 200);
    t.equal(res.contentType, 'application/x-protobuf');
    t.equal(res.body.length, 0, 'a full success is an empty ExportTraceServiceResponse');
    t.same(await query(url, 'SELECT span_name, service_name FROM traces_unknown ORDER BY span_name'), [
      ['a', 'unknown_service'],
      ['b', 'unknown_service:node'],
      ['c', 'unknown_service'],
    ]);
  });

  t.test('bad spans are rejected one by one and reported in partial_success', async (t) => {
    const good = span('good', '00000000000000aa');
    const shortTraceId = { ...span('short-trace', '00000000000000bb'), traceId: Buffer.from('0102', 'hex') };
    const noSpanId = { ...span('no-span-id', '00000000000000cc'), spanId: Buffer.alloc(0) };
    const res = await postTraces(url, request([], [good, shortTraceId, noSpanId]), 'protobuf', {
      'x-greptime-trace-table-name': 'traces_partial',
    });
    t.equal(res.status, 200);
    const answer = decodeOtlp<{ partialSuccess: { rejectedSpans: bigint; errorMessage: string } | null }>(
      OtlpTypes.exportTraceResponse,
      res.body,
    );
    t.equal(answer.partialSuccess?.rejectedSpans, 2n);
    t.match(answer.partialSuccess?.errorMessage, /trace_id must be 16 bytes, got 2/);
    t.same(await query(url, 'SELECT span_name, trace_id FROM traces_partial'), [['good', TRACE_ID.toString('hex')]]);

    const json = await postTraces(url, request([], [good, shortTraceId]), 'json', {
      'x-greptime-trace-table-name': 'traces_partial',
    });
    t.equal(json.status, 200);
    t.equal(json.contentType, 'application/json');
    t.same(JSON.parse(json.body.toString()).partialSuccess.rejectedSpans, '1');
  });

  t.test('attribute values follow the column type, coerced when GreptimeDB would', async (t) => {
    const headers = { 'x-greptime-trace-table-name': 'traces_coerce' };
    const first = await postTraces(
      url,
      request([], [span('first', '0000000000000001', [{ key: 'n', value: { intValue: 5n } }])]),
      'protobuf',
      headers,
    );
    t.equal(first.status, 200);
    // "42" parses as an integer; "many" does not, so only that span is refused. A double in an
    // integer column cannot be coerced either. In a new column, the first use fixes the type.
    const second = await postTraces(
      url,
      request(
        [],
        [
          span('parsed', '0000000000000002', [
            { key: 'n', value: stringValue('42') },
            { key: 'm', value: { intValue: 7n } },
          ]),
          span('words', '0000000000000003', [{ key: 'n', value: stringValue('many') }]),
          span('double', '0000000000000004', [{ key: 'n', value: { doubleValue: 1.5 } }]),
          span('widened', '0000000000000005', [{ key: 'm', value: { doubleValue: 2.5 } }]),
        ],
      ),
      'json',
      headers,
    );
    t.equal(second.status, 200);
    const answer = JSON.parse(second.body.toString());
    t.equal(answer.partialSuccess.rejectedSpans, '3');
    t.same(
      await query(
        url,
        'SELECT span_name, "span_attributes.n", "span_attributes.m" FROM traces_coerce ORDER BY span_name',
      ),
      [
        ['first', 5, null],
        ['parsed', 42, 7],
      ],
    );
  });

  t.test('x-greptime-db-name selects the database', async (t) => {
    t.equal((await sql(url, 'CREATE DATABASE otel')).status, 200);
    const res = await postTraces(
      url,
      request([{ key: 'service.name', value: stringValue('db-svc') }], [span('in-db', '0000000000000009')]),
      'json',
      {
        'x-greptime-db-name': 'otel',
      },
    );
    t.equal(res.status, 200);
    t.same(await query(url, 'SELECT service_name, span_name FROM opentelemetry_traces', 'otel'), [['db-svc', 'in-db']]);
  });
});

t.test('OTLP traces with authentication', async (t) => {
  const server = await startServer({ topLevelToml: 'user_provider = "static_user_provider:cmd:writer=pw"' });
  t.teardown(() => server.stop());
  const url = server.url;
  const spans = await makeSdkSpans();

  const anonymous = new ProtoTraceExporter({ url: `${url}/v1/otlp/v1/traces` });
  const refused = await exportWith(anonymous, spans);
  t.equal(refused.code, ExportResultCode.FAILED);
  await anonymous.shutdown();
  const raw = await fetch(`${url}/v1/otlp/v1/traces`, { method: 'POST', body: new Uint8Array(0) });
  t.equal(raw.status, 401);

  const authorization = `Basic ${Buffer.from('writer:pw').toString('base64')}`;
  const exporter = new ProtoTraceExporter({ url: `${url}/v1/otlp/v1/traces`, headers: { authorization } });
  const result = await exportWith(exporter, spans);
  t.equal(result.code, ExportResultCode.SUCCESS, result.error?.message ?? 'exported');
  await exporter.shutdown();
  const res = await sql(url, 'SELECT count(*) FROM opentelemetry_traces', undefined, { authorization });
  t.same(rowsOf(res.body), [[2]]);
});
