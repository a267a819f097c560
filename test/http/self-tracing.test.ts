/**
 * Self-tracing (`/debug/enable_trace`, `[tracing]`, docs/tracing.md) end to end: the server exports
 * its own spans to its own `/v1/otlp/v1/traces` (`endpoint = "self"`), and the spans are read back
 * with SQL from `opentelemetry_traces`: one trace per request, spanning the router and the shards.
 */
import t, { type Test } from 'tap';
import { rowsOf, sql, startServer, writeLines } from '../helpers/server.js';

interface SpanRow {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  service: string;
}

async function spans(url: string): Promise<SpanRow[]> {
  const res = await sql(
    url,
    'SELECT trace_id, span_id, parent_span_id, span_name, service_name FROM opentelemetry_traces ORDER BY "timestamp"',
  );
  if (res.status !== 200) throw new Error(res.text);
  return rowsOf(res.body).map((r) => ({
    traceId: String(r[0]),
    spanId: String(r[1]),
    parentSpanId: String(r[2] ?? ''),
    name: String(r[3]),
    service: String(r[4]),
  }));
}

function switchTrace(url: string, body: string): Promise<Response> {
  return fetch(`${url}/debug/enable_trace`, { method: 'POST', body });
}

/** The spans of the one trace whose root is the named request span. */
function traceOf(all: SpanRow[], rootName: string): SpanRow[] {
  const roots = all.filter((s) => s.name === rootName && s.service === 'shoaldb');
  if (roots.length !== 1) throw new Error(`expected one ${rootName} span, got ${roots.length}`);
  const traceId = (roots[0] as SpanRow).traceId;
  return all.filter((s) => s.traceId === traceId);
}

/** Asserts `child` (by name and service) is in `spans` with a parent named `parent`. */
function assertChild(t: Test, spans: SpanRow[], child: string, service: string, parent: string): void {
  const c = spans.find((s) => s.name === child && s.service === service);
  t.ok(c, `${child} (${service}) is in the trace`);
  const p = spans.find((s) => s.spanId === c?.parentSpanId);
  t.equal(p?.name, parent, `${child}'s parent is ${parent}`);
}

