/**
 * Loki push (`POST /v1/logpush/api/v1/push`) end to end: protobuf+snappy requests built with the
 * server's own Loki schema and snappyjs, and the JSON form, read back through SQL exactly
 * (nanosecond timestamps as exact integers, lines, structured metadata, label tags); then a table
 * of malformed requests, each refused with a 4xx and storing nothing.
 */
import zlib from 'node:zlib';
import snappy from 'snappyjs';
import t from 'tap';
import { lokiTypes } from '../../src/shared/proto/loki.js';
import { parseJsonExact } from '../helpers/json.js';
import { type SqlBody, sql, startServer, tempDir } from '../helpers/server.js';

const PUSH = '/v1/logpush/api/v1/push';

interface TestEntry {
  seconds: number;
  nanos: number;
  line: string;
  metadata?: Record<string, string>;
}

/** A `PushRequest` as protobuf bytes, from label strings and entries. */
function pushBytes(streams: Array<{ labels: string; entries: Array<TestEntry | { line: string }> }>): Uint8Array {
  const message = lokiTypes.PushRequest.fromObject({
    streams: streams.map((s) => ({
      labels: s.labels,
      entries: s.entries.map((e) =>
        'seconds' in e
          ? {
              timestamp: { seconds: e.seconds, nanos: e.nanos },
              line: e.line,
              structuredMetadata: Object.entries(e.metadata ?? {}).map(([name, value]) => ({ name, value })),
            }
          : { line: e.line },
      ),
    })),
  });
  return lokiTypes.PushRequest.encode(message).finish();
}

const snappyOf = (bytes: Uint8Array): Buffer => snappy.compress(Buffer.from(bytes));

