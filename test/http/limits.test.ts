/** Body limit (413), request timeout (408) and their interaction with the x-greptime-timeout header. */

import net from 'node:net';
import zlib from 'node:zlib';
import { compress as zstdCompress, init as zstdInit } from '@bokuweb/zstd-wasm';
import t from 'tap';
import { sql, startServer, writeLines } from '../helpers/server.js';
import { sharedServer } from '../helpers/shared-server.js';

// Cases with the same configuration share a server; each writes its own tables.
const limit1KiB = sharedServer({ httpToml: 'body_limit = "1KiB"' });
const limit64KiB = sharedServer({ httpToml: 'body_limit = "64KiB"' });
const noTimeout = sharedServer({ httpToml: 'body_limit = "8MiB"' });

/** Sends a request whose body never finishes; returns the status line the server answers with. */
function stalledRequest(url: string, path: string, headers: Record<string, string>, waitMs = 10_000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const head = Object.entries({ host: hostname, 'content-length': '1000', ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\nabc`);
    });
    let data = '';
    socket.on('data', (d) => {
      data += d.toString();
      if (data.includes('\r\n')) {
        resolve(data.split('\r\n')[0] as string);
        socket.destroy();
      }
    });
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      resolve('no answer');
    }, waitMs);
  });
}

t.test('bodies over http.body_limit are refused with 413 and nothing is written', async (t) => {
  const server = await limit1KiB();
  const big = Array.from({ length: 100 }, (_, i) => `big,host=h v=${i} ${i}`).join('\n');
  t.ok(big.length > 1024);
  const res = await writeLines(server.url, big);
  t.equal(res.status, 413);
  t.match(res.text, /length limit exceeded/);
  t.equal((await writeLines(server.url, 'small,host=h v=1 1')).status, 204, 'the server keeps serving');
  const q = await sql(server.url, 'SHOW TABLES');
  t.notMatch(JSON.stringify(q.body), /"big"/, 'no table was created by the refused body');
});

t.test('a chunked body over the limit is cut off while streaming', async (t) => {
  const server = await limit1KiB();
  const stream = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 20; i++)
        controller.enqueue(new TextEncoder().encode(`chunk,host=h v=${i} ${i}\n`.repeat(10)));
      controller.close();
    },
  });
  const res = await fetch(`${server.url}/v1/lineproto/write?db=public`, {
    method: 'POST',
    body: stream,
    duplex: 'half',
  } as RequestInit);
  t.equal(res.status, 413);
});

t.test('a gzip body is decompressed, and a decompression bomb is refused', async (t) => {
  const server = await limit64KiB();
  const body = zlib.gzipSync('gz,host=a v=1.5 1000\ngz,host=b v=2.5 2000');
  const ok = await writeLines(server.url, body as unknown as string, 'db=public&precision=ms', {
    'content-encoding': 'gzip',
  });
  t.equal(ok.status, 204, ok.text);
  const rows = await sql(server.url, 'SELECT host, v FROM gz ORDER BY host');
  t.same(rows.body.output?.[0]?.records?.rows, [
    ['a', 1.5],
    ['b', 2.5],
  ]);
  const bomb = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x61));
  const refused = await writeLines(server.url, bomb as unknown as string, 'db=public', { 'content-encoding': 'gzip' });
  t.equal(refused.status, 413);
  const bad = await writeLines(server.url, 'not gzip at all', 'db=public', { 'content-encoding': 'gzip' });
  t.equal(bad.status, 400);
});

t.test('a zstd body is decompressed; a bomb gets 413 and a corrupt body 400, storing nothing', async (t) => {
  await zstdInit();
  const server = await limit64KiB();
  const send = (body: Uint8Array) =>
    writeLines(server.url, Buffer.from(body) as unknown as string, 'db=public&precision=ms', {
      'content-encoding': 'zstd',
    });
  const ok = await send(zstdCompress(Buffer.from('zs,host=a v=1.5 1000\nzs,host=b v=2.5 2000')));
  t.equal(ok.status, 204, ok.text);
  t.same((await sql(server.url, 'SELECT host, v FROM zs ORDER BY host')).body.output?.[0]?.records?.rows, [
    ['a', 1.5],
    ['b', 2.5],
  ]);
  const bomb = zstdCompress(Buffer.from(`zs,host=c v=1 3000\n${'#'.repeat(10 * 1024 * 1024)}`));
  t.ok(bomb.length < 64 * 1024, 'the bomb fits the body limit compressed');
  t.equal((await send(bomb)).status, 413);
  const corrupt = zstdCompress(Buffer.from('zs,host=d v=1 4000')).slice(0, 12);
  t.equal((await send(corrupt)).status, 400);
  t.equal((await send(Buffer.from('zs,host=e v=1 5000'))).status, 400, 'not zstd at all');
  t.same(
    (await sql(server.url, 'SELECT count(*) FROM zs')).body.output?.[0]?.records?.rows,
    [[2]],
    'nothing else stored',
  );
});

t.test('http.timeout answers 408 when a request takes too long', async (t) => {
  const server = await startServer({ httpToml: 'timeout = "300ms"' });
  t.teardown(() => server.stop());
  const started = Date.now();
  const status = await stalledRequest(server.url, '/v1/lineproto/write?db=public', {});
  t.match(status, /^HTTP\/1\.1 408/);
  t.ok(Date.now() - started < 5000);
  t.equal((await fetch(`${server.url}/health`)).status, 200, 'the server keeps serving');
});

t.test('x-greptime-timeout overrides http.timeout, and 0s means no deadline', async (t) => {
  const server = await startServer({ httpToml: 'timeout = "30s"' });
  t.teardown(() => server.stop());
  const started = Date.now();
  const status = await stalledRequest(server.url, '/v1/lineproto/write?db=public', { 'x-greptime-timeout': '200ms' });
  t.match(status, /^HTTP\/1\.1 408/);
  t.ok(Date.now() - started < 5000, 'the header shortened the deadline');
  const none = await stalledRequest(server.url, '/v1/sql', { 'x-greptime-timeout': '0s' }, 1500);
  t.equal(none, 'no answer', 'no deadline with 0s');
});

t.test('without http.timeout the header is ignored', async (t) => {
  const server = await noTimeout();
  const status = await stalledRequest(
    server.url,
    '/v1/lineproto/write?db=public',
    { 'x-greptime-timeout': '100ms' },
    1500,
  );
  t.equal(status, 'no answer');
});

t.test('lines longer than the line limit are refused with their line number', async (t) => {
  const server = await noTimeout();
  const long = `ok,host=a v=1 1\nlong,host=a s="${'x'.repeat(1024 * 1024 + 10)}" 2`;
  const res = await writeLines(server.url, long);
  t.equal(res.status, 400);
  t.match(res.text, /line 2/);
});

t.test('max_in_flight_write_bytes refuses writes beyond the bound with 429 under "fail"', async (t) => {
  const server = await startServer({
    topLevelToml: 'max_in_flight_write_bytes = "2KiB"\nwrite_bytes_exhausted_policy = "fail"',
  });
  t.teardown(() => server.stop());
  const body = (i: number) =>
    Array.from({ length: 20 }, (_, k) => `inflight,host=h${i} v=${k} ${i * 100 + k}`).join('\n');
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => writeLines(server.url, body(i))));
  const ok = results.filter((r) => r.status === 204).length;
  const refused = results.filter((r) => r.status === 429);
  t.ok(ok > 0, `some writes were admitted (${ok})`);
  t.ok(refused.length > 0, `some writes were refused (${refused.length})`);
  t.match(refused[0]?.text, /Request body memory limit exceeded/);
  t.equal(refused[0]?.headers.get('retry-after'), '1', 'a refused writer is told when to retry');
  const count = await sql(server.url, 'SELECT count(*) FROM inflight');
  t.same(count.body.output?.[0]?.records?.rows, [[ok * 20]], 'exactly the admitted writes were stored');
});

t.test('under the "wait" policy every write is admitted in turn', async (t) => {
  const server = await startServer({
    topLevelToml: 'max_in_flight_write_bytes = "2KiB"\nwrite_bytes_exhausted_policy = "wait(10s)"',
  });
  t.teardown(() => server.stop());
  const body = (i: number) =>
    Array.from({ length: 20 }, (_, k) => `waited,host=h${i} v=${k} ${i * 100 + k}`).join('\n');
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => writeLines(server.url, body(i))));
  t.same(
    results.map((r) => r.status).filter((s) => s !== 204),
    [],
  );
  const count = await sql(server.url, 'SELECT count(*) FROM waited');
  t.same(count.body.output?.[0]?.records?.rows, [[800]]);
});
