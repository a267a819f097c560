/** Operator endpoints: health, status, config, metrics, log level, trace switch, routing errors. */
import { parse } from 'smol-toml';
import t from 'tap';
import { writeLines } from '../helpers/server.js';
import { sharedServer } from '../helpers/shared-server.js';

// Every case reads or sets what it asserts on itself; the tracing endpoint lets the trace switch turn on.
const server = sharedServer({ httpToml: 'body_limit = "2MiB"', extraToml: '[tracing]\nendpoint = "self"' });

t.test('health answers {} on GET and POST', async (t) => {
  const srv = await server();
  for (const method of ['GET', 'POST']) {
    const res = await fetch(`${srv.url}/health`, { method });
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'application/json');
    t.equal(await res.text(), '{}');
  }
});

t.test('status reports version and hostname', async (t) => {
  const srv = await server();
  const body = (await (await fetch(`${srv.url}/status`)).json()) as Record<string, string>;
  t.ok(body.version);
  t.ok(body.hostname);
  t.ok('commit' in body && 'branch' in body);
});

t.test('config prints the effective configuration as TOML', async (t) => {
  const srv = await server();
  const res = await fetch(`${srv.url}/config`);
  t.match(res.headers.get('content-type'), /text\/plain/);
  const doc = parse(await res.text()) as { http: Record<string, unknown>; storage: Record<string, unknown> };
  t.equal(doc.http.body_limit, '2MiB');
  t.equal(doc.storage.data_home, srv.dataDir);
  t.equal(doc.storage.shards, 2);
});

t.test('metrics expose process, ingest, WAL and shard figures', async (t) => {
  const srv = await server();
  t.equal((await writeLines(srv.url, 'mm,host=a v=1 1\nmm,host=b v=2 2')).status, 204);
  const res = await fetch(`${srv.url}/metrics`);
  t.match(res.headers.get('content-type'), /text\/plain/);
  const text = await res.text();
  t.match(text, /process_cpu_seconds_total/);
  t.match(text, /shoaldb_ingest_rows_total\{protocol="lineproto"\} 2/);
  t.match(text, /shoaldb_wal_fsyncs_total\{shard="0"\}/);
  t.match(text, /shoaldb_wal_fsyncs_total\{shard="1"\}/);
  t.match(text, /shoaldb_memtable_bytes\{shard="\d"\} [1-9]/);
  t.match(text, /greptime_app_version\{/);
  // Every thread reports its own heap: the router and both shards, each with objects in use.
  for (const thread of ['router', 'shard-0', 'shard-1']) {
    const used = new RegExp(`^shoaldb_thread_heap_bytes\\{thread="${thread}",kind="used"\\} (\\d+)$`, 'm').exec(text);
    t.ok(used && Number(used[1]) > 1_000_000, `${thread} reports a heap in use`);
  }
  const rows = [...text.matchAll(/^shoaldb_shard_rows_written_total\{shard="\d"\} (\d+)$/gm)].map((m) => Number(m[1]));
  t.equal(
    rows.reduce((a, b) => a + b, 0),
    2,
    'the shards together applied both rows',
  );
});

t.test('log level changes at run time and bad filters are refused', async (t) => {
  const srv = await server();
  const res = await fetch(`${srv.url}/debug/log_level`, { method: 'POST', body: 'debug' });
  t.equal(res.status, 200);
  t.equal(await res.text(), 'Log Level changed from info to debug');
  const again = await fetch(`${srv.url}/debug/log_level`, { method: 'POST', body: 'warn,shard=trace' });
  t.equal(await again.text(), 'Log Level changed from debug to warn,shard=trace');
  const bad = await fetch(`${srv.url}/debug/log_level`, { method: 'POST', body: 'loud' });
  t.equal(bad.status, 400);
  t.match(((await bad.json()) as { error: string }).error, /Invalid filter "loud"/);
});

t.test('the trace switch answers in text and refuses anything but true/false', async (t) => {
  // Switching on needs somewhere to export (without one it is 503, see self-tracing.test.ts).
  const srv = await server();
  const on = await fetch(`${srv.url}/debug/enable_trace`, { method: 'POST', body: 'true' });
  t.equal(await on.text(), 'trace enabled');
  const off = await fetch(`${srv.url}/debug/enable_trace`, { method: 'POST', body: 'false' });
  t.equal(await off.text(), 'trace disabled');
  const bad = await fetch(`${srv.url}/debug/enable_trace`, { method: 'POST', body: 'true\n' });
  t.equal(bad.status, 400);
  t.same(await bad.json(), { error: 'Invalid request parameter: Invalid parameter "enable": ParseBoolError' });
});

t.test('unknown paths are 404 and wrong methods 405', async (t) => {
  const srv = await server();
  const missing = await fetch(`${srv.url}/nope`);
  t.equal(missing.status, 404);
  t.equal(await missing.text(), '');
  const wrong = await fetch(`${srv.url}/v1/lineproto/write`);
  t.equal(wrong.status, 405);
  t.match(wrong.headers.get('allow'), /POST/);
});

t.test('a POST to /v1/sql without the form content type is 415', async (t) => {
  const srv = await server();
  const res = await fetch(`${srv.url}/v1/sql`, {
    method: 'POST',
    body: 'SELECT 1',
    headers: { 'content-type': 'text/plain' },
  });
  t.equal(res.status, 415);
  const missing = await fetch(`${srv.url}/v1/sql`, {
    method: 'POST',
    body: '',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(missing.status, 400);
  const body = (await missing.json()) as { code: number; error: string };
  t.equal(body.code, 1004);
  t.equal(body.error, 'sql parameter is required.');
});

t.test('aborted requests do not crash the server', async (t) => {
  const srv = await server();
  for (let i = 0; i < 20; i++) {
    const controller = new AbortController();
    const p = fetch(`${srv.url}/v1/lineproto/write?db=public`, {
      method: 'POST',
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('ab,host=x v=1 1\n'));
        },
      }),
      duplex: 'half',
      signal: controller.signal,
    } as RequestInit).catch(() => null);
    setTimeout(() => controller.abort(), 20);
    await p;
  }
  t.equal((await fetch(`${srv.url}/health`)).status, 200);
});
