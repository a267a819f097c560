/**
 * `/v1/pql` end to end: a PromQL range query answered through the `/v1/sql` output formats
 * (greptimedb_v1, csv, json, arrow), with GreptimeDB's column naming, URL-only parameters,
 * database selection and the native error body.
 */
import { tableFromIPC } from 'apache-arrow';
import t from 'tap';
import { remoteWrite } from '../helpers/prom-remote.js';
import { sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;
const T0_SECONDS = T0 / 1000;

interface PqlAnswer {
  status: number;
  text: string;
  headers: Headers;
  bytes: Uint8Array;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field.
  body: any;
}

async function pql(url: string, params: Record<string, string>, init: RequestInit = {}): Promise<PqlAnswer> {
  const res = await fetch(`${url}/v1/pql?${new URLSearchParams(params)}`, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = Buffer.from(bytes).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // csv, arrow, text errors
  }
  return { status: res.status, text, headers: res.headers, bytes, body };
}

t.test('/v1/pql', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  const written = await remoteWrite(url, [
    {
      labels: { __name__: 'node_up', instance: 'host1:9100', job: 'node' },
      samples: [0, 5, 10].map((s) => ({ value: 1, timestamp: T0 + s * 1000 })),
    },
    {
      labels: { __name__: 'node_up', instance: 'host2:9100', job: 'node' },
      samples: [0, 5, 10].map((s) => ({ value: 0, timestamp: T0 + s * 1000 })),
    },
  ]);
  t.equal(written.status, 204, written.text);
  for (const statement of [
    'CREATE TABLE cpu (ts TIMESTAMP TIME INDEX, host STRING, dc STRING, usage DOUBLE, PRIMARY KEY (host, dc))',
    "INSERT INTO cpu VALUES (1700000000000, 'a', 'east', 0.5), (1700000005000, 'a', 'east', 0.75), (1700000000000, 'b', 'west', 0.25)",
    'CREATE DATABASE other',
  ]) {
    const res = await sql(url, statement);
    t.equal(res.status, 200, res.text);
  }
  t.equal(
    (await sql(url, 'CREATE TABLE gauge (ts TIMESTAMP TIME INDEX, v DOUBLE)', 'other')).status,
    200,
    'table in another database',
  );
  t.equal((await sql(url, 'INSERT INTO gauge VALUES (1700000000000, 7)', 'other')).status, 200);
  const range = { start: String(T0_SECONDS), end: String(T0_SECONDS + 10), step: '5s' };

  t.test('a selector answers the table columns in table order, one row per sample', async (t) => {
    const answer = await pql(url, { query: 'node_up', ...range });
    t.equal(answer.status, 200, answer.text);
    t.equal(answer.headers.get('x-greptime-format'), 'greptimedb_v1');
    const records = answer.body.output[0].records;
    t.strictSame(records.schema.column_schemas, [
      { name: 'greptime_timestamp', data_type: 'TimestampMillisecond' },
      { name: 'greptime_value', data_type: 'Float64' },
      { name: 'instance', data_type: 'String' },
      { name: 'job', data_type: 'String' },
    ]);
    t.strictSame(records.rows, [
      [T0, 1, 'host1:9100', 'node'],
      [T0 + 5000, 1, 'host1:9100', 'node'],
      [T0 + 10_000, 1, 'host1:9100', 'node'],
      [T0, 0, 'host2:9100', 'node'],
      [T0 + 5000, 0, 'host2:9100', 'node'],
      [T0 + 10_000, 0, 'host2:9100', 'node'],
    ]);
    t.equal(records.total_rows, 6);
    t.match(answer.text, /"rows":\[\[1700000000000,1\.0,"host1:9100","node"\]/, 'floats keep a fraction');
  });

  t.test('an SQL table is queryable: tags as labels, the numeric field as the value', async (t) => {
    const answer = await pql(url, { query: 'cpu{dc="east"}', ...range });
    const records = answer.body.output[0].records;
    t.strictSame(
      records.schema.column_schemas.map((c: { name: string }) => c.name),
      ['ts', 'host', 'dc', 'usage'],
    );
    t.strictSame(records.rows, [
      [T0, 'a', 'east', 0.5],
      [T0 + 5000, 'a', 'east', 0.75],
      [T0 + 10_000, 'a', 'east', 0.75],
    ]);
  });

  t.test('aggregations answer grouping labels, time and the aggregate', async (t) => {
    const answer = await pql(url, { query: 'sum by (job) (node_up)', ...range });
    const records = answer.body.output[0].records;
    t.strictSame(records.schema.column_schemas, [
      { name: 'job', data_type: 'String' },
      { name: 'greptime_timestamp', data_type: 'TimestampMillisecond' },
      { name: 'sum(node_up.greptime_value)', data_type: 'Float64' },
    ]);
    t.strictSame(records.rows, [
      ['node', T0, 1],
      ['node', T0 + 5000, 1],
      ['node', T0 + 10_000, 1],
    ]);
    const counted = await pql(url, { query: 'count(node_up)', ...range });
    t.strictSame(counted.body.output[0].records.schema.column_schemas[1], {
      name: 'count(node_up.greptime_value)',
      data_type: 'Int64',
    });
    t.strictSame(counted.body.output[0].records.rows[0], [T0, 2]);
  });

  t.test('literals answer time and value; csv matches the reference', async (t) => {
    const answer = await pql(url, { query: '1', start: '0', end: '10', step: '5s', format: 'csv' });
    t.equal(answer.status, 200);
    t.equal(answer.headers.get('content-type'), 'text/csv; charset=utf-8');
    t.equal(answer.text, '0,1.0\r\n5000,1.0\r\n10000,1.0\r\n');
    const named = await pql(url, { query: '2 * 3', start: '0', end: '5', step: '5', format: 'csvWithNamesAndTypes' });
    t.equal(named.text, 'time,value\r\nTimestampMillisecond,Float64\r\n0,6.0\r\n5000,6.0\r\n');
  });

  t.test('json and arrow formats carry the same rows', async (t) => {
    const asJson = await pql(url, { query: 'node_up{instance="host2:9100"}', ...range, format: 'json' });
    t.strictSame(asJson.body.data[0], {
      greptime_timestamp: T0,
      greptime_value: 0,
      instance: 'host2:9100',
      job: 'node',
    });
    t.equal(asJson.body.data.length, 3);
    const asArrow = await pql(url, { query: 'node_up{instance="host2:9100"}', ...range, format: 'arrow' });
    t.equal(asArrow.headers.get('content-type'), 'application/arrow');
    const table = tableFromIPC(asArrow.bytes);
    t.strictSame(
      table.schema.fields.map((f) => f.name),
      ['greptime_timestamp', 'greptime_value', 'instance', 'job'],
    );
    t.equal(table.numRows, 3);
    t.strictSame(
      table.getChild('greptime_value')?.toArray() ? [...(table.getChild('greptime_value')?.toArray() ?? [])] : [],
      [0, 0, 0],
    );
  });

  t.test('times take RFC 3339 and fractional seconds; step and lookback take durations or seconds', async (t) => {
    const rfc = await pql(url, {
      query: 'node_up{instance="host1:9100"}',
      start: new Date(T0).toISOString(),
      end: new Date(T0 + 10_000).toISOString(),
      step: '0.5',
      format: 'csv',
    });
    t.equal(rfc.status, 200, rfc.text);
    t.equal(rfc.text.trim().split('\r\n').length, 21, 'a step of half a second');
    const shortLookback = await pql(url, {
      query: 'node_up{instance="host1:9100"}',
      start: String(T0_SECONDS + 1),
      end: String(T0_SECONDS + 3),
      step: '1',
      lookback: '1500ms',
      format: 'csv',
    });
    t.equal(
      shortLookback.text,
      `${T0 + 1000},1.0,host1:9100,node\r\n`,
      'only the step within the lookback of a sample',
    );
  });

  t.test('the database comes from db, else the header', async (t) => {
    const byParam = await pql(url, { query: 'gauge', ...range, db: 'other', format: 'csv' });
    t.equal(byParam.text.split('\r\n')[0], `${T0},7.0`);
    const byHeader = await pql(
      url,
      { query: 'gauge', ...range, format: 'csv' },
      { headers: { 'x-greptime-db-name': 'other' } },
    );
    t.equal(byHeader.text, byParam.text);
    const unknown = await pql(url, { query: 'gauge', ...range, db: 'nope' });
    t.equal(unknown.status, 400);
    t.strictSame([unknown.body.code, unknown.body.error], [4004, 'Database not found: nope']);
  });

  t.test('expressions without a table of their own still answer every sample', async (t) => {
    const vector = await pql(url, { query: 'vector(1)', ...range, format: 'csvWithNames' });
    t.equal(vector.text, `time,value\r\n${T0},1.0\r\n${T0 + 5000},1.0\r\n${T0 + 10_000},1.0\r\n`);
    const relabelled = await pql(url, {
      query: 'label_replace(node_up{instance="host1:9100"}, "site", "paris", "", "")',
      ...range,
    });
    const records = relabelled.body.output[0].records;
    t.strictSame(
      records.schema.column_schemas.map((c: { name: string }) => c.name),
      ['greptime_timestamp', 'label_replace(greptime_value)', 'instance', 'job', 'site'],
    );
    t.strictSame(records.rows[0], [T0, 1, 'host1:9100', 'node', 'paris']);
    const timesTime = await pql(url, { query: 'node_up{instance="host1:9100"} * time()', ...range });
    t.strictSame(timesTime.body.output[0].records.schema.column_schemas[1], {
      name: 'greptime_value * time()',
      data_type: 'Float64',
    });
    t.strictSame(timesTime.body.output[0].records.rows[0], [T0, T0_SECONDS, 'host1:9100', 'node']);
  });

  t.test('an unknown metric answers the literal columns and no rows', async (t) => {
    const answer = await pql(url, { query: 'no_such_metric', ...range });
    t.equal(answer.status, 200);
    t.strictSame(answer.body.output[0].records, {
      schema: {
        column_schemas: [
          { name: 'time', data_type: 'TimestampMillisecond' },
          { name: 'value', data_type: 'Float64' },
        ],
      },
      rows: [],
      total_rows: 0,
    });
  });

  t.test('parameters come only from the URL; missing ones are refused by name', async (t) => {
    const missing = await pql(url, { query: 'node_up', end: '10', step: '5' });
    t.equal(missing.status, 400);
    t.equal(missing.text, 'Failed to deserialize query string: missing field `start`');
    const formOnly = await fetch(`${url}/v1/pql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: 'node_up', ...range }).toString(),
    });
    t.equal(formOnly.status, 400, 'a form body is not read');
    t.equal(await formOnly.text(), 'Failed to deserialize query string: missing field `query`');
    const posted = await pql(url, { query: 'node_up', ...range, format: 'csv' }, { method: 'POST' });
    t.equal(posted.status, 200, 'POST with URL parameters works');
  });

  t.test('bad values answer the native error body with code 1004', async (t) => {
    for (const params of [
      { query: 'node_up', ...range, start: 'yesterday' },
      { query: 'node_up', ...range, step: 'often' },
      { query: 'node_up', ...range, step: '0' },
      { query: 'node_up', start: '0', end: '100000', step: '1' },
      { query: 'sum(node_up', ...range },
      { query: 'node_up', start: '10', end: '0', step: '1' },
    ]) {
      const answer = await pql(url, params);
      t.equal(answer.status, 400, JSON.stringify(params));
      t.equal(answer.body.code, 1004, answer.text);
      t.equal(answer.headers.get('x-greptime-err-code'), '1004');
    }
  });
});
