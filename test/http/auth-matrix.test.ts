/**
 * The auth matrix (issue 16): every registered route and method × {auth off, no credentials, wrong
 * password, unknown user, malformed header, Bearer, blank password, each accepted credential
 * form, a read-only and a write-only user}, on the main and the public API listener
 * (reference admin §1.1, §9; ingest §0.3).
 */
import t, { type Test } from 'tap';
import { allowedOnApiServer } from '../../src/router/http/listener-filter.js';
import { type RawAnswer, rawRequest } from '../helpers/raw-http.js';
import { appRouteBuilders, registeredRoutes } from '../helpers/route-list.js';
import { PROBES, type Probe, SETUP_SQL } from '../helpers/route-probes.js';
import { sql, startServer, type TestServer } from '../helpers/server.js';

const USERS = 'static_user_provider:cmd:admin=adminpw,reader:ro=readerpw,writer:wo=writerpw';
const API_TOML = 'enable_api_server = true\napi_server_addr = "127.0.0.1:0"';
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

const isHec = (p: Probe) => p.path.startsWith('/v1/eventcollector/');
const isLineproto = (p: Probe) => p.path.includes('/lineproto/');
/** The public listener serves /v1 and /dashboard (the listener filter's own rule). */
const onApiListener = (p: Probe) => allowedOnApiServer(p.path.split('?')[0] ?? '');

/** Sends a probe with extra headers and an extra query string. */
function send(base: string, p: Probe, headers: Record<string, string> = {}, query = ''): Promise<RawAnswer> {
  const sep = p.path.includes('?') ? '&' : '?';
  return rawRequest(base, p.method, query ? `${p.path}${sep}${query}` : p.path, { ...p.headers, ...headers }, p.body);
}

const label = (p: Probe, what: string, r: RawAnswer) =>
  `${p.method} ${p.path} ${what}: ${r.status} ${r.text.slice(0, 200)}`;

