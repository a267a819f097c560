/**
 * OpenTSDB put (`POST /v1/tsjson/api/put`): single points and arrays, seconds and milliseconds
 * timestamps, `summary` and `details` answers with per-point errors, and malformed bodies refused
 * with a clear 4xx that stores nothing.
 */
import zlib from 'node:zlib';
import t from 'tap';
import { parseJsonOrUndefined } from '../helpers/json.js';
import { type SqlBody, sql, startServer, tempDir } from '../helpers/server.js';

const PUT = '/v1/tsjson/api/put';

async function put(url: string, body: unknown, query = '', headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${PUT}${query ? `?${query}` : ''}`, {
    method: 'POST',
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    headers,
  });
  const text = await res.text();
  const json = parseJsonOrUndefined(text);
  return { status: res.status, text, json };
}

async function rows(url: string, statement: string): Promise<unknown[][]> {
  const res = await sql(url, statement);
  const out = (res.body as SqlBody).output?.[0]?.records?.rows;
  if (!out) throw new Error(`${statement}: ${res.text}`);
  return out;
}

async function tableNames(url: string): Promise<string[]> {
  return (await rows(url, 'SHOW TABLES')).map((r) => r[0] as string);
}

async function metricValue(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

t.test('OpenTSDB put', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  t.test('one point: 204 and a table named after the metric with tags as tag columns', async (t) => {
    const res = await put(url, {
      metric: 'sys.cpu.nice',
      timestamp: 1346846400,
      value: 18,
      tags: { host: 'web01', dc: 'lga' },
    });
    t.equal(res.status, 204, res.text);
    t.equal(res.text, '');
    t.same(
      (await rows(url, 'DESC TABLE "sys.cpu.nice"')).map((r) => [r[0], r[1], r[5]]),
      [
        ['greptime_timestamp', 'TimestampMillisecond', 'TIMESTAMP'],
        ['greptime_value', 'Float64', 'FIELD'],
        ['dc', 'String', 'TAG'],
        ['host', 'String', 'TAG'],
      ],
    );
    t.same(await rows(url, 'SELECT * FROM "sys.cpu.nice"'), [[1346846400000, 18, 'lga', 'web01']]);
  });

  t.test('an array mixes seconds and milliseconds by magnitude, as OpenTSDB does', async (t) => {
    const res = await put(url, [
      { metric: 'ts_rule', timestamp: 1346846400, value: 1, tags: { k: 'seconds' } },
      { metric: 'ts_rule', timestamp: 1346846400123, value: 2, tags: { k: 'ms' } },
      { metric: 'ts_rule', timestamp: 4294967295, value: 3, tags: { k: 'last_seconds' } },
      { metric: 'ts_rule', timestamp: 4294967296, value: 4, tags: { k: 'first_ms' } },
      { metric: 'ts_rule', timestamp: '1346846401', value: '5.5', tags: { k: 'strings' } },
      { metric: 'ts_rule', timestamp: 1346846402, value: -1.25e3, tags: {} },
    ]);
    t.equal(res.status, 204, res.text);
    t.same(await rows(url, 'SELECT k, greptime_timestamp, greptime_value FROM ts_rule ORDER BY greptime_timestamp'), [
      ['first_ms', 4294967296, 4],
      ['seconds', 1346846400000, 1],
      ['ms', 1346846400123, 2],
      ['strings', 1346846401000, 5.5],
      [null, 1346846402000, -1250],
      ['last_seconds', 4294967295000, 3],
    ]);
  });

  t.test('a point sent again for the same series and time replaces the earlier value', async (t) => {
    const point = { metric: 'replaced', timestamp: 1346846400, tags: { host: 'a' } };
    t.equal((await put(url, { ...point, value: 1 })).status, 204);
    t.equal((await put(url, { ...point, value: 2 })).status, 204);
    t.same(await rows(url, 'SELECT greptime_value FROM replaced'), [[2]]);
  });

  t.test('summary counts, details lists the bad points; good points are stored', async (t) => {
    const ok = { metric: 'summary_m', timestamp: 1346846400, value: 1, tags: { host: 'a' } };
    const summary = await put(url, [ok, { ...ok, timestamp: 1346846401, value: 2 }], 'summary');
    t.equal(summary.status, 200, summary.text);
    t.same(summary.json, { success: 2, failed: 0 });

    const bad = { metric: 'summary_m', timestamp: 1346846402, value: 'abc', tags: { host: 'a' } };
    const mixed = await put(url, [{ ...ok, timestamp: 1346846403 }, bad], 'summary');
    t.equal(mixed.status, 400, mixed.text);
    t.same(mixed.json, { success: 1, failed: 1 });

    const noTags = { metric: 'details_m', timestamp: 1346846400, value: 3 };
    const details = await put(
      url,
      [bad, { metric: 'details_m', timestamp: 1346846400, value: 7, tags: { host: 'b' } }, noTags],
      'details',
    );
    t.equal(details.status, 400, details.text);
    t.same(details.json, {
      success: 1,
      failed: 2,
      errors: [
        { datapoint: bad, error: 'Unable to parse value to a number: "abc"' },
        { datapoint: noTags, error: 'Missing tags' },
      ],
    });
    const clean = await put(url, [ok], 'details=true&summary=true');
    t.equal(clean.status, 200);
    t.same(clean.json, { success: 1, failed: 0, errors: [] });

    t.same(await rows(url, 'SELECT greptime_timestamp, greptime_value FROM summary_m ORDER BY greptime_timestamp'), [
      [1346846400000, 1],
      [1346846401000, 2],
      [1346846403000, 1],
    ]);
    t.same(await rows(url, 'SELECT host, greptime_value FROM details_m'), [['b', 7]]);
  });

  t.test('without summary or details, one bad point refuses the request, naming it', async (t) => {
    const res = await put(url, [
      { metric: 'strict_m', timestamp: 1346846400, value: 1, tags: { host: 'a' } },
      { metric: 'strict_m', timestamp: 1346846400.5, value: 1, tags: { host: 'a' } },
    ]);
    t.equal(res.status, 400, res.text);
    t.same(res.json, { error: 'Invalid data point 1 (metric "strict_m"): Invalid timestamp: 1346846400.5' });
    t.notOk((await tableNames(url)).includes('strict_m'), 'nothing stored');
  });

  t.test('a metric whose table refuses the write fails alone under details', async (t) => {
    t.equal(
      (await sql(url, 'CREATE TABLE conflict_m (greptime_timestamp TIMESTAMP(3) TIME INDEX, greptime_value STRING)'))
        .status,
      200,
    );
    const conflicting = { metric: 'conflict_m', timestamp: 1346846400, value: 1, tags: {} };
    const fine = { metric: 'fine_m', timestamp: 1346846400, value: 1, tags: {} };
    const res = await put(url, [conflicting, fine], 'details');
    t.equal(res.status, 400, res.text);
    t.match(res.json, {
      success: 1,
      failed: 1,
      errors: [{ datapoint: conflicting, error: /column greptime_value expect type String/ }],
    });
    t.same(await rows(url, 'SELECT greptime_value FROM fine_m'), [[1]]);
    t.same(await rows(url, 'SELECT count(*) FROM conflict_m'), [[0]]);

    const plain = await put(url, conflicting);
    t.equal(plain.status, 400, 'a refused write is a 400 with its reason, not a masked 500');
    t.match(plain.json, { error: /column greptime_value expect type String/ });
  });

  t.test('malformed bodies and points get a clear 400 and store nothing', async (t) => {
    const good = { metric: 'guard_m', timestamp: 1346846400, value: 1, tags: { host: 'a' } };
    const cases: Array<{
      name: string;
      body: unknown;
      headers?: Record<string, string>;
      status: number;
      error: RegExp;
    }> = [
      { name: 'invalid JSON', body: '[{"metric": "guard_m"', status: 400, error: /^Invalid OpenTSDB Json request: / },
      { name: 'empty body', body: '', status: 400, error: /^Invalid OpenTSDB Json request: / },
      { name: 'a number', body: '42', status: 400, error: /expected a data point object or an array/ },
      {
        name: 'point not an object',
        body: [good, 'x'],
        status: 400,
        error: /data point 1: Invalid data point: expected a JSON object/,
      },
      {
        name: 'missing metric',
        body: [good, { ...good, metric: undefined }],
        status: 400,
        error: /data point 1: Metric name was empty/,
      },
      {
        name: 'illegal metric character',
        body: [good, { ...good, metric: 'a b' }],
        status: 400,
        error: /Invalid metric name \("a b"\): illegal character: " "/,
      },
      {
        name: 'missing timestamp',
        body: [good, { ...good, timestamp: undefined }],
        status: 400,
        error: /Missing timestamp/,
      },
      {
        name: 'negative timestamp',
        body: [good, { ...good, timestamp: -5 }],
        status: 400,
        error: /Invalid timestamp: -5/,
      },
      {
        name: 'timestamp past 13 digits',
        body: [good, { ...good, timestamp: 99999999999999 }],
        status: 400,
        error: /Timestamp is too large/,
      },
      { name: 'missing value', body: [good, { ...good, value: undefined }], status: 400, error: /Empty value/ },
      {
        name: 'boolean value',
        body: [good, { ...good, value: true }],
        status: 400,
        error: /Unable to parse value to a number: true/,
      },
      {
        name: 'NaN value',
        body: [good, { ...good, value: 'NaN' }],
        status: 400,
        error: /Unable to parse value to a number: "NaN"/,
      },
      { name: 'tags not an object', body: [good, { ...good, tags: ['a'] }], status: 400, error: /Invalid tags/ },
      {
        name: 'tag value not a string',
        body: [good, { ...good, tags: { host: 1 } }],
        status: 400,
        error: /Invalid tag value for "host": expected a string/,
      },
      {
        name: 'empty tag value',
        body: [good, { ...good, tags: { host: '' } }],
        status: 400,
        error: /Invalid tag value: empty/,
      },
      {
        name: 'tag named like the value column',
        body: [good, { ...good, tags: { greptime_value: 'x' } }],
        status: 400,
        error: /Invalid tag name \("greptime_value"\): reserved/,
      },
      {
        name: 'unknown content encoding',
        body: [good],
        headers: { 'content-encoding': 'snappy' },
        status: 415,
        error: /Unsupported Content-Encoding: snappy/,
      },
    ];
    for (const c of cases) {
      const res = await put(url, c.body, '', c.headers ?? {});
      t.equal(res.status, c.status, `${c.name}: status (${res.text})`);
      t.match((res.json as { error?: string } | undefined)?.error, c.error, `${c.name}: message`);
    }
    t.notOk((await tableNames(url)).includes('guard_m'), 'nothing of any of them is stored');
  });

  t.test('gzip bodies and the db parameter are honoured; requests are counted under "opentsdb"', async (t) => {
    const before = await metricValue(url, 'shoaldb_ingest_rows_total', 'protocol="opentsdb"');
    t.equal((await sql(url, 'CREATE DATABASE tsdb')).status, 200);
    const body = zlib.gzipSync(JSON.stringify([{ metric: 'gz_m', timestamp: 1346846400, value: 9, tags: { a: 'b' } }]));
    const res = await put(url, body, 'db=tsdb', { 'content-encoding': 'gzip' });
    t.equal(res.status, 204, res.text);
    const inDb = await sql(url, 'SELECT greptime_value, a FROM gz_m', 'tsdb');
    t.same(inDb.body.output?.[0]?.records?.rows, [[9, 'b']]);
    t.equal(await metricValue(url, 'shoaldb_ingest_rows_total', 'protocol="opentsdb"'), before + 1);
    t.ok((await metricValue(url, 'shoaldb_ingest_requests_total', 'protocol="opentsdb",outcome="rejected"')) >= 1);
    t.ok((await metricValue(url, 'shoaldb_ingest_bytes_total', 'protocol="opentsdb"')) > 0);
  });
});

t.test('OpenTSDB put under a body limit and authentication', async (t) => {
  const server = await startServer({
    httpToml: 'body_limit = "1KiB"',
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret"',
  });
  t.teardown(() => server.stop());
  const auth = { authorization: `Basic ${Buffer.from('admin:s3cret').toString('base64')}` };
  const point = { metric: 'limited', timestamp: 1346846400, value: 1, tags: { host: 'a' } };
  t.equal((await put(server.url, point)).status, 401, 'credentials are required');
  t.equal((await put(server.url, point, '', auth)).status, 204);
  const many = Array.from({ length: 30 }, (_, i) => ({ ...point, timestamp: 1346846401 + i }));
  const big = await put(server.url, many, '', auth);
  t.equal(big.status, 413, big.text);
  const res = await sql(server.url, 'SELECT count(*) FROM limited', undefined, auth);
  t.same(res.body.output?.[0]?.records?.rows, [[1]]);
});

t.test('acknowledged points survive SIGKILL', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  t.teardown(() => server.stop());
  const res = await put(server.url, [
    { metric: 'durable_m', timestamp: 1346846400123, value: 4.5, tags: { host: 'h' } },
  ]);
  t.equal(res.status, 204, res.text);
  await server.kill();
  server = await startServer({ dataDir });
  t.same(await rows(server.url, 'SELECT * FROM durable_m'), [[1346846400123, 4.5, 'h']]);
});