async function post(url: string, body: Uint8Array | string, headers: Record<string, string>) {
  const res = await fetch(`${url}${PUSH}`, { method: 'POST', body, headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const postProtobuf = (url: string, body: Uint8Array, headers: Record<string, string> = {}) =>
  post(url, body, { 'content-type': 'application/x-protobuf', ...headers });
const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  post(url, typeof body === 'string' ? body : JSON.stringify(body), { 'content-type': 'application/json', ...headers });

/** Runs SQL and parses the answer keeping 64-bit integers exact (as decimal strings). */
async function exactRows(url: string, statement: string, db?: string): Promise<unknown[][]> {
  const res = await sql(url, statement, db);
  const body = parseJsonExact(res.text) as SqlBody;
  const rows = body.output?.[0]?.records?.rows;
  if (!rows) throw new Error(`${statement}: ${res.text}`);
  return rows;
}

async function describe(url: string, table: string): Promise<unknown[][]> {
  return (await exactRows(url, `DESC TABLE ${table}`)).map((r) => [r[0], r[1], r[5]]);
}

/** The `error` of a JSON error body, or the text of a plain-text one. */
function errorText(text: string): string {
  try {
    return (JSON.parse(text) as { error: string }).error;
  } catch {
    return text;
  }
}

async function metricValue(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

t.test('Loki push', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  t.test('stores a protobuf+snappy push exactly: ns timestamps, lines, metadata, label tags', async (t) => {
    const rowsBefore = await metricValue(url, 'shoaldb_ingest_rows_total', 'protocol="loki"');
    const body = snappyOf(
      pushBytes([
        {
          labels: '{job="api", env="prod"}',
          entries: [
            { seconds: 1731748568, nanos: 804293888, line: 'GET /a 200', metadata: { trace_id: 'abc', span: 'x1' } },
            { seconds: 1731748569, nanos: 1, line: 'GET /b 500' },
          ],
        },
        {
          // Go %q quoting as Promtail writes it, and an UTF-8 label name in quotes.
          labels: '{job="web", path="C:\\\\temp \\"q\\"\\n", "k8s.pod"="p-1"}',
          entries: [{ seconds: 1731748570, nanos: 999999999, line: 'ünïcode ✓', metadata: { 'a"b': 'v\u0001' } }],
        },
      ]),
    );
    const res = await postProtobuf(url, body);
    t.equal(res.status, 204, res.text);
    t.equal(res.text, '');

    t.same(await describe(url, 'loki_logs'), [
      ['greptime_timestamp', 'TimestampNanosecond', 'TIMESTAMP'],
      ['line', 'String', 'FIELD'],
      ['structured_metadata', 'Json', 'FIELD'],
      ['env', 'String', 'TAG'],
      ['job', 'String', 'TAG'],
      ['k8s.pod', 'String', 'TAG'],
      ['path', 'String', 'TAG'],
    ]);
    t.same(
      await exactRows(
        url,
        'SELECT greptime_timestamp, line, structured_metadata, env, job, "k8s.pod", path FROM loki_logs ORDER BY greptime_timestamp',
      ),
      [
        ['1731748568804293888', 'GET /a 200', { span: 'x1', trace_id: 'abc' }, 'prod', 'api', null, null],
        ['1731748569000000001', 'GET /b 500', {}, 'prod', 'api', null, null],
        ['1731748570999999999', 'ünïcode ✓', { 'a"b': 'v\u0001' }, null, 'web', 'p-1', 'C:\\temp "q"\n'],
      ],
    );
    t.same(
      await exactRows(
        url,
        "SELECT json_get_string(structured_metadata, 'trace_id') FROM loki_logs WHERE job = 'api' ORDER BY greptime_timestamp",
      ),
      [['abc'], [null]],
    );
    t.equal(await metricValue(url, 'shoaldb_ingest_rows_total', 'protocol="loki"'), rowsBefore + 3);
    t.ok((await metricValue(url, 'shoaldb_ingest_requests_total', 'protocol="loki",outcome="ok"')) >= 1);
    t.ok((await metricValue(url, 'shoaldb_ingest_bytes_total', 'protocol="loki"')) >= body.length);
  });

  t.test('stores the JSON form; labels seen later add columns and earlier rows read NULL', async (t) => {
    const headers = { 'x-greptime-log-table-name': 'json_logs' };
    let res = await postJson(
      url,
      {
        streams: [
          {
            stream: { job: 'api', env: 'prod' },
            values: [
              ['1735901380059465984', 'line one', { trace_id: 'abc', user: 'u1' }],
              ['1735901398478897920', 'line two'],
            ],
          },
          { values: [['9007199254740993001', 'no labels at all', {}]] },
        ],
      },
      headers,
    );
    t.equal(res.status, 204, res.text);
    res = await postJson(
      url,
      {
        streams: [{ stream: { job: 'api', region: 'eu', empty: '' }, values: [['1735901400000000000', 'line three']] }],
      },
      headers,
    );
    t.equal(res.status, 204, res.text);
    t.same(await describe(url, 'json_logs'), [
      ['greptime_timestamp', 'TimestampNanosecond', 'TIMESTAMP'],
      ['line', 'String', 'FIELD'],
      ['structured_metadata', 'Json', 'FIELD'],
      ['env', 'String', 'TAG'],
      ['job', 'String', 'TAG'],
      ['region', 'String', 'TAG'],
    ]);
    t.same(await exactRows(url, 'SELECT * FROM json_logs ORDER BY greptime_timestamp'), [
      ['1735901380059465984', 'line one', { trace_id: 'abc', user: 'u1' }, 'prod', 'api', null],
      ['1735901398478897920', 'line two', {}, 'prod', 'api', null],
      ['1735901400000000000', 'line three', {}, null, 'api', 'eu'],
      ['9007199254740993001', 'no labels at all', {}, null, null, null],
    ]);
  });

  t.test('log tables are append-only: the same entry pushed twice is stored twice', async (t) => {
    const headers = { 'x-greptime-log-table-name': 'append_logs' };
    const body = { streams: [{ stream: { job: 'dup' }, values: [['1700000000000000000', 'same line']] }] };
    t.equal((await postJson(url, body, headers)).status, 204);
    t.equal((await postJson(url, body, headers)).status, 204);
    t.same(await exactRows(url, 'SELECT line FROM append_logs'), [['same line'], ['same line']]);
    const show = await exactRows(url, 'SHOW CREATE TABLE append_logs');
    t.match(String(show[0]?.[1]), /append_mode = 'true'/);
  });

  t.test('the database header picks the database; gzip bodies and charset parameters are accepted', async (t) => {
    t.equal((await sql(url, 'CREATE DATABASE logs_db')).status, 200);
    const json = JSON.stringify({ streams: [{ stream: { app: 'x' }, values: [['1000000000000000000', 'gz']] }] });
    const res = await post(url, zlib.gzipSync(json), {
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
      'x-greptime-db-name': 'logs_db',
    });
    t.equal(res.status, 204, res.text);
    t.same(await exactRows(url, 'SELECT greptime_timestamp, line, app FROM loki_logs', 'logs_db'), [
      ['1000000000000000000', 'gz', 'x'],
    ]);
    const missing = await postJson(url, JSON.parse(json), { 'x-greptime-db-name': 'no_such_db' });
    t.equal(missing.status, 400);
    t.match(JSON.parse(missing.text), { code: 4004, error: /no_such_db/ });
  });

  t.test('malformed requests get a clear 4xx and store nothing', async (t) => {
    const table = 'loki_guard';
    const headers = { 'x-greptime-log-table-name': table };
    const good = { labels: '{job="ok"}', entries: [{ seconds: 1700000000, nanos: 0, line: 'kept' }] };
    t.equal((await postProtobuf(url, snappyOf(pushBytes([good])), headers)).status, 204);
    const valid = pushBytes([
      good,
      { labels: '{job="also"}', entries: [{ seconds: 1700000001, nanos: 5, line: 'x' }] },
    ]);
    const validJson = { stream: { job: 'also' }, values: [['1700000001000000000', 'x']] };
    const cases: Array<{
      name: string;
      send: () => Promise<{ status: number; text: string }>;
      status: number;
      error: RegExp;
    }> = [
      {
        name: 'truncated protobuf',
        send: () => postProtobuf(url, snappyOf(valid.subarray(0, valid.length - 3)), headers),
        status: 400,
        error: /Failed to decode Loki push request/,
      },
      {
        name: 'protobuf that is not snappy-compressed',
        send: () => postProtobuf(url, valid, headers),
        status: 400,
        error: /snappy/,
      },
      {
        name: 'truncated snappy block',
        send: () => postProtobuf(url, snappyOf(valid).subarray(0, 20), headers),
        status: 400,
        error: /snappy/,
      },
      {
        name: 'entry without timestamp',
        send: () =>
          postProtobuf(url, snappyOf(pushBytes([good, { labels: '{a="b"}', entries: [{ line: 'x' }] }])), headers),
        status: 400,
        error: /stream 1 entry 0 has no timestamp/,
      },
      {
        name: 'unquoted label value',
        send: () =>
          postProtobuf(url, snappyOf(pushBytes([good, { labels: '{job=api}', entries: good.entries }])), headers),
        status: 400,
        error: /Invalid Loki labels of stream 1 .*expected a quoted value/,
      },
      {
        name: 'duplicate label',
        send: () =>
          postProtobuf(url, snappyOf(pushBytes([good, { labels: '{a="1", a="2"}', entries: good.entries }])), headers),
        status: 400,
        error: /duplicate label name/,
      },
      {
        name: 'label named like a column',
        send: () =>
          postProtobuf(url, snappyOf(pushBytes([good, { labels: '{line="x"}', entries: good.entries }])), headers),
        status: 400,
        error: /label "line" collides/,
      },
      {
        name: 'invalid JSON',
        send: () => postJson(url, '{"streams": [', headers),
        status: 400,
        error: /Invalid Loki JSON request/,
      },
      {
        name: 'JSON without streams',
        send: () => postJson(url, { stream: [] }, headers),
        status: 400,
        error: /missing `streams`/,
      },
      {
        name: 'JSON timestamp as a number',
        send: () => postJson(url, { streams: [validJson, { values: [[1700000000, 'x']] }] }, headers),
        status: 400,
        error: /streams\[1\]\.values\[0\]\[0\] must be a string of integer nanoseconds/,
      },
      {
        name: 'JSON line not a string',
        send: () => postJson(url, { streams: [validJson, { values: [['1', { msg: 'x' }]] }] }, headers),
        status: 400,
        error: /values\[0\]\[1\] \(the line\) must be a string/,
      },
      {
        name: 'JSON metadata value not a string',
        send: () => postJson(url, { streams: [validJson, { values: [['1', 'x', { n: 1 }]] }] }, headers),
        status: 400,
        error: /values\[0\]\[2\]\.n must be a string/,
      },
      {
        name: 'JSON label value not a string',
        send: () => postJson(url, { streams: [validJson, { stream: { n: 1 }, values: [] }] }, headers),
        status: 400,
        error: /streams\[1\]\.stream\.n must be a string/,
      },
      {
        name: 'JSON stream without values',
        send: () => postJson(url, { streams: [validJson, { stream: { a: 'b' } }] }, headers),
        status: 400,
        error: /streams\[1\] is missing `values`/,
      },
      {
        name: 'wrong content type',
        send: () => post(url, JSON.stringify({ streams: [validJson] }), { 'content-type': 'text/plain', ...headers }),
        status: 415,
        error: /Unsupported content type: text\/plain/,
      },
      {
        name: 'unknown content encoding',
        send: () => postJson(url, { streams: [validJson] }, { 'content-encoding': 'lz4', ...headers }),
        status: 415,
        error: /Unsupported Content-Encoding: lz4/,
      },
      {
        name: 'corrupt gzip body',
        send: () => postJson(url, 'not gzip at all', { 'content-encoding': 'gzip', ...headers }),
        status: 400,
        error: /decompress/,
      },
    ];
    for (const c of cases) {
      const res = await c.send();
      t.equal(res.status, c.status, `${c.name}: status (${res.text})`);
      t.match(errorText(res.text), c.error, `${c.name}: message`);
    }
    t.same(
      await exactRows(url, `SELECT job, line FROM ${table}`),
      [['ok', 'kept']],
      'only the first good push is stored',
    );
    t.ok(
      (await metricValue(url, 'shoaldb_ingest_requests_total', 'protocol="loki",outcome="rejected"')) >= cases.length,
    );
  });

  t.test('through a pipeline, in both encodings', async (t) => {
    const yaml = [
      'processors:',
      '  - dissect:',
      '      field: loki_line',
      "      pattern: '%{level} %{msg}'",
      'transform:',
      '  - field: loki_label_job',
      '    type: string',
      '    tag: true',
      '  - fields: [level, msg, loki_metadata_trace]',
      '    type: string',
      '  - field: greptime_timestamp',
      '    type: time',
      '    index: timestamp',
    ].join('\n');
    const created = await fetch(`${url}/v1/pipelines/loki_dissect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-yaml' },
      body: yaml,
    });
    t.equal(created.status, 200, await created.clone().text());
    const headers = { 'x-greptime-log-table-name': 'loki_piped', 'x-greptime-pipeline-name': 'loki_dissect' };
    const proto = pushBytes([
      {
        labels: '{job="api"}',
        entries: [{ seconds: 1700000000, nanos: 7, line: 'INFO started', metadata: { trace: 't1' } }],
      },
    ]);
    t.equal((await postProtobuf(url, snappyOf(proto), headers)).status, 204);
    const json = { streams: [{ stream: { job: 'web' }, values: [['1700000001000000009', 'WARN slow request']] }] };
    t.equal((await postJson(url, json, headers)).status, 204);
    t.same(
      await exactRows(
        url,
        'SELECT loki_label_job, level, msg, loki_metadata_trace, greptime_timestamp FROM loki_piped ORDER BY greptime_timestamp',
      ),
      [
        ['api', 'INFO', 'started', 't1', '1700000000000000007'],
        ['web', 'WARN', 'slow request', null, '1700000001000000009'],
      ],
    );
    const bad = await postJson(url, { streams: [{ stream: { job: 'x' }, values: [['1', 'nospace']] }] }, headers);
    t.equal(bad.status, 400, 'a line the pattern does not match fails the push');
    const unknown = await postJson(url, json, { ...headers, 'x-greptime-pipeline-name': 'nope' });
    t.equal(unknown.status, 400);
    t.match(errorText(unknown.text), /Pipeline not found, name: nope/);
    t.same(await exactRows(url, 'SELECT count(*) FROM loki_piped'), [[2]], 'the refused pushes stored nothing');
  });

  t.test('a push that conflicts with the existing table is refused with the native error body', async (t) => {
    t.equal(
      (await sql(url, 'CREATE TABLE typed_logs (greptime_timestamp TIMESTAMP(9) TIME INDEX, line BIGINT)')).status,
      200,
    );
    const res = await postJson(
      url,
      { streams: [{ stream: { a: 'b' }, values: [['1', 'text line']] }] },
      { 'x-greptime-log-table-name': 'typed_logs' },
    );
    t.equal(res.status, 400, res.text);
    t.match(JSON.parse(res.text), { code: 1004, error: /column line expect type Int64/ });
    t.equal(res.headers.get('x-greptime-err-code'), '1004');
    t.same(await exactRows(url, 'SELECT count(*) FROM typed_logs'), [[0]]);
  });
});

t.test('Loki push under a body limit and authentication', async (t) => {
  const server = await startServer({
    httpToml: 'body_limit = "1KiB"',
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret,reader:ro=rpw"',
  });
  t.teardown(() => server.stop());
  const auth = { authorization: `Basic ${Buffer.from('admin:s3cret').toString('base64')}` };
  const entry = { seconds: 1700000000, nanos: 0, line: 'x'.repeat(100) };

  const small = snappyOf(pushBytes([{ labels: '{a="b"}', entries: [entry] }]));
  t.equal((await postProtobuf(server.url, small, auth)).status, 204);
  t.equal((await postProtobuf(server.url, small)).status, 401, 'credentials are required');
  const reader = { authorization: `Basic ${Buffer.from('reader:rpw').toString('base64')}` };
  t.equal((await postProtobuf(server.url, small, reader)).status, 403, 'read-only users cannot push');

  // 20 lines of 100 repeated bytes compress far below 1 KiB but expand past it.
  const bomb = snappyOf(pushBytes([{ labels: '{a="b"}', entries: Array.from({ length: 20 }, () => entry) }]));
  t.ok(bomb.length < 1024);
  const expanded = await postProtobuf(server.url, bomb, auth);
  t.equal(expanded.status, 413, expanded.text);
  const big = await postJson(
    server.url,
    { streams: [{ stream: { a: 'b' }, values: [['1', 'y'.repeat(2000)]] }] },
    auth,
  );
  t.equal(big.status, 413, big.text);
  const rows = await sql(server.url, 'SELECT count(*) FROM loki_logs', undefined, auth);
  t.same(rows.body.output?.[0]?.records?.rows, [[1]], 'only the small push is stored');
});

t.test('an acknowledged push survives SIGKILL', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  const res = await postProtobuf(
    server.url,
    snappyOf(pushBytes([{ labels: '{job="durable"}', entries: [{ seconds: 1700000000, nanos: 7, line: 'kept' }] }])),
  );
  t.equal(res.status, 204, res.text);
  await server.kill();
  server = await startServer({ dataDir });
  t.same(await exactRows(server.url, 'SELECT * FROM loki_logs'), [['1700000000000000007', 'kept', {}, 'durable']]);
});