t.test('traces a write and a query across the router and the shards into its own endpoint', async (t) => {
  const server = await startServer({ shards: 2, extraToml: '[tracing]\nendpoint = "self"' });
  t.teardown(() => server.stop());
  const { url } = server;

  const on = await switchTrace(url, 'true');
  t.equal(on.status, 200);
  t.equal(await on.text(), 'trace enabled');

  const now = Date.now();
  const written = await writeLines(url, `cpu,host=a usage=1 ${now}\ncpu,host=b usage=2 ${now}\n`);
  t.equal(written.status, 204, written.text);
  const counted = await sql(url, 'SELECT count(*) FROM cpu');
  t.equal(counted.status, 200, counted.text);
  t.same(rowsOf(counted.body), [[2]]);
  const seconds = Math.floor(now / 1000);
  const pql = await fetch(`${url}/v1/pql?query=cpu&start=${seconds - 60}&end=${seconds + 60}&step=30s`);
  t.equal(pql.status, 200, await pql.text());
  const api = await fetch(
    `${url}/v1/metricsapi/api/v1/query_range?query=sum(cpu)&start=${seconds - 60}&end=${seconds + 60}&step=30`,
  );
  t.equal(api.status, 200, await api.text());

  // Past one export interval while on: the periodic exports to ourselves must not be traced.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // Switching off exports everything queued, in the router and every shard, before answering.
  const off = await switchTrace(url, 'false');
  t.equal(off.status, 200);
  t.equal(await off.text(), 'trace disabled');

  const all = await spans(url);
  const write = traceOf(all, 'POST /v1/lineproto/write');
  assertChild(t, write, 'shard-task write', 'shoaldb', 'POST /v1/lineproto/write');
  assertChild(t, write, 'shard.write', 'shoaldb-shard', 'shard-task write');
  assertChild(t, write, 'wal.append', 'shoaldb-shard', 'shard.write');
  assertChild(t, write, 'wal.fsync', 'shoaldb-shard', 'shard.write');

  const query = traceOf(all, 'POST /v1/sql');
  for (const stage of ['sql.parse', 'sql.plan', 'sql.shard_scan', 'sql.merge']) {
    assertChild(t, query, stage, 'shoaldb', 'POST /v1/sql');
  }
  t.equal(query.filter((s) => s.name === 'shard-task query sql').length, 2, 'one task span per shard');
  t.equal(query.filter((s) => s.name === 'shard.query' && s.service === 'shoaldb-shard').length, 2);
  assertChild(t, query, 'shard.query', 'shoaldb-shard', 'shard-task query sql');

  const promql = traceOf(all, 'GET /v1/pql');
  assertChild(t, promql, 'promql.parse', 'shoaldb', 'GET /v1/pql');
  assertChild(t, promql, 'promql.eval', 'shoaldb', 'GET /v1/pql');
  assertChild(t, promql, 'shard-task query promql', 'shoaldb', 'promql.eval');
  assertChild(t, promql, 'shard.query', 'shoaldb-shard', 'shard-task query promql');

  const apiTrace = traceOf(all, 'GET /v1/metricsapi/api/v1/query_range');
  assertChild(t, apiTrace, 'promql.parse', 'shoaldb', 'GET /v1/metricsapi/api/v1/query_range');
  assertChild(t, apiTrace, 'promql.eval', 'shoaldb', 'GET /v1/metricsapi/api/v1/query_range');
  assertChild(t, apiTrace, 'shard-task query promql', 'shoaldb', 'promql.eval');
  assertChild(t, apiTrace, 'shard.query', 'shoaldb-shard', 'shard-task query promql');

  t.notOk(
    all.some((s) => s.name.includes('/v1/otlp/v1/traces')),
    'our own span exports are not traced',
  );
  t.notOk(
    all.some((s) => s.name.includes('/debug/enable_trace')),
    'the switch requests are not traced (off when on starts, flushed before off ends)',
  );
  t.notOk(
    all.some((s) => s.parentSpanId === '' && s.name.startsWith('shard-task')),
    'no shard task starts a trace of its own',
  );

  // Off means off: more requests, longer than an export interval, and not one more span.
  const before = all.length;
  t.equal((await writeLines(url, `cpu,host=c usage=3 ${now + 1}\n`)).status, 204);
  t.equal((await sql(url, 'SELECT count(*) FROM cpu')).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.equal((await spans(url)).length, before, 'no spans after tracing is switched off');
});

t.test('refuses a body other than true/false, and answers 503 without an endpoint', async (t) => {
  const server = await startServer({ shards: 1 });
  t.teardown(() => server.stop());
  const yes = await switchTrace(server.url, 'yes');
  t.equal(yes.status, 400);
  t.same(await yes.json(), { error: 'Invalid request parameter: Invalid parameter "enable": ParseBoolError' });

  const on = await switchTrace(server.url, 'true');
  t.equal(on.status, 503);
  t.match(on.headers.get('content-type') ?? '', /^text\/plain/);
  t.match(await on.text(), /tracing is not configured: set \[tracing\] endpoint/);

  // Still off, so switching off is fine and nothing was started.
  const off = await switchTrace(server.url, 'false');
  t.equal(off.status, 200);
  t.equal(await off.text(), 'trace disabled');
});

t.test('starts tracing at start-up with [tracing] enabled = true', async (t) => {
  const server = await startServer({ shards: 1, extraToml: '[tracing]\nendpoint = "self"\nenabled = true' });
  t.teardown(() => server.stop());
  // Switched on before the server reports "listening": the first request is traced.
  t.equal((await writeLines(server.url, `mem,host=a used=1 ${Date.now()}\n`)).status, 204);
  t.equal(await (await switchTrace(server.url, 'false')).text(), 'trace disabled');
  const write = traceOf(await spans(server.url), 'POST /v1/lineproto/write');
  assertChild(t, write, 'shard.write', 'shoaldb-shard', 'shard-task write');
});
