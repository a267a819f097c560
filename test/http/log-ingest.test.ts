/**
 * `POST /v1/ingest` (reference ingest §7) against a real server: every parameter and content
 * type, built-in and stored pipelines, per-record failures with and without `skip_error`, table
 * suffixes, compressed bodies, refusals with their status and nothing written half-way, and a
 * pipeline deleted while its table lives on.
 */
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const NGINX_YAML = `processors:
  - dissect:
      field: line
      pattern: '%{ip} - %{user} [%{ts}] "%{method} %{path} %{proto}" %{status} %{size}'
  - date:
      field: ts
      formats:
        - "%d/%b/%Y:%H:%M:%S %z"
transform:
  - fields: [ip, method, path]
    type: string
  - fields: [status, size]
    type: uint32
  - field: ts
    type: time
    index: timestamp
`;
const DISPATCH_YAML = `processors:
  - epoch:
      field: t
      resolution: s
dispatcher:
  field: kind
  rules:
    - value: audit
      table_suffix: _audit
transform:
  - field: msg
    type: string
  - field: t
    type: epoch, s
    index: timestamp
`;

const LINE = (ip: string, status: number, second: number) =>
  `${ip} - - [25/May/2024:20:16:${String(second).padStart(2, '0')} +0000] "GET /x HTTP/1.1" ${status} 10`;

