import t from 'tap';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

t.test('a line-protocol write is read back through SQL in greptimedb_v1 JSON', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());

  const w = await writeLines(server.url, 'cpu,host=a,region=eu usage=0.5,count=3i 1700000000000');
  t.equal(w.status, 204);
  t.equal(w.text, '');

  const res = await sql(server.url, 'SELECT host, usage, count FROM cpu');
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-greptime-format'), 'greptimedb_v1');
  t.ok(res.headers.get('x-greptime-execution-time'));
  const rec = res.body.output?.[0]?.records;
  t.same(rec?.schema.column_schemas, [
    { name: 'host', data_type: 'String' },
    { name: 'usage', data_type: 'Float64' },
    { name: 'count', data_type: 'Int64' },
  ]);
  t.same(rec?.rows, [['a', 0.5, 3]]);
  t.equal(rec?.total_rows, 1);
  t.type(res.body.execution_time_ms, 'number');
});

t.test('GET /v1/sql works with URL parameters', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  await writeLines(server.url, 'm,host=x v=1 1000\nm,host=y v=2 2000', 'db=public&precision=s');
  const res = await fetch(
    `${server.url}/v1/sql?sql=${encodeURIComponent('SELECT host, v, greptime_timestamp FROM m ORDER BY host')}`,
  );
  t.equal(res.status, 200);
  const body = (await res.json()) as Parameters<typeof rowsOf>[0];
  t.same(rowsOf(body), [
    ['x', 1, 1000_000_000_000],
    ['y', 2, 2000_000_000_000],
  ]);
  t.equal(body.output?.[0]?.records?.schema.column_schemas[2]?.data_type, 'TimestampNanosecond');
});

t.test('the ping and health endpoints of the line protocol answer', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  t.equal((await fetch(`${server.url}/v1/lineproto/ping`)).status, 204);
  t.equal((await fetch(`${server.url}/v1/lineproto/ping`, { method: 'HEAD' })).status, 204);
  t.equal((await fetch(`${server.url}/v1/lineproto/health`)).status, 200);
});