function codeOf(r: RawAnswer): unknown {
  try {
    return (JSON.parse(r.text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

async function setup(t: Test, server: TestServer, headers: Record<string, string>): Promise<void> {
  for (const statement of SETUP_SQL) t.equal((await sql(server.url, statement, undefined, headers)).status, 200);
}

t.test('the matrix has one probe for every registered route and method', async (t) => {
  const registered = registeredRoutes();
  t.same([...registered.keys()].sort(), appRouteBuilders(), 'the route list reads every builder app.ts uses');
  const all = [...registered.values()].flat().sort();
  t.same([...new Set(PROBES.map((p) => p.route))].sort(), all, 'one probe per route and method');
});

t.test('auth off: every route answers as it would to a permitted user, credentials or not', async (t) => {
  const server = await startServer({ httpToml: API_TOML });
  t.teardown(() => server.stop());
  await setup(t, server, {});
  const api = server.apiUrl as string;
  for (const p of PROBES) {
    const none = await send(server.url, p);
    t.equal(none.status, p.ok, label(p, 'main, none', none));
    const bogus = await send(server.url, p, { authorization: basic('ghost', 'x') });
    t.equal(bogus.status, p.ok, label(p, 'main, unknown user', bogus));
    const viaApi = await send(api, p);
    t.equal(viaApi.status, onApiListener(p) ? p.ok : 404, label(p, 'api, none', viaApi));
  }
});

/** The refusals of a failed login on `p`: GreptimeDB's 401 body, or HEC's token errors. */
function expectRefused(t: Test, p: Probe, what: string, r: RawAnswer, code: number): void {
  if (isHec(p)) {
    const missing = code === 7003;
    t.equal(r.status, missing ? 401 : 403, label(p, what, r));
    t.same(JSON.parse(r.text), missing ? { text: 'Token is required', code: 2 } : { text: 'Invalid token', code: 4 });
    return;
  }
  t.equal(r.status, 401, label(p, what, r));
  t.equal(codeOf(r), code, label(p, what, r));
  t.equal(r.headers['x-greptime-err-code'], String(code), label(p, what, r));
  t.equal(r.headers['www-authenticate'], undefined);
}

async function authOnMatrix(t: Test, base: string, listener: 'main' | 'api'): Promise<void> {
  for (const p of PROBES) {
    if (listener === 'api' && !onApiListener(p)) {
      for (const headers of [{}, { authorization: basic('admin', 'adminpw') }]) {
        const r = await send(base, p, headers);
        t.equal(r.status, 404, label(p, 'api listener', r));
        t.equal(r.text, '', label(p, 'api listener body', r));
      }
      // Not even a CORS preflight or a HEAD gets past the listener filter.
      for (const method of ['OPTIONS', 'HEAD']) {
        const r = await rawRequest(base, method, p.path);
        t.equal(r.status, 404, label(p, `api listener ${method}`, r));
      }
      continue;
    }
    if (p.access === 'exempt') {
      const r = await send(base, p);
      t.equal(r.status, p.ok, label(p, `${listener}, exempt without credentials`, r));
      continue;
    }
    const refusals: Array<[string, Record<string, string>, number]> = [
      ['no credentials', {}, 7003],
      ['wrong password', { authorization: basic('admin', 'nope') }, 7002],
      ['unknown user', { authorization: basic('ghost', 'adminpw') }, 7000],
      ['malformed base64', { authorization: 'Basic !!!' }, 7004],
      ['no colon', { authorization: `Basic ${Buffer.from('admin').toString('base64')}` }, 7004],
      ['unknown scheme', { authorization: 'Digest abc' }, 7004],
      ['bearer', { authorization: 'Bearer adminpw' }, 7002],
      ['bearer in x-greptime-auth', { 'x-greptime-auth': 'Bearer adminpw' }, 7002],
      ['blank password', { authorization: basic('admin', '') }, 1004],
      ['wrong password in x-greptime-auth', { 'x-greptime-auth': basic('admin', 'nope') }, 7002],
    ];
    for (const [what, headers, code] of refusals) {
      expectRefused(t, p, `${listener}, ${what}`, await send(base, p, headers), code);
    }
    if (p.method === 'GET') {
      // HEAD runs the GET route, so it needs the same login (a HEAD answer has no body to check).
      const head: Probe = { route: p.route, method: 'HEAD', path: p.path, access: p.access, ok: p.ok };
      t.equal((await send(base, head)).status, 401, `HEAD ${p.path} ${listener}: no credentials`);
      const wrong = await send(base, head, { authorization: basic('admin', 'nope') });
      t.equal(wrong.status, isHec(p) ? 403 : 401, `HEAD ${p.path} ${listener}: wrong password`);
    }
    if (isLineproto(p)) {
      expectRefused(t, p, `${listener}, u/p wrong`, await send(base, p, {}, 'u=admin&p=nope'), 7002);
      expectRefused(t, p, `${listener}, u only`, await send(base, p, {}, 'u=admin'), 1004);
    } else {
      // u/p are read on line protocol only.
      expectRefused(t, p, `${listener}, u/p off lineproto`, await send(base, p, {}, 'u=admin&p=adminpw'), 7003);
    }
    if (!isHec(p)) {
      expectRefused(
        t,
        p,
        `${listener}, Splunk off HEC`,
        await send(base, p, { authorization: 'Splunk admin:adminpw' }),
        7004,
      );
    }

    const accepted: Array<[string, Record<string, string>, string]> = [
      ['Basic', { authorization: basic('admin', 'adminpw') }, ''],
      ['basic, lower-case scheme', { authorization: `basic ${Buffer.from('admin:adminpw').toString('base64')}` }, ''],
      ['x-greptime-auth Basic', { 'x-greptime-auth': basic('admin', 'adminpw') }, ''],
      [
        'x-greptime-auth over a wrong Authorization',
        { 'x-greptime-auth': basic('admin', 'adminpw'), authorization: basic('admin', 'no') },
        '',
      ],
    ];
    if (isLineproto(p)) {
      accepted.push(['Token', { authorization: 'Token admin:adminpw' }, ''], ['u/p', {}, 'u=admin&p=adminpw']);
    }
    if (isHec(p)) accepted.push(['Splunk', { authorization: 'Splunk admin:adminpw' }, '']);
    for (const [what, headers, query] of accepted) {
      const r = await send(base, p, headers, query);
      t.equal(r.status, p.ok, label(p, `${listener}, ${what}`, r));
    }

    const reader = await send(base, p, { authorization: basic('reader', 'readerpw') });
    const writer = await send(base, p, { authorization: basic('writer', 'writerpw') });
    expectPermission(t, p, `${listener}, read-only user`, reader, p.access === 'write');
    expectPermission(t, p, `${listener}, write-only user`, writer, p.access === 'read');
  }
}

function expectPermission(t: Test, p: Probe, what: string, r: RawAnswer, denied: boolean): void {
  if (!denied) {
    t.equal(r.status, p.ok, label(p, what, r));
    return;
  }
  t.equal(r.status, 403, label(p, what, r));
  t.match(r.text, /not authorized/, label(p, what, r));
  // OTLP answers a google.rpc.Status (7 = PERMISSION_DENIED); HEC and Prometheus their own shapes.
  const code = codeOf(r);
  if (p.path.startsWith('/v1/otlp/')) t.equal(code, 7, label(p, what, r));
  else if (code !== undefined && !isHec(p)) t.equal(code, 7006, label(p, what, r));
}

t.test('auth on: the matrix on both listeners', async (t) => {
  const server = await startServer({ httpToml: API_TOML, topLevelToml: `user_provider = "${USERS}"` });
  t.teardown(() => server.stop());
  await setup(t, server, { authorization: basic('admin', 'adminpw') });
  await t.test('main listener', (t) => authOnMatrix(t, server.url, 'main'));
  await t.test('public API listener', (t) => authOnMatrix(t, server.apiUrl as string, 'api'));
});
