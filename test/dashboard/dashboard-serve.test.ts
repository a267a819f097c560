/**
 * How the router serves the dashboard's files (issue 17, reference admin §2): the redirect, types,
 * compression, caching, the single-page fallback, both listeners, open assets with auth on, and
 * the server without a bundle.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import t from 'tap';
import type { RequestContext } from '../../src/router/http/context.js';
import { dashboardRoutes, loadDashboardAssets } from '../../src/router/routes/dashboard.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startServer, tempDir } from '../helpers/server.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A raw GET: fetch would follow the redirect and undo the compression. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

/** What `npm run build` made (the compiled router reads it from beside itself). */
const DASHBOARD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'dashboard');
const AUTH = 'user_provider = "static_user_provider:cmd:admin=pw"';

t.test('the built dashboard over HTTP, on both listeners, with auth on', async (t) => {
  const built = fs.readdirSync(DASHBOARD_DIR);
  const script = built.find((f) => /^main-[A-Z0-9]{8}\.js$/.test(f));
  const style = built.find((f) => /^main-[A-Z0-9]{8}\.css$/.test(f));
  t.ok(script && style, `dist/dashboard has a hashed script and stylesheet: ${built.join(', ')}`);
  const server = await startServer({
    topLevelToml: AUTH,
    httpToml: 'enable_api_server = true\napi_server_addr = "127.0.0.1:0"',
  });
  t.teardown(() => server.stop());

  for (const base of [server.url, server.apiUrl as string]) {
    const redirect = await get(`${base}/dashboard?x=1`);
    t.equal(redirect.status, 308, `${base}: /dashboard redirects`);
    t.equal(redirect.headers.location, 'dashboard/?x=1', 'relative, so a path prefix survives; query kept');
    const postRedirect = await get(`${base}/dashboard`, {}, 'POST');
    t.equal(postRedirect.status, 308);

    const index = await get(`${base}/dashboard/`);
    t.equal(index.status, 200, 'index.html without credentials: the assets are open, as in GreptimeDB');
    t.equal(index.headers['content-type'], 'text/html; charset=utf-8');
    t.equal(index.headers['cache-control'], 'no-cache', 'index.html is revalidated');
    const html = index.body.toString();
    t.match(html, `src="./${script}"`, 'index.html names the hashed script by a relative URL');
    t.match(html, `href="./${style}"`);
    t.notMatch(html, /https?:\/\//, 'nothing is fetched from another host');

    const js = await get(`${base}/dashboard/${script}`, { 'accept-encoding': 'gzip, deflate' });
    t.equal(js.status, 200);
    t.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    t.equal(js.headers['content-encoding'], 'gzip');
    t.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable', 'hashed names are cached for good');
    t.equal(js.headers.vary, 'accept-encoding');
    const plain = zlib.gunzipSync(js.body);
    t.same(plain, fs.readFileSync(path.join(DASHBOARD_DIR, script as string)), 'the gzip body is the file');
    t.ok(js.body.length < 500 * 1024, `the script is ${js.body.length} B gzipped`);
    t.notMatch(plain.toString(), /https:\/\/(cdn|unpkg|fonts)\./, 'no CDN in the bundle');

    const br = await get(`${base}/dashboard/${script}`, { 'accept-encoding': 'gzip, br' });
    t.equal(br.headers['content-encoding'], 'br', 'brotli when offered');
    t.same(zlib.brotliDecompressSync(br.body), plain);
    const identity = await get(`${base}/dashboard/${script}`);
    t.equal(identity.headers['content-encoding'], undefined, 'no encoding when none is offered');
    t.equal(identity.body.length, plain.length);

    const css = await get(`${base}/dashboard/${style}`);
    t.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    const etag = css.headers.etag as string;
    t.match(etag, /^".+"$/);
    const again = await get(`${base}/dashboard/${style}`, { 'if-none-match': etag });
    t.equal(again.status, 304, 'a matching ETag answers 304');
    t.equal(again.body.length, 0);

    const head = await get(`${base}/dashboard/`, {}, 'HEAD');
    t.equal(head.status, 200, 'HEAD works');

    const spa = await get(`${base}/dashboard/logs`);
    t.equal(spa.status, 200, 'an unknown path is the app');
    t.equal(spa.body.toString(), html);
    const deep = await get(`${base}/dashboard/a/b/c`);
    t.equal(deep.status, 200);
    const baseHref = /<base href="([^"]*)">/.exec(deep.body.toString())?.[1] ?? '';
    t.equal(new URL(baseHref, `${base}/dashboard/a/b/c`).pathname, '/dashboard/', 'a deeper path points back');
    for (const climb of [
      '/dashboard/../config',
      '/dashboard/%2e%2e/metrics',
      '/dashboard/a/%2F/b',
      '/dashboard/./index.html',
    ]) {
      // Sent as written: a URL parser would resolve the dots first.
      const refused = await rawRequest(base, 'GET', climb);
      t.same([refused.status, refused.text], [404, ''], `${climb} is refused, empty`);
    }
  }

  // The dashboard's own calls are what need the login.
  t.equal((await get(`${server.apiUrl}/v1/sql?sql=SELECT%201`)).status, 401);
  t.equal((await get(`${server.apiUrl}/metrics`)).status, 404, 'admin paths stay off the API listener');
});

t.test("compressed forms: the build's when present, made at load otherwise", async (t) => {
  const dir = tempDir('shoaldb-dash-');
  const script = 'console.log("a dashboard");\n'.repeat(100);
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
  fs.writeFileSync(path.join(dir, 'app-ABCDEFGH.js'), script);
  const made = loadDashboardAssets(dir)?.get('app-ABCDEFGH.js');
  t.equal(zlib.gunzipSync(made?.gzip as Buffer).toString(), script, 'gzip made at load');
  t.equal(zlib.brotliDecompressSync(made?.br as Buffer).toString(), script, 'brotli made at load');
  t.equal(made?.cacheControl, 'public, max-age=31536000, immutable');
  fs.writeFileSync(path.join(dir, 'app-ABCDEFGH.js.gz'), 'prebuilt gzip');
  const assets = loadDashboardAssets(dir);
  t.equal(assets?.get('app-ABCDEFGH.js')?.gzip?.toString(), 'prebuilt gzip', "the build's file is used as is");
  t.notOk(assets?.has('app-ABCDEFGH.js.gz'), 'and is not an asset of its own');
  t.equal(assets?.get('index.html')?.gzip, null, 'a tiny file is not compressed');
});

t.test('without a bundle the server starts and says what to do', async (t) => {
  t.equal(loadDashboardAssets(tempDir('shoaldb-nodash-')), null, 'an empty directory is no bundle');
  const [, serve] = dashboardRoutes(null);
  const ctx = { params: { '*': '' }, headers: new Map(), rawQuery: '' } as unknown as RequestContext;
  const res = await serve?.handler(ctx);
  t.equal(res?.status, 404);
  t.match(String(res?.body), /npm run build/);
});
