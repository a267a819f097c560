/**
 * OTLP/HTTP logs (`POST /v1/otlp/v1/logs`) end to end: records made by the real OpenTelemetry JS
 * SDK, sent by its protobuf and JSON exporters, read back through SQL; plus hand-built requests
 * for what an SDK never sends (missing times, bad ids, pipelines).
 */

import { context, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  type LogRecordExporter,
  type ReadableLogRecord,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs';
import t from 'tap';
import { encodeOtlpJson } from '../../src/shared/ingest/otlp/json.js';
import { decodeOtlp, OtlpTypes } from '../../src/shared/proto/otlp.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0_SECONDS = 1_700_000_000;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

/** Three records made with the SDK: a plain one, one inside a span, one with a structured body. */
async function makeSdkRecords(): Promise<ReadableLogRecord[]> {
  const memory = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'billing', 'k8s.pod.name': 'billing-0' }),
    processors: [new SimpleLogRecordProcessor({ exporter: memory })],
  });
  const logger = provider.getLogger('billing-logger', '0.9.0', {
    schemaUrl: 'https://opentelemetry.io/schemas/1.21.0',
  });
  logger.emit({
    timestamp: [T0_SECONDS, 123_456_789],
    observedTimestamp: [T0_SECONDS, 223_456_789],
    severityNumber: SeverityNumber.INFO,
    severityText: 'INFO',
    body: 'payment accepted',
    attributes: { 'order.id': 'o-17', amount: 12.5, items: 3, retried: false },
  });
  const spanContext = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 };
  logger.emit({
    timestamp: [T0_SECONDS, 500_000_001],
    severityNumber: SeverityNumber.ERROR2,
    severityText: 'ERROR',
    body: 'card declined',
    context: trace.setSpanContext(context.active(), spanContext),
  });
  logger.emit({
    timestamp: [T0_SECONDS + 1, 0],
    severityNumber: SeverityNumber.DEBUG,
    body: { event: 'retry', attempt: 2, tags: ['x', 'y'] },
  });
  await provider.forceFlush();
  // Read before shutdown: shutting the in-memory exporter down forgets its records.
  const records = memory.getFinishedLogRecords();
  await provider.shutdown();
  return records;
}

function exportWith(
  exporter: LogRecordExporter,
  records: ReadableLogRecord[],
): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(records, (result) => resolve(result)));
}

async function query(url: string, statement: string, db?: string): Promise<unknown[][]> {
  const res = await sql(url, statement, db);
  if (res.status !== 200) throw new Error(`${statement}: ${res.text}`);
  return rowsOf(res.body);
}

const LOG_COLUMNS =
  'CAST(CAST("timestamp" AS BIGINT) AS STRING), trace_id, span_id, severity_text, severity_number, body, ' +
  'log_attributes, trace_flags, scope_name, scope_version, scope_attributes, scope_schema_url, resource_attributes, resource_schema_url';

async function postLogs(
  url: string,
  request: Record<string, unknown>,
  encoding: 'protobuf' | 'json',
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string | null; body: Buffer }> {
  const type = OtlpTypes.exportLogsRequest;
  const text = encodeOtlpJson(type, request);
  const body =
    encoding === 'json'
      ? text
      : type
          .encode(
            type.fromObject(
              JSON.parse(text, (key, value) =>
                (key === 'traceId' || key === 'spanId') && typeof value === 'string'
                  ? Buffer.from(value, 'hex').toString('base64')
                  : value,
              ),
            ),
          )
          .finish();
  const res = await fetch(`${url}/v1/otlp/v1/logs`, {
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

function record(fields: Record<string, unknown>) {
  return { traceId: Buffer.alloc(0), spanId: Buffer.alloc(0), ...fields };
}

function logsRequest(records: unknown[]) {
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw' } }] },
        scopeLogs: [{ logRecords: records }],
      },
    ],
  };
}

