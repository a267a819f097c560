/**
 * Splunk HTTP Event Collector under `/v1/eventcollector`: Splunk's own JavaScript logger
 * (`splunk-logging`, pointed at our URL) sends batched events, and hand-built requests cover
 * concatenated and array batches, raw text, health, the `/1.0` aliases, `Splunk user:pass`
 * authentication and Splunk's status codes, each refusal storing nothing.
 */
import { Logger } from 'splunk-logging';
import t from 'tap';
import { parseJsonExact, parseJsonOrUndefined } from '../helpers/json.js';
import { type SqlBody, sql, startServer, tempDir } from '../helpers/server.js';

const BASE = '/v1/eventcollector/services/collector';

async function post(url: string, path: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${BASE}${path}`, { method: 'POST', body, headers });
  const text = await res.text();
  const json = parseJsonOrUndefined(text);
  return { status: res.status, text, json, contentType: res.headers.get('content-type') };
}

/** Runs SQL and parses the answer keeping 64-bit integers exact (as decimal strings). */
async function exactRows(url: string, statement: string, headers: Record<string, string> = {}): Promise<unknown[][]> {
  const res = await sql(url, statement, undefined, headers);
  const rows = (parseJsonExact(res.text) as SqlBody).output?.[0]?.records?.rows;
  if (!rows) throw new Error(`${statement}: ${res.text}`);
  return rows;
}

async function describe(url: string, table: string): Promise<unknown[][]> {
  return (await exactRows(url, `DESC TABLE ${table}`)).map((r) => [r[0], r[1], r[5]]);
}

async function metricValue(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Sends one batch through splunk-logging and resolves with what the server answered. */
function sendWithLogger(logger: Logger, contexts: Parameters<Logger['send']>[0][]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    logger.error = (err) => reject(err);
    for (const c of contexts.slice(0, -1)) logger.send(c);
    logger.send(contexts[contexts.length - 1] as Parameters<Logger['send']>[0], (err, _response, body) => {
      if (err) reject(err);
      else resolve(body);
    });
  });
}

t.test('event collector', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  t.test("Splunk's JavaScript logger sends a batch that is stored with its metadata", async (t) => {
    const logger = new Logger({
      token: 'unused-without-auth',
      url: `${url}${BASE}/event/1.0`,
      maxBatchCount: 3,
    });
    const body = await sendWithLogger(logger, [
      {
        message: 'first',
        metadata: { time: 1700000000123, host: 'web-01', source: 'app', sourcetype: 'log', index: 'client_logs' },
      },
      {
        message: { user: 'u1', ok: true },
        severity: 'warn',
        metadata: { time: 1700000001000, host: 'web-02', index: 'client_logs' },
      },
      { message: 'third', severity: 'error', metadata: { time: 1700000002500, index: 'client_logs' } },
    ]);
    t.same(body, { text: 'Success', code: 0 });
    t.same(await describe(url, 'client_logs'), [
      ['greptime_timestamp', 'TimestampNanosecond', 'TIMESTAMP'],
      ['host', 'String', 'TAG'],
      ['source', 'String', 'TAG'],
      ['sourcetype', 'String', 'TAG'],
      ['event', 'String', 'FIELD'],
    ]);
    t.same(await exactRows(url, 'SELECT * FROM client_logs ORDER BY greptime_timestamp'), [
      ['1700000000123000000', 'web-01', 'app', 'log', '{"message":"first","severity":"info"}'],
      ['1700000001000000000', 'web-02', null, null, '{"message":{"user":"u1","ok":true},"severity":"warn"}'],
      ['1700000002500000000', null, null, null, '{"message":"third","severity":"error"}'],
    ]);
    t.same(
      await exactRows(
        url,
        "SELECT json_get_string(parse_json(event), 'severity') FROM client_logs ORDER BY greptime_timestamp",
      ),
      [['info'], ['warn'], ['error']],
    );
  });

  t.test('concatenated events, arrays and mixes of both are one batch', async (t) => {
    const body =
      '{"event":"login ok","time":1700000000,"host":"web-01","sourcetype":"syslog","fields":{"region":"us-east","n":3}}' +
      '{"event":"login fail","time":1700000001.5,"host":"web-02"}\n  ' +
      '[{"event":"a","time":"1426279439.123456789"},{"event":"b","time":1447828325000}]\t' +
      '{"event":{"nested":{"k":[1,2]}},"time":1700000003,"fields":{"multi":["x","y"]},"ignored_key":1}';
    const res = await post(url, '/event', body);
    t.equal(res.status, 200, res.text);
    t.same(res.json, { text: 'Success', code: 0 });
    t.equal(res.contentType, 'application/json');
    t.same(await describe(url, 'splunk_logs'), [
      ['greptime_timestamp', 'TimestampNanosecond', 'TIMESTAMP'],
      ['host', 'String', 'TAG'],
      ['sourcetype', 'String', 'TAG'],
      ['region', 'String', 'TAG'],
      ['n', 'String', 'TAG'],
      ['multi', 'String', 'TAG'],
      ['event', 'String', 'FIELD'],
    ]);
    t.same(await exactRows(url, 'SELECT * FROM splunk_logs ORDER BY greptime_timestamp'), [
      ['1426279439123456789', null, null, null, null, null, 'a'],
      ['1447828325000000000', null, null, null, null, null, 'b'],
      ['1700000000000000000', 'web-01', 'syslog', 'us-east', '3', null, 'login ok'],
      ['1700000001500000000', 'web-02', null, null, null, null, 'login fail'],
      ['1700000003000000000', null, null, null, null, '["x","y"]', '{"nested":{"k":[1,2]}}'],
    ]);
    const show = await exactRows(url, 'SHOW CREATE TABLE splunk_logs');
    t.match(
      String(show[0]?.[1]),
      /PRIMARY KEY \("host", "sourcetype", "region", "n", "multi"\)[\s\S]*append_mode = 'true'/,
    );
  });

  t.test('index picks the table (sanitized), then ?index=, then ?table=; events without time get now', async (t) => {
    const before = BigInt(Date.now()) * 1_000_000n;
    let res = await post(url, '', '{"event":"to web","index":"web/prod"}{"event":"to default"}', {});
    t.equal(res.status, 200, res.text);
    res = await post(url, '?table=from_query', '{"event":"q"}');
    t.equal(res.status, 200, res.text);
    res = await post(url, '?index=idx_param&table=ignored', '{"event":"i"}');
    t.equal(res.status, 200, res.text);
    const after = BigInt(Date.now()) * 1_000_000n;
    const [row] = await exactRows(url, 'SELECT greptime_timestamp, event FROM web_prod');
    t.equal(row?.[1], 'to web');
    const ts = BigInt(row?.[0] as string);
    t.ok(ts >= before && ts <= after, 'stamped with the time of the request');
    t.same(await exactRows(url, "SELECT event FROM splunk_logs WHERE event = 'to default'"), [['to default']]);
    t.same(await exactRows(url, 'SELECT event FROM from_query'), [['q']]);
    t.same(await exactRows(url, 'SELECT event FROM idx_param'), [['i']]);
  });

  t.test('raw text: one event per line with metadata, time and channel from the URL', async (t) => {
    const channel = '0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba';
    const res = await post(
      url,
      `/raw?host=h1&source=s1&sourcetype=access&index=raw_logs&time=1700000000.25&channel=${channel}`,
      'GET /a 200\r\n\nGET /b 404\n   \nlast line',
    );
    t.equal(res.status, 200, res.text);
    t.same(res.json, { text: 'Success', code: 0 });
    const alias = await post(url, '/raw/1.0?index=raw_logs&time=1700000001', 'from the alias', {
      'x-splunk-request-channel': channel,
    });
    t.equal(alias.status, 200, alias.text);
    const broken = await post(url, '/raw?index=raw_logs&linebreaker=%7C%7C&time=1700000002', 'one||two||');
    t.equal(broken.status, 200, broken.text);
    t.same(
      await exactRows(
        url,
        'SELECT greptime_timestamp, host, source, sourcetype, event FROM raw_logs ORDER BY greptime_timestamp, event',
      ),
      [
        ['1700000000250000000', 'h1', 's1', 'access', 'GET /a 200'],
        ['1700000000250000000', 'h1', 's1', 'access', 'GET /b 404'],
        ['1700000000250000000', 'h1', 's1', 'access', 'last line'],
        ['1700000001000000000', null, null, null, 'from the alias'],
        ['1700000002000000000', null, null, null, 'one'],
        ['1700000002000000000', null, null, null, 'two'],
      ],
    );
  });

  t.test('health answers code 17 on both paths', async (t) => {
    for (const path of ['/health', '/health/1.0', '/health?ack=true']) {
      const res = await fetch(`${url}${BASE}${path}`);
      t.equal(res.status, 200, path);
      t.same(await res.json(), { text: 'HEC is healthy', code: 17 }, path);
    }
  });

  t.test("Splunk's codes for bad requests, and nothing of a bad batch is stored", async (t) => {
    const table = 'hec_guard';
    t.equal((await post(url, `?table=${table}`, '{"event":"kept","time":1}')).status, 200);
    const good = '{"event":"ok","time":2}';
    const cases: Array<{
      name: string;
      path?: string;
      body: string | Buffer;
      headers?: Record<string, string>;
      status: number;
      json: unknown;
    }> = [
      { name: 'empty body', body: '', status: 400, json: { text: 'No data', code: 5 } },
      { name: 'only whitespace', body: ' \n\t ', status: 400, json: { text: 'No data', code: 5 } },
      { name: 'empty array', body: '[]', status: 400, json: { text: 'No data', code: 5 } },
      {
        name: 'invalid JSON after two good events',
        body: `${good}${good}{"event": nope}`,
        status: 400,
        json: { text: 'Invalid data format', code: 6, 'invalid-event-number': 2 },
      },
      {
        name: 'unterminated object',
        body: `${good}{"event":"x"`,
        status: 400,
        json: { text: 'Invalid data format', code: 6, 'invalid-event-number': 1 },
      },
      {
        name: 'event that is not an object',
        body: `${good} "just text"`,
        status: 400,
        json: { text: 'Invalid data format', code: 6, 'invalid-event-number': 1 },
      },
      {
        name: 'missing event',
        body: `[${good},${good},{"time":3,"host":"h"}]`,
        status: 400,
        json: { text: 'Event field is required', code: 12, 'invalid-event-number': 2 },
      },
      {
        name: 'blank event',
        body: `${good}{"event":"   "}`,
        status: 400,
        json: { text: 'Event field cannot be blank', code: 13, 'invalid-event-number': 1 },
      },
      {
        name: 'null event',
        body: '{"event":null}',
        status: 400,
        json: { text: 'Event field cannot be blank', code: 13, 'invalid-event-number': 0 },
      },
      {
        name: 'time that is not a number',
        body: `${good}{"event":"x","time":"yesterday"}`,
        status: 400,
        json: { text: 'Invalid data format', code: 6, 'invalid-event-number': 1 },
      },
      {
        name: 'host that is not a string',
        body: `${good}{"event":"x","host":42}`,
        status: 400,
        json: { text: 'Invalid data format', code: 6, 'invalid-event-number': 1 },
      },
      {
        name: 'index too long to name a table',
        body: `${good}{"event":"x","index":"${'i'.repeat(300)}"}`,
        status: 400,
        json: { text: 'Incorrect index', code: 7, 'invalid-event-number': 1 },
      },
      {
        name: 'nested indexed field',
        body: `${good}{"event":"x","fields":{"a":{"b":1}}}`,
        status: 400,
        json: { text: 'Error in handling indexed fields', code: 15, 'invalid-event-number': 1 },
      },
      {
        name: 'indexed field named like a column',
        body: `${good}{"event":"x","fields":{"event":"y"}}`,
        status: 400,
        json: { text: 'Error in handling indexed fields', code: 15, 'invalid-event-number': 1 },
      },
      {
        name: 'bad ?table=',
        path: '?table=a%20b',
        body: good,
        status: 400,
        json: { text: 'Incorrect index', code: 7 },
      },
      {
        name: 'channel that is not a GUID',
        body: good,
        headers: { 'x-splunk-request-channel': 'not-a-guid' },
        status: 400,
        json: { text: 'Invalid data channel', code: 11 },
      },
      {
        name: 'unknown content encoding',
        body: good,
        headers: { 'content-encoding': 'snappy' },
        status: 415,
        json: { text: 'Unsupported Content-Encoding: snappy', code: 6 },
      },
      { name: 'raw body of blank lines', path: '/raw', body: '\n \n', status: 400, json: { text: 'No data', code: 5 } },
      {
        name: 'raw body that is not UTF-8',
        path: '/raw',
        body: Buffer.from([0x66, 0xff, 0xfe]),
        status: 400,
        json: { text: 'Invalid data format', code: 6 },
      },
      {
        name: 'raw with a bad time',
        path: '/raw?time=soon',
        body: 'x',
        status: 400,
        json: { text: 'Invalid data format', code: 6 },
      },
    ];
    for (const c of cases) {
      const path = c.path ?? `/event?table=${table}`;
      const target = path.startsWith('/raw') ? `${path}${path.includes('?') ? '&' : '?'}table=${table}` : path;
      const res = await post(url, target, c.body, c.headers ?? {});
      t.equal(res.status, c.status, `${c.name}: status (${res.text})`);
      t.same(res.json, c.json, `${c.name}: body`);
    }
    t.same(await exactRows(url, `SELECT event FROM ${table}`), [['kept']], 'only the first good event is stored');
  });

  t.test('a batch conflicting with the table is refused with code 6 and the reason', async (t) => {
    t.equal(
      (await sql(url, 'CREATE TABLE typed_events (greptime_timestamp TIMESTAMP(9) TIME INDEX, event BIGINT)')).status,
      200,
    );
    const res = await post(url, '/event?table=typed_events', '{"event":"text"}');
    t.equal(res.status, 400, res.text);
    t.match(res.json, { code: 6, text: /column event expect type Int64/ });
    const missingDb = await post(url, '/event', '{"event":"x"}', { 'x-greptime-db-name': 'no_such_db' });
    t.equal(missingDb.status, 400);
    t.match(missingDb.json, { code: 6, text: /no_such_db/ });
  });

  t.test('through a named pipeline (query or header); an unknown one is code 8', async (t) => {
    const yaml = [
      'processors:',
      '  - dissect:',
      '      field: event',
      "      pattern: '%{user} %{action}'",
      'transform:',
      '  - fields: [host, user, action]',
      '    type: string',
      '  - field: greptime_timestamp',
      '    type: time',
      '    index: timestamp',
    ].join('\n');
    const created = await fetch(`${url}/v1/pipelines/hec_dissect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-yaml' },
      body: yaml,
    });
    t.equal(created.status, 200, await created.clone().text());
    const body = '{"event":"alice login","time":1700000000,"host":"web-1"}{"event":"bob logout","time":1700000001.5}';
    const res = await post(url, '/event?table=hec_piped&pipeline_name=hec_dissect', body);
    t.same(res.json, { text: 'Success', code: 0 });
    const raw = await post(url, '/raw?table=hec_piped&host=web-2&time=1700000002', 'carol login', {
      'x-greptime-pipeline-name': 'hec_dissect',
    });
    t.equal(raw.status, 200, raw.text);
    const rows = await sql(
      url,
      'SELECT host, "user", action, greptime_timestamp FROM hec_piped ORDER BY greptime_timestamp',
    );
    t.same((rows.body as SqlBody).output?.[0]?.records?.rows, [
      ['web-1', 'alice', 'login', 1700000000000000000],
      [null, 'bob', 'logout', 1700000001500000000],
      ['web-2', 'carol', 'login', 1700000002000000000],
    ]);
    const unknown = await post(url, '/event?table=hec_piped&pipeline_name=nope', '{"event":"x y"}');
    t.equal(unknown.status, 500);
    t.match(unknown.json, { code: 8, text: /pipeline error/ });
    const bad = await post(url, '/event?table=hec_piped&pipeline_name=hec_dissect', '{"event":"nospace"}');
    t.equal(bad.status, 400);
    t.match(bad.json, { code: 6 });
  });

  t.test('requests, rows and bytes are counted under protocol "hec"', async (t) => {
    const rows = await metricValue(url, 'shoaldb_ingest_rows_total', 'protocol="hec"');
    const bytes = await metricValue(url, 'shoaldb_ingest_bytes_total', 'protocol="hec"');
    const body = '{"event":"m1"}{"event":"m2"}';
    t.equal((await post(url, '/event?table=counted', body)).status, 200);
    t.equal(await metricValue(url, 'shoaldb_ingest_rows_total', 'protocol="hec"'), rows + 2);
    t.equal(await metricValue(url, 'shoaldb_ingest_bytes_total', 'protocol="hec"'), bytes + body.length);
    t.ok((await metricValue(url, 'shoaldb_ingest_requests_total', 'protocol="hec",outcome="ok"')) >= 1);
    t.ok((await metricValue(url, 'shoaldb_ingest_requests_total', 'protocol="hec",outcome="rejected"')) >= 1);
  });
});

