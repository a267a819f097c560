/**
 * /debug/prof/mem and its switches against a real server: sampling is off until activated, a dump
 * under ingest holds the memtable's allocations per thread, gdump writes dumps to disk, and
 * `symbol` turns an uploaded dump into a flame graph.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import t from 'tap';
import { startLoad } from '../helpers/load-loop.js';
import { readPprof } from '../helpers/pprof.js';
import { startServer } from '../helpers/server.js';

async function call(url: string, method: string, pathAndQuery: string, init: RequestInit = {}) {
  const res = await fetch(`${url}${pathAndQuery}`, { method, ...init });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

function form(activate: string): RequestInit {
  return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `activate=${activate}` };
}

t.test('heap profiling is off until activated and dumps hold the memtable allocations', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const u = server.url;

  let res = await call(u, 'GET', '/debug/prof/mem/status');
  t.equal(res.body.toString(), '{"active": false}');
  t.match(res.type, /^text\/plain/);
  res = await call(u, 'POST', '/debug/prof/mem');
  t.equal(res.status, 400);
  t.equal(res.body.toString(), '{"error":"Memory profiling is not enabled"}');
  res = await call(u, 'POST', '/debug/prof/mem/gdump', form('true'));
  t.equal(res.status, 400, 'gdump needs heap profiling');
  t.equal(res.body.toString(), '{"error":"Memory profiling is not enabled"}');

  res = await call(u, 'POST', '/debug/prof/mem/activate');
  t.equal(res.status, 200);
  t.equal(res.body.toString(), 'Heap profiling activated');
  t.equal((await call(u, 'GET', '/debug/prof/mem/status')).body.toString(), '{"active": true}');

  // Ingest while sampling: the memtables keep what they allocate, so it shows in a dump.
  const load = startLoad(u, { maxMs: 20_000 });
  await new Promise((r) => setTimeout(r, 2000));
  const done = await load.stop();
  t.ok(done.rows > 0, `ingested ${done.rows} rows`);

  res = await call(u, 'POST', '/debug/prof/mem?output=proto');
  t.equal(res.status, 200);
  t.equal(res.type, 'application/octet-stream');
  const proto = res.body;
  const dump = readPprof(proto);
  t.equal(dump.type, 'inuse_space/bytes');
  t.ok(dump.threads.has('router'), 'router samples are labelled');
  t.ok(dump.threads.has('shard-0') && dump.threads.has('shard-1'), `every shard is labelled: ${[...dump.threads]}`);
  t.ok(
    [...dump.files].some((f) => f.startsWith('src/shard/memtable/')),
    'allocations are mapped to the memtable sources',
  );

  res = await call(u, 'POST', '/debug/prof/mem');
  t.equal(res.status, 200, 'text is the default output');
  t.match(res.body.toString(), /^Type: inuse_space \(bytes\)$/m);
  // Frames name sources in the text too; which ones depends on this later dump (a flush and the
  // collection after it may have let the memtable go since the one above).
  t.match(res.body.toString(), /src\/\S+\.ts:\d+/);
  res = await call(u, 'POST', '/debug/prof/mem?output=flamegraph');
  t.match(res.body.toString(), /^<\?xml[^>]*>\s*<svg /);
  res = await call(u, 'POST', '/debug/prof/mem?output=pdf');
  t.equal(res.status, 400);
  t.match(res.body.toString(), /^Failed to deserialize query string: output: unknown variant `pdf`/);

  await t.test('symbol turns an uploaded dump into a flame graph', async (t) => {
    let sym = await call(u, 'POST', '/debug/prof/mem/symbol', { body: proto });
    t.equal(sym.status, 200);
    t.equal(sym.type, 'application/octet-stream');
    const svg = sym.body.toString();
    t.match(svg, /<svg /);
    t.match(svg, /src\/shard\/memtable\//, 'the frames keep their sources');
    sym = await call(u, 'POST', '/debug/prof/mem/symbol', { body: zlib.gunzipSync(proto) });
    t.equal(sym.status, 200, 'an uncompressed dump is accepted too');
    for (const body of ['not a heap dump', '', '\x1f\x8bbroken gzip']) {
      sym = await call(u, 'POST', '/debug/prof/mem/symbol', { body });
      t.equal(sym.status, 500, JSON.stringify(body));
      t.equal(sym.body.toString(), '{"error":"Internal error: 1003"}');
    }
  });

  await t.test('gdump writes dumps to <data_home>/dump while active', async (t) => {
    t.equal((await call(u, 'GET', '/debug/prof/mem/gdump')).body.toString(), '{"active": false}');
    let g = await call(u, 'POST', '/debug/prof/mem/gdump', { body: 'activate=true' });
    t.equal(g.status, 415, 'not a form');
    g = await call(u, 'POST', '/debug/prof/mem/gdump', { ...form('x'), body: 'enable=true' });
    t.equal(g.status, 422, 'missing field');
    g = await call(u, 'POST', '/debug/prof/mem/gdump', form('yes'));
    t.equal(g.status, 422, 'invalid value');
    g = await call(u, 'POST', '/debug/prof/mem/gdump', form('true'));
    t.equal(g.status, 200);
    t.equal(g.body.toString(), 'gdump activated');
    t.equal((await call(u, 'GET', '/debug/prof/mem/gdump')).body.toString(), '{"active": true}');
    const dir = path.join(server.dataDir, 'dump');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.pb.gz'));
    t.equal(files.length, 1, 'activation writes a first dump');
    t.equal(readPprof(fs.readFileSync(path.join(dir, files[0] as string))).type, 'inuse_space/bytes');
    g = await call(u, 'POST', '/debug/prof/mem/gdump', form('false'));
    t.equal(g.body.toString(), 'gdump deactivated');
    t.equal((await call(u, 'GET', '/debug/prof/mem/gdump')).body.toString(), '{"active": false}');
  });

  res = await call(u, 'POST', '/debug/prof/mem/deactivate');
  t.equal(res.body.toString(), 'Heap profiling deactivated');
  t.equal((await call(u, 'GET', '/debug/prof/mem/status')).body.toString(), '{"active": false}');
  res = await call(u, 'POST', '/debug/prof/mem?output=proto');
  t.equal(res.status, 400, 'no dumps once deactivated');
  t.equal(res.body.toString(), '{"error":"Memory profiling is not enabled"}');
});

t.test('[debug] heap_profiling = true samples from start-up', async (t) => {
  const server = await startServer({ shards: 1, extraToml: '[debug]\nheap_profiling = true' });
  t.teardown(() => server.stop());
  let status = '';
  for (let i = 0; i < 50 && status !== '{"active": true}'; i++) {
    status = (await call(server.url, 'GET', '/debug/prof/mem/status')).body.toString();
    if (status !== '{"active": true}') await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(status, '{"active": true}');
  // Something for the shard to hold: a thread that kept no sampled allocation has no samples.
  const load = startLoad(server.url, { maxMs: 10_000 });
  await new Promise((r) => setTimeout(r, 1000));
  await load.stop();
  const res = await call(server.url, 'POST', '/debug/prof/mem?output=proto');
  t.equal(res.status, 200);
  t.same([...readPprof(res.body).threads].sort(), ['router', 'shard-0']);
});