t.test('OTLP logs', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;
  const records = await makeSdkRecords();
  const resource = { 'k8s.pod.name': 'billing-0', 'service.name': 'billing' };

  t.test('the protobuf exporter (gzip) stores one row per record in the default table', async (t) => {
    const exporter = new ProtoLogExporter({ url: `${url}/v1/otlp/v1/logs`, compression: 'gzip' as never });
    const result = await exportWith(exporter, records);
    t.equal(result.code, ExportResultCode.SUCCESS, result.error?.message ?? 'exported');
    await exporter.shutdown();

    const rows = await query(url, `SELECT ${LOG_COLUMNS} FROM opentelemetry_logs ORDER BY "timestamp"`);
    const scope = ['billing-logger', '0.9.0', {}, 'https://opentelemetry.io/schemas/1.21.0'];
    t.same(rows, [
      [
        '1700000000123456789',
        '',
        '',
        'INFO',
        9,
        'payment accepted',
        { amount: 12.5, items: 3, 'order.id': 'o-17', retried: false },
        0,
        ...scope,
        resource,
        '',
      ],
      ['1700000000500000001', TRACE_ID, SPAN_ID, 'ERROR', 18, 'card declined', {}, 1, ...scope, resource, ''],
      [
        '1700000001000000000',
        '',
        '',
        '',
        5,
        '{"attempt":2,"event":"retry","tags":["x","y"]}',
        {},
        0,
        ...scope,
        resource,
        '',
      ],
    ]);

    const types = await query(url, 'DESC TABLE opentelemetry_logs');
    t.same(
      types.map((r) => [r[0], r[1], r[5]]),
      [
        ['timestamp', 'TimestampNanosecond', 'TIMESTAMP'],
        ['trace_id', 'String', 'FIELD'],
        ['span_id', 'String', 'FIELD'],
        ['severity_text', 'String', 'FIELD'],
        ['severity_number', 'Int32', 'FIELD'],
        ['body', 'String', 'FIELD'],
        ['log_attributes', 'Json', 'FIELD'],
        ['trace_flags', 'UInt32', 'FIELD'],
        ['scope_name', 'String', 'TAG'],
        ['scope_version', 'String', 'FIELD'],
        ['scope_attributes', 'Json', 'FIELD'],
        ['scope_schema_url', 'String', 'FIELD'],
        ['resource_attributes', 'Json', 'FIELD'],
        ['resource_schema_url', 'String', 'FIELD'],
      ],
    );
  });

  t.test('the JSON exporter stores exactly what the protobuf exporter stored', async (t) => {
    const exporter = new JsonLogExporter({
      url: `${url}/v1/otlp/v1/logs`,
      headers: { 'x-greptime-log-table-name': 'logs_json' },
    });
    const result = await exportWith(exporter, records);
    t.equal(result.code, ExportResultCode.SUCCESS, result.error?.message ?? 'exported');
    await exporter.shutdown();
    const json = await query(url, `SELECT ${LOG_COLUMNS} FROM logs_json ORDER BY "timestamp"`);
    const proto = await query(url, `SELECT ${LOG_COLUMNS} FROM opentelemetry_logs ORDER BY "timestamp"`);
    t.equal(json.length, 3);
    t.same(json, proto);
  });

  t.test('a record without a time takes its observed time, or the arrival time', async (t) => {
    const before = BigInt(Date.now()) * 1_000_000n;
    const res = await postLogs(
      url,
      logsRequest([
        record({ observedTimeUnixNano: 1_700_000_000_000_000_042n, body: { stringValue: 'observed' } }),
        record({ body: { stringValue: 'timeless' } }),
        record({ timeUnixNano: 1_700_000_000_000_000_007n, body: { intValue: 7n } }),
      ]),
      'protobuf',
      { 'x-greptime-log-table-name': 'logs_times' },
    );
    t.equal(res.status, 200);
    t.equal(res.contentType, 'application/x-protobuf');
    t.equal(res.body.length, 0);
    const after = BigInt(Date.now()) * 1_000_000n;
    const rows = await query(
      url,
      'SELECT body, CAST(CAST("timestamp" AS BIGINT) AS STRING), scope_name, resource_attributes FROM logs_times',
    );
    const byBody = new Map(rows.map((r) => [r[0], r]));
    // No scope at all: scope_name is NULL, as GreptimeDB stores it.
    t.same(byBody.get('observed'), ['observed', '1700000000000000042', null, { 'service.name': 'raw' }]);
    t.same(byBody.get('7'), ['7', '1700000000000000007', null, { 'service.name': 'raw' }]);
    const arrival = BigInt(byBody.get('timeless')?.[1] as string);
    t.ok(arrival >= before && arrival <= after, `arrival time ${arrival} within the request`);
  });

  t.test('records with malformed ids are rejected one by one and reported in partial_success', async (t) => {
    const good = record({ timeUnixNano: 1n, body: { stringValue: 'good' }, traceId: Buffer.from(TRACE_ID, 'hex') });
    const badTrace = record({ timeUnixNano: 2n, body: { stringValue: 'bad' }, traceId: Buffer.from('abcd', 'hex') });
    const badSpan = record({ timeUnixNano: 3n, body: { stringValue: 'bad' }, spanId: Buffer.from('ab', 'hex') });
    const res = await postLogs(url, logsRequest([good, badTrace, badSpan]), 'protobuf', {
      'x-greptime-log-table-name': 'logs_partial',
    });
    t.equal(res.status, 200);
    const answer = decodeOtlp<{ partialSuccess: { rejectedLogRecords: bigint; errorMessage: string } | null }>(
      OtlpTypes.exportLogsResponse,
      res.body,
    );
    t.equal(answer.partialSuccess?.rejectedLogRecords, 2n);
    t.match(answer.partialSuccess?.errorMessage, /trace_id must be 16 bytes, got 2/);
    t.same(await query(url, 'SELECT body, trace_id FROM logs_partial'), [['good', TRACE_ID]]);

    const json = await postLogs(url, logsRequest([good, badSpan]), 'json', {
      'x-greptime-log-table-name': 'logs_partial',
    });
    t.equal(json.status, 200);
    t.equal(json.contentType, 'application/json');
    t.same(JSON.parse(json.body.toString()), {
      partialSuccess: {
        rejectedLogRecords: '1',
        errorMessage: '1 log records rejected; first: log record 2: span_id must be 8 bytes, got 1',
      },
    });
  });

  t.test('OTLP/JSON accepts enum names, int64 numbers and snake_case keys', async (t) => {
    // Written by hand: a JavaScript number literal would already have rounded the timestamp.
    const text = `{"resource_logs": [{"scopeLogs": [{
      "scope": {"name": "json-scope", "attributes": [{"key": "big", "value": {"intValue": "9007199254740993"}}]},
      "logRecords": [{
        "timeUnixNano": 1700000000000000123,
        "severityNumber": "SEVERITY_NUMBER_WARN",
        "severity_text": "WARN",
        "body": {"bytesValue": "${Buffer.from('hi').toString('base64')}"},
        "traceId": "${TRACE_ID.toUpperCase()}",
        "flags": 1,
        "futureField": {"ignored": [1.5, "x"]}
      }]
    }]}]}`;
    const res = await fetch(`${url}/v1/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-greptime-log-table-name': 'logs_json_rules' },
      body: text,
    });
    t.equal(res.status, 200, await res.clone().text());
    t.same(await res.json(), {});
    t.same(
      await query(
        url,
        'SELECT CAST(CAST("timestamp" AS BIGINT) AS STRING), severity_number, severity_text, body, trace_id, trace_flags, scope_name, json_to_string(scope_attributes), resource_attributes FROM logs_json_rules',
      ),
      [['1700000000000000123', 13, 'WARN', '6869', TRACE_ID, 1, 'json-scope', '{"big":9007199254740993}', null]],
    );
  });

  t.test('through a named pipeline, with the SDK exporter', async (t) => {
    const yaml = [
      'version: 2',
      'processors:',
      '  - select:',
      '      fields: [Timestamp, SeverityText, Body, LogAttributes, ResourceAttributes, ScopeName]',
      '  - json_path:',
      '      field: ResourceAttributes, service',
      '      json_path: "$[\'service.name\']"',
      '      result_index: 0',
      '  - epoch:',
      '      field: Timestamp',
      '      resolution: ns',
      'transform:',
      '  - field: service',
      '    type: string',
      '    tag: true',
      '  - field: Timestamp',
      '    type: epoch, ns',
      '    index: timestamp',
      '  - field: Body',
      '    type: string',
      '    index: fulltext',
    ].join('\n');
    const created = await fetch(`${url}/v1/pipelines/otel_app`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-yaml' },
      body: yaml,
    });
    t.equal(created.status, 200, await created.clone().text());
    const records = await makeSdkRecords();
    for (const [header, table] of [
      ['x-greptime-log-pipeline-name', 'logs_piped_a'],
      ['x-greptime-pipeline-name', 'logs_piped_b'],
    ] as const) {
      const exporter = new ProtoLogExporter({
        url: `${url}/v1/otlp/v1/logs`,
        headers: { [header]: 'otel_app', 'x-greptime-log-table-name': table },
      });
      const result = await exportWith(exporter, records);
      t.equal(result.code, ExportResultCode.SUCCESS, result.error?.message ?? 'exported');
      await exporter.shutdown();
      t.same(
        await query(
          url,
          `SELECT service, CAST(CAST("Timestamp" AS BIGINT) AS STRING), "SeverityText", "Body" FROM ${table} ORDER BY "Timestamp"`,
        ),
        [
          ['billing', '1700000000123456789', 'INFO', 'payment accepted'],
          ['billing', '1700000000500000001', 'ERROR', 'card declined'],
          ['billing', '1700000001000000000', '', '{"attempt":2,"event":"retry","tags":["x","y"]}'],
        ],
        `${header}: the pipeline's columns`,
      );
    }
    const desc = await query(url, 'DESCRIBE TABLE logs_piped_a');
    t.same(
      desc.map((r) => `${r[0]} ${r[1]} ${r[5]}`),
      [
        'service String TAG',
        'Timestamp TimestampNanosecond TIMESTAMP',
        'Body String FIELD',
        'LogAttributes Json FIELD',
        'ResourceAttributes Json FIELD',
        'ScopeName String FIELD',
        'SeverityText String FIELD',
      ],
      'declared columns, then the rest of the record (v2)',
    );
  });

  t.test('greptime_identity by header; an unknown pipeline is refused and stores nothing', async (t) => {
    const ok = await postLogs(url, logsRequest([record({ timeUnixNano: 1n })]), 'json', {
      'x-greptime-log-pipeline-name': 'greptime_identity',
      'x-greptime-log-table-name': 'logs_identity',
    });
    t.equal(ok.status, 200, ok.body.toString());
    const cols = (await query(url, 'DESCRIBE TABLE logs_identity')).map((r) => r[0]);
    t.ok(cols.includes('Body') && cols.includes('greptime_timestamp'), cols.join(','));
    const res = await postLogs(url, logsRequest([record({ timeUnixNano: 1n })]), 'json', {
      'x-greptime-pipeline-name': 'no_such_pipeline',
      'x-greptime-log-table-name': 'logs_piped_none',
    });
    t.equal(res.status, 400);
    t.match(res.body.toString(), /Pipeline not found, name: no_such_pipeline/);
    const tables = await query(url, 'SHOW TABLES');
    t.notOk(tables.some((r) => r[0] === 'logs_piped_none'));
  });
});
