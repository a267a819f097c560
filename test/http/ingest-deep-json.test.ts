/**
 * Deeply nested JSON on `/v1/ingest`, OTLP/JSON and event collector events. `/v1/ingest` (found by a fuzz probe: 20,000 levels answered 500 after
 * the flattening ran out of stack): past serde_json's recursion limit of 128, in a JSON stream or
 * an NDJSON line, the body is refused with 400 and nothing is written; 100 levels are taken, the
 * part below `max_nested_levels` kept as JSON text; the server keeps serving.
 */
import t from 'tap';
import { rowsOf, sql, startServer } from '../helpers/server.js';

t.test('deep JSON on /v1/ingest', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const post = (table: string, body: string, type = 'application/json') =>
    fetch(`${server.url}/v1/ingest?table=${table}&pipeline_name=greptime_identity`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
  const nested = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

  for (const [name, body, type] of [
    ['an object 20,000 deep', `[{"x":${nested(20_000)}}]`, 'application/json'],
    ['an array 129 deep', `[{"x":${'['.repeat(129)}${']'.repeat(129)}}]`, 'application/json'],
    ['an NDJSON line 5,000 deep', `{"ok":1}\n{"x":${nested(5_000)}}`, 'application/x-ndjson'],
  ] as const) {
    const res = await post('deep', body, type);
    t.equal(res.status, 400, `${name}: 400`);
    t.match(await res.text(), /recursion limit exceeded|invalid JSON at index: 1/, `${name}: says why`);
  }
  const missing = await sql(server.url, 'SELECT count(*) FROM deep');
  t.equal(missing.body.code, 4001, 'nothing was written (no table)');

  const ok = await post('fine', `[{"x":${nested(100)}}]`);
  t.equal(ok.status, 200, '100 levels are taken');
  const res = await sql(server.url, 'SELECT "x.a.a.a.a.a.a.a.a.a" FROM fine');
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.equal(String(rowsOf(res.body)[0]?.[0]), nested(91), 'below max_nested_levels, the rest is JSON text');
  t.equal((await fetch(`${server.url}/health`)).status, 200, 'still serving');
});

t.test('deep JSON on OTLP/JSON logs and event collector events: 400, not a stack overflow', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const kv = (d: number): string =>
    d === 0 ? '{"stringValue":"x"}' : `{"kvlistValue":{"values":[{"key":"k","value":${kv(d - 1)}}]}}`;
  const otlp = await fetch(`${server.url}/v1/otlp/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1700000000000000000","body":${kv(3000)}}]}]}]}`,
  });
  t.equal(otlp.status, 400, 'OTLP logs: 400');
  t.match(await otlp.text(), /recursion limit exceeded/, 'OTLP logs: says why');
  const hec = await fetch(`${server.url}/v1/eventcollector/services/collector/event`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"event":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`,
  });
  t.equal(hec.status, 400, 'event collector: 400');
  t.same(await hec.json(), { text: 'Invalid data format', code: 6, 'invalid-event-number': 0 });
  t.equal((await fetch(`${server.url}/health`)).status, 200, 'still serving');
});