t.test('event collector with users: Splunk tokens are user:password', async (t) => {
  const server = await startServer({
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret,reader:ro=rpw"',
    httpToml: 'body_limit = "1KiB"',
  });
  t.teardown(() => server.stop());
  const url = server.url;
  const splunk = { authorization: 'Splunk admin:s3cret' };

  t.same((await post(url, '/event', '{"event":"x"}')).json, { text: 'Token is required', code: 2 });
  t.equal((await post(url, '/event', '{"event":"x"}')).status, 401);
  const wrong = await post(url, '/event', '{"event":"x"}', { authorization: 'Splunk admin:nope' });
  t.equal(wrong.status, 403);
  t.same(wrong.json, { text: 'Invalid token', code: 4 });
  const reader = await post(url, '/event', '{"event":"x"}', { authorization: 'Splunk reader:rpw' });
  t.equal(reader.status, 403);
  t.match(reader.json, { code: 4 });

  const health = await fetch(`${url}${BASE}/health`);
  t.equal(health.status, 200, 'health needs no token');

  t.equal((await post(url, '/event', '{"event":"by splunk token"}', splunk)).status, 200);
  const basic = { authorization: `Basic ${Buffer.from('admin:s3cret').toString('base64')}` };
  t.equal((await post(url, '/raw', 'by basic auth', basic)).status, 200);

  const logger = new Logger({ token: 'admin:s3cret', url: `${url}${BASE}/event` });
  t.same(await sendWithLogger(logger, [{ message: 'via logger' }]), { text: 'Success', code: 0 });

  const big = await post(url, '/event', JSON.stringify({ event: 'x'.repeat(2000) }), splunk);
  t.equal(big.status, 413, 'bodies over the limit are refused');
  t.same(
    (await exactRows(url, 'SELECT event FROM splunk_logs ORDER BY event', basic)).map((r) => r[0]),
    ['by basic auth', 'by splunk token', '{"message":"via logger","severity":"info"}'],
  );
});

t.test('acknowledged events survive SIGKILL', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  const res = await post(server.url, '/event', '{"event":"durable","time":1700000000.5,"host":"h"}');
  t.same(res.json, { text: 'Success', code: 0 });
  await server.kill();
  server = await startServer({ dataDir });
  t.same(await exactRows(server.url, 'SELECT * FROM splunk_logs'), [['1700000000500000000', 'h', 'durable']]);
});