async function ingest(url: string, query: string, body: string | Buffer, headers: Record<string, string>) {
  const res = await fetch(`${url}/v1/ingest?${query}`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function count(url: string, table: string): Promise<number> {
  const res = await sql(url, `SELECT count(*) FROM ${table}`);
  return res.status === 200 ? Number(rowsOf(res.body)[0]?.[0]) : -1;
}

t.test('/v1/ingest', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const { url } = server;
  const created = await fetch(`${url}/v1/pipelines/nginx`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-yaml' },
    body: NGINX_YAML,
  });
  t.equal(created.status, 200);
  const ndjson = { 'content-type': 'application/x-ndjson' };

  await t.test('parameters refused with their message, nothing written', async (t) => {
    const body = JSON.stringify({ line: LINE('1.1.1.1', 200, 1) });
    const cases: Array<[string, string, Record<string, string>, RegExp]> = [
      ['no table', 'pipeline_name=nginx', ndjson, /table is required/],
      ['no pipeline', 'table=r', ndjson, /pipeline_name is required/],
      ['unknown pipeline', 'table=r&pipeline_name=nope', ndjson, /Pipeline not found, name: nope/],
      ['bad version', 'table=r&pipeline_name=nginx&version=soon', ndjson, /invalid pipeline version/],
      [
        'bad content type',
        'table=r&pipeline_name=nginx',
        { 'content-type': 'text/csv' },
        /invalid content type: text\/csv/,
      ],
      ['a record the pipeline cannot parse', 'table=r&pipeline_name=nginx', ndjson, /No matching pattern|dissect/i],
    ];
    for (const [name, query, headers, error] of cases) {
      const payload = name.startsWith('a record') ? JSON.stringify({ line: 'garbage' }) : body;
      const res = await ingest(url, query, payload, headers);
      t.equal(res.status, 400, `${name}: 400`);
      t.match(JSON.parse(res.text).error, error, `${name}: message`);
    }
    t.equal(await count(url, 'r'), -1, 'no table was made');
  });

  await t.test('content types, header pipeline name, compressed bodies', async (t) => {
    const lines = [LINE('1.1.1.1', 200, 1), LINE('2.2.2.2', 404, 2), LINE('3.3.3.3', 500, 3)];
    const asJson = JSON.stringify(lines.slice(0, 2).map((line) => ({ line })));
    let res = await ingest(url, 'table=web&pipeline_name=nginx', asJson, {
      'content-type': 'application/json; charset=utf-8',
    });
    t.equal(res.status, 200);
    t.same(JSON.parse(res.text).output, [{ affectedrows: 2 }]);
    t.equal(res.headers.get('x-greptime-format'), 'greptimedb_v1');
    res = await ingest(url, 'table=web', gzipSync(JSON.stringify({ line: lines[2] })), {
      ...ndjson,
      'content-encoding': 'gzip',
      'x-greptime-pipeline-name': 'nginx',
    });
    t.equal(res.status, 200, 'gzip body, pipeline named by header');
    const rows = rowsOf((await sql(url, 'SELECT ip, status, size, ts FROM web ORDER BY ts')).body);
    t.same(rows, [
      ['1.1.1.1', 200, 10, 1716668161000000000],
      ['2.2.2.2', 404, 10, 1716668162000000000],
      ['3.3.3.3', 500, 10, 1716668163000000000],
    ]);
    const desc = rowsOf((await sql(url, 'DESCRIBE TABLE web')).body).map((r) => `${r[0]} ${r[1]} ${r[5]}`);
    t.same(desc, [
      'ip String FIELD',
      'method String FIELD',
      'path String FIELD',
      'status UInt32 FIELD',
      'size UInt32 FIELD',
      'ts TimestampNanosecond TIMESTAMP',
    ]);
    const options = rowsOf((await sql(url, 'SHOW CREATE TABLE web')).body)[0]?.[1];
    t.match(options, /append_mode = 'true'/, 'an append-only table');
  });

  await t.test('skip_error drops only the bad records', async (t) => {
    const body = [LINE('4.4.4.4', 200, 4), 'nonsense', LINE('5.5.5.5', 200, 5)]
      .map((line) => JSON.stringify({ line }))
      .join('\n');
    let res = await ingest(url, 'table=web2&pipeline_name=nginx', body, ndjson);
    t.equal(res.status, 400, 'one bad record fails the request');
    t.equal(await count(url, 'web2'), -1, 'and nothing is written');
    res = await ingest(url, 'table=web2&pipeline_name=nginx&skip_error=true', body, ndjson);
    t.same(JSON.parse(res.text).output, [{ affectedrows: 2 }]);
    res = await ingest(url, 'table=web2&pipeline_name=nginx', body, {
      ...ndjson,
      'x-greptime-pipeline-params': 'skip_error=1',
    });
    t.same(JSON.parse(res.text).output, [{ affectedrows: 2 }], 'skip_error from the params header');
    t.equal(await count(url, 'web2'), 4);
  });

  await t.test('text lines through a dissect of message (read as bytes), read back as sent', async (t) => {
    const yaml = `processors:
  - dissect:
      field: message
      patterns:
        - '%{ip} [%{ts}] "%{path}" %{status} %{agent}'
        - '%{ip} [%{ts}] "%{path}"'
  - date:
      field: ts
      formats: ["%d/%b/%Y:%H:%M:%S %z"]
transform:
  - field: ip
    type: string
  - fields: [path, agent]
    type: string
    index: fulltext
  - field: status
    type: uint32
    on_failure: default
    default: 0
  - field: message
    type: string
  - field: ts
    type: time
    index: timestamp
`;
    const made = await fetch(`${url}/v1/pipelines/text_access`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-yaml' },
      body: yaml,
    });
    t.equal(made.status, 200);
    const at = (s: number) => `25/May/2024:20:16:0${s} +0000`;
    const lines = [
      `1.1.1.1 [${at(1)}] "/caf\u00e9/\u6d4b\u8bd5" 200 Mozilla \u{1f600}`,
      `2.2.2.2 [${at(2)}] "/short"`,
      'not an access line',
      `3.3.3.3 [${at(3)}] "/x" 404 curl/8`,
    ];
    const text = { 'content-type': 'text/plain' };
    let res = await ingest(url, 'table=text_web&pipeline_name=text_access', lines.join('\n'), text);
    t.equal(res.status, 400, 'a line no pattern matches fails the body');
    t.match(JSON.parse(res.text).error, /No matching pattern found/);
    t.equal(await count(url, 'text_web'), -1, 'and nothing is written');
    res = await ingest(url, 'table=text_web&pipeline_name=text_access&skip_error=true', gzipSync(lines.join('\r\n')), {
      ...text,
      'content-encoding': 'gzip',
    });
    t.same(JSON.parse(res.text).output, [{ affectedrows: 3 }]);
    const rows = rowsOf((await sql(url, 'SELECT ip, path, agent, status, message, ts FROM text_web ORDER BY ts')).body);
    t.same(rows, [
      ['1.1.1.1', '/caf\u00e9/\u6d4b\u8bd5', 'Mozilla \u{1f600}', 200, lines[0], 1716668161000000000],
      ['2.2.2.2', '/short', null, 0, lines[1], 1716668162000000000],
      ['3.3.3.3', '/x', 'curl/8', 404, lines[3], 1716668163000000000],
    ]);
    const found = rowsOf((await sql(url, "SELECT ip FROM text_web WHERE matches_term(agent, 'curl')")).body);
    t.same(found, [['3.3.3.3']], 'the full-text column answers a term');
  });

  await t.test('greptime_identity: flattening and inferred types', async (t) => {
    const body =
      '{"level":"info","msg":"started","http":{"status":200}}\n{"level":"warn","msg":"slow","latency_ms":812.5,"tags":[1,2]}\n';
    const res = await ingest(url, 'table=app&pipeline_name=greptime_identity', body, ndjson);
    t.same(JSON.parse(res.text).output, [{ affectedrows: 2 }]);
    const desc = new Map(rowsOf((await sql(url, 'DESCRIBE TABLE app')).body).map((r) => [r[0], r[1]]));
    t.equal(desc.get('greptime_timestamp'), 'TimestampNanosecond');
    t.equal(desc.get('http.status'), 'Int64');
    t.equal(desc.get('latency_ms'), 'Float64');
    t.equal(desc.get('level'), 'String');
    t.equal(desc.get('tags'), 'String', 'arrays as JSON text');
    const rows = rowsOf((await sql(url, `SELECT level, "http.status", latency_ms, tags FROM app ORDER BY level`)).body);
    t.same(rows, [
      ['info', 200, null, null],
      ['warn', null, 812.5, '[1,2]'],
    ]);
    const text = await ingest(url, 'table=plain&pipeline_name=greptime_identity', 'first line\n\nsecond line\n', {
      'content-type': 'text/plain',
    });
    t.same(JSON.parse(text.text).output, [{ affectedrows: 2 }], 'text lines become message records');
    t.same(rowsOf((await sql(url, 'SELECT message FROM plain ORDER BY message')).body), [
      ['first line'],
      ['second line'],
    ]);
    const conflict = await ingest(url, 'table=app&pipeline_name=greptime_identity', '{"level":5}', ndjson);
    t.equal(conflict.status, 400, 'a type conflict with the table');
    t.ok(JSON.parse(conflict.text).code, 'answered in the native error shape');
  });

  await t.test('dispatcher: records to the suffixed table', async (t) => {
    t.equal(
      (
        await fetch(`${url}/v1/pipelines/disp`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-yaml' },
          body: DISPATCH_YAML,
        })
      ).status,
      200,
    );
    const body = '{"kind":"audit","msg":"login","t":1700000000}\n{"kind":"app","msg":"hello","t":1700000001}\n';
    const res = await ingest(url, 'table=events&pipeline_name=disp', body, ndjson);
    t.equal(res.status, 200);
    t.same(rowsOf((await sql(url, 'SELECT msg FROM events')).body), [['hello']]);
    t.same(
      rowsOf((await sql(url, 'SELECT msg FROM events_audit')).body),
      [['login']],
      'dispatched (through greptime_identity)',
    );
  });

  await t.test('a deleted pipeline leaves its table intact', async (t) => {
    const get = await fetch(`${url}/v1/pipelines/nginx`);
    const version = ((await get.json()) as { pipelines: Array<{ version: string }> }).pipelines[0]?.version as string;
    const del = await fetch(`${url}/v1/pipelines/nginx?version=${encodeURIComponent(version)}`, { method: 'DELETE' });
    t.equal(del.status, 200);
    const res = await ingest(
      url,
      'table=web&pipeline_name=nginx',
      JSON.stringify({ line: LINE('9.9.9.9', 200, 9) }),
      ndjson,
    );
    t.equal(res.status, 400, 'the pipeline is gone');
    t.equal(await count(url, 'web'), 3, 'the table keeps its rows');
  });
});
