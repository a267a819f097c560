/**
 * `TQL EVAL|EXPLAIN|ANALYZE` through `/v1/sql`: PromQL inside SQL requests over data written by
 * SQL and by remote write, GreptimeDB's column naming, time parameters as numbers, strings and
 * SQL expressions, aliases, several statements per request, errors and `/v1/sql/format`.
 */
import t from 'tap';
import { remoteWrite } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

t.test('TQL over HTTP', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;

  for (const statement of [
    'CREATE TABLE test (i DOUBLE, j TIMESTAMP TIME INDEX, k STRING PRIMARY KEY)',
    "INSERT INTO test VALUES (1, 1, 'a'), (1, 1, 'b'), (2, 2, 'a')",
  ]) {
    t.equal((await sql(url, statement)).status, 200);
  }
  const nowMs = Math.floor(Date.now() / 1000) * 1000;
  const written = await remoteWrite(url, [
    { labels: { __name__: 'jobs_done', job: 'batch' }, samples: [{ value: 5, timestamp: nowMs - 60_000 }] },
  ]);
  t.equal(written.status, 204, written.text);

  t.test('TQL EVAL answers the table columns, series by series', async (t) => {
    const res = await sql(url, "TQL EVAL (0, 10, '5s') test");
    t.equal(res.status, 200, res.text);
    const records = res.body.output?.[0]?.records;
    t.strictSame(records?.schema.column_schemas, [
      { name: 'i', data_type: 'Float64' },
      { name: 'j', data_type: 'TimestampMillisecond' },
      { name: 'k', data_type: 'String' },
    ]);
    t.strictSame(records?.rows, [
      [2, 5000, 'a'],
      [2, 10_000, 'a'],
      [1, 5000, 'b'],
      [1, 10_000, 'b'],
    ]);
  });

  t.test('an alias names the value column and puts it first', async (t) => {
    const res = await sql(url, "tql eval (0, 10, '5s') count by (k) (test) AS c");
    const records = res.body.output?.[0]?.records;
    t.strictSame(records?.schema.column_schemas, [
      { name: 'c', data_type: 'Int64' },
      { name: 'k', data_type: 'String' },
      { name: 'j', data_type: 'TimestampMillisecond' },
    ]);
    t.strictSame(records?.rows[0], [1, 'a', 5000]);
  });

  t.test('functions and aggregations are named after GreptimeDB plans', async (t) => {
    const res = await sql(url, "TQL EVAL (0, 10, '5s') sum(test)");
    t.strictSame(
      res.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['j', 'sum(test.i)'],
    );
    t.strictSame(rowsOf(res.body), [
      [5000, 3],
      [10_000, 3],
    ]);
    const rate = await sql(url, "TQL EVAL (0, 10, '5s') rate(test[1m])");
    t.strictSame(
      rate.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['j', 'prom_rate(j_range,i,j,Int64(60000))', 'k'],
    );
  });

  t.test('time parameters take numbers, RFC 3339 strings and SQL expressions; lookback is optional', async (t) => {
    const fromStrings = await sql(url, "TQL EVAL ('1970-01-01T00:00:00Z', '1970-01-01T00:00:10Z', '5s') test{k=\"a\"}");
    t.strictSame(rowsOf(fromStrings.body), [
      [2, 5000, 'a'],
      [2, 10_000, 'a'],
    ]);
    const fromExpressions = await sql(
      url,
      "TQL EVAL ('1970-01-01T00:00:00'::timestamp, '1970-01-01T00:00:00'::timestamp + '2 seconds'::interval, 1) test{k=\"a\"}",
    );
    t.strictSame(rowsOf(fromExpressions.body), [
      [2, 1000, 'a'],
      [2, 2000, 'a'],
    ]);
    const shortLookback = await sql(url, "TQL EVAL (0, 10, '1s', '2s') test{k=\"a\"}");
    t.strictSame(rowsOf(shortLookback.body), [
      [2, 1000, 'a'],
      [2, 2000, 'a'],
    ]);
    const recent = await sql(url, "TQL EVAL (now() - '5 minutes'::interval, now(), '1m') jobs_done");
    t.equal(recent.status, 200, recent.text);
    const recentRows = rowsOf(recent.body);
    // The sample a minute ago is seen from its own time on: at the last one or two steps.
    t.ok(recentRows.length >= 1 && recentRows.length <= 2, recent.text);
    t.ok(
      recentRows.every((r) => r[1] === 5 && (r[0] as number) >= nowMs - 60_000),
      'evaluated around now',
    );
    t.strictSame(
      recent.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['greptime_timestamp', 'greptime_value', 'job'],
    );
  });

  t.test('literals answer time and value', async (t) => {
    const res = await sql(url, "TQL EVAL (0, 10, '5s') 1 + 1");
    t.strictSame(res.body.output?.[0]?.records?.schema.column_schemas, [
      { name: 'time', data_type: 'TimestampMillisecond' },
      { name: 'value', data_type: 'Float64' },
    ]);
    t.strictSame(rowsOf(res.body), [
      [0, 2],
      [5000, 2],
      [10_000, 2],
    ]);
  });

  t.test('TQL sits among other statements of a request', async (t) => {
    const res = await sql(url, 'SELECT 1; TQL EVAL (0, 5, \'5s\') test{k="b"}; SELECT 2');
    t.equal(res.status, 200, res.text);
    t.equal(res.body.output?.length, 3);
    t.strictSame(res.body.output?.[1]?.records?.rows, [[1, 5000, 'b']]);
    const csv = await fetch(
      `${url}/v1/sql?format=csv&sql=${encodeURIComponent('TQL EVAL (0, 5, \'5s\') test{k="b"}')}`,
    );
    t.equal(await csv.text(), '1.0,5000,b\r\n');
  });

  t.test('TQL EXPLAIN and ANALYZE describe the evaluation', async (t) => {
    const explain = await sql(url, "TQL EXPLAIN (0, 10, '5s') sum by (k) (test)");
    t.equal(explain.status, 200, explain.text);
    t.strictSame(
      explain.body.output?.[0]?.records?.schema.column_schemas.map((c) => c.name),
      ['plan_type', 'plan'],
    );
    t.match(rowsOf(explain.body)[0], ['logical_plan', /sum by \(k\) \(test\)/]);
    const analyze = await sql(url, "TQL ANALYZE VERBOSE (0, 10, '5s') test");
    t.match(rowsOf(analyze.body)[1], ['analyze', /output_rows: 4/]);
  });

  t.test('errors carry SQL codes', async (t) => {
    const syntax = await sql(url, "TQL EVAL (0, 10, '5s') sum(test");
    t.equal(syntax.status, 400);
    t.equal(syntax.body.code, 2000, syntax.text);
    const params = await sql(url, 'TQL EVAL (0, 10) test');
    t.equal(params.body.code, 2000);
    t.match(params.body.error, /Expected 3 or 4 expressions in TQL parameters/);
    const badTime = await sql(url, "TQL EVAL ('soon', 10, '5s') test");
    t.equal(badTime.body.code, 1004);
    const badStep = await sql(url, "TQL EVAL (0, 10, '0s') test");
    t.equal(badStep.body.code, 1004);
    const badField = await sql(url, 'TQL EVAL (0, 10, \'5s\') test{__field__="nope"}');
    t.strictSame([badField.body.code, badField.body.error], [1004, 'Cannot find column nope']);
    const unknownVerb = await sql(url, "TQL RUN (0, 10, '5s') test");
    t.equal(unknownVerb.body.code, 1001);
  });

  t.test('/v1/sql/format prints TQL back', async (t) => {
    const res = await fetch(`${url}/v1/sql/format?sql=${encodeURIComponent("tql eval (0, 10, '5s') test AS x")}`);
    t.strictSame(await res.json(), { formatted: "TQL EVAL ('0', '10', '5s') test AS x;" });
  });
});
