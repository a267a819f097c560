/**
 * `[tracing] sample_ratio`: the fraction of new traces recorded. At 0, tracing switched on records
 * nothing, so the server's own traces table is never even created (self-tracing.test.ts shows that
 * at the default of 1 the same requests are traced).
 */
import t from 'tap';
import { sql, startServer, writeLines } from '../helpers/server.js';

t.test('sample_ratio = 0 records no trace, though tracing is on', async (t) => {
  const server = await startServer({ shards: 1, extraToml: '[tracing]\nendpoint = "self"\nsample_ratio = 0' });
  t.teardown(() => server.stop());
  const on = await fetch(`${server.url}/debug/enable_trace`, { method: 'POST', body: 'true' });
  t.equal(await on.text(), 'trace enabled');
  t.equal((await writeLines(server.url, `cpu,host=a usage=1 ${Date.now()}\n`)).status, 204);
  t.equal((await sql(server.url, 'SELECT count(*) FROM cpu')).status, 200);
  // Past an export interval, then switched off: everything queued is exported by then.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const off = await fetch(`${server.url}/debug/enable_trace`, { method: 'POST', body: 'false' });
  t.equal(await off.text(), 'trace disabled');
  const traces = await sql(server.url, 'SELECT count(*) FROM opentelemetry_traces');
  t.equal(traces.status, 400, 'no span was ever exported, so there is no traces table');
  t.match(traces.text, /opentelemetry_traces/);
});
