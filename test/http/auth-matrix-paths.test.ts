/**
 * The rest of the auth matrix (issue 16): traversal and look-alike paths never reach an admin or
 * debug handler (nor skip auth) on either listener, oversized headers are refused cleanly and the
 * server keeps serving, and `/config` never shows a password, whichever way the users were given.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { rawRequest } from '../helpers/raw-http.js';
import { startServer, type TestServer, tempDir } from '../helpers/server.js';

const API_TOML = 'enable_api_server = true\napi_server_addr = "127.0.0.1:0"';
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const ADMIN = { authorization: basic('admin', 'adminpw') };

/** Paths that name an admin, debug or authenticated route through `..`, encodings, case or slashes. */
const TRAVERSALS = [
  '/v1/../config',
  '/v1/../debug/prof/mem/status',
  '/v1/%2e%2e/config',
  '/v1/%2E%2E/debug/prof/mem/status',
  '/v1/..%2fconfig',
  '/v1%2f..%2fconfig',
  '/v1/./../metrics',
  '/v1/health/../../config',
  '/dashboard/../config',
  '/dashboard/%2e%2e/debug/prof/mem/status',
  '//debug/prof/mem/status',
  '//config',
  '/./config',
  '/V1/../config',
  '/V1/sql?sql=SELECT%201',
  '/%76%31/sql?sql=SELECT%201',
  '/v1//sql?sql=SELECT%201',
  '/v1/health/../sql?sql=SELECT%201',
  '/v1/lineproto/ping/../../sql?sql=SELECT%201',
  '/v1/eventcollector/services/collector/health/../../../../sql?sql=SELECT%201',
  '/v1/sql/../../config',
  '/v1/sql%00/../../config',
  '/config%00',
  '/config/',
  '/CONFIG',
  '/Debug/prof/mem/status',
];

// The three cases run at once, each on its own servers: most of their time is waiting for uWS to
// drop refused connections at its 10 s idle timeout.
t.jobs = 3;

t.test(
  'traversal and look-alike paths are 404 on both listeners, with or without credentials',
  { buffered: true },
  async (t) => {
    const server = await startServer({
      httpToml: API_TOML,
      topLevelToml: 'user_provider = "static_user_provider:cmd:admin=adminpw"',
    });
    t.teardown(() => server.stop());
    const api = server.apiUrl as string;
    t.equal((await rawRequest(api, 'GET', '/v1/health')).status, 200, 'the API listener answers');
    const listeners = [
      ['main', server.url],
      ['api', api],
    ] as const;
    // An absolute-form request target: uWS drops it, closing at its idle timeout (~10 s), so these
    // run alongside the rest.
    const absolute = listeners.map(([, base]) =>
      rawExchange(base, 'GET http://127.0.0.1/config HTTP/1.1\r\nhost: x\r\n\r\n'),
    );
    for (const [name, base] of listeners) {
      for (const p of TRAVERSALS) {
        for (const [who, headers] of [
          ['none', {}],
          ['admin', ADMIN],
        ] as const) {
          const r = await rawRequest(base, 'GET', p, headers);
          t.equal(r.status, 404, `${name} ${who} ${p}: ${r.status} ${r.text.slice(0, 120)}`);
          if (name === 'api') t.equal(r.text, '', `${name} ${p}: empty body`);
        }
      }
    }
    for (const [i, e] of (await Promise.all(absolute)).entries()) {
      t.ok(refused(e), `${listeners[i]?.[0]} absolute-form /config: ${JSON.stringify(e.answer.slice(0, 60))}`);
      t.notMatch(e.answer, /user_provider/);
    }
  },
);

interface Exchange {
  answer: string;
  /** The server closed (or reset) the connection. */
  closed: boolean;
}

/** Writes raw bytes; resolves at the first complete answer head, a close, or after 15 s. */
function rawExchange(base: string, bytes: string): Promise<Exchange> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = '';
    const done = (closed: boolean): void => {
      socket.destroy();
      resolve({ answer, closed });
    };
    socket.setTimeout(15_000, () => done(false));
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      if (answer.includes('\r\n\r\n')) done(false);
    });
    socket.on('error', () => done(true));
    socket.on('close', () => done(true));
    socket.write(bytes);
  });
}

/** A clean refusal: a 4xx answer, or the connection closed without one; never a success. */
function refused(e: Exchange): boolean {
  return /^HTTP\/1\.1 4\d\d /.test(e.answer) || (e.answer === '' && e.closed);
}

async function stillServes(t: Test, server: TestServer, what: string): Promise<void> {
  t.equal((await rawRequest(server.url, 'GET', '/health')).status, 200, `main still serves after ${what}`);
  t.equal(
    (await rawRequest(server.apiUrl as string, 'GET', '/v1/health')).status,
    200,
    `api still serves after ${what}`,
  );
}

t.test('oversized headers are refused cleanly and the server keeps serving', { buffered: true }, async (t) => {
  const server = await startServer({
    httpToml: API_TOML,
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=adminpw"',
  });
  t.teardown(() => server.stop());
  const request = (headers: string, auth = `authorization: ${ADMIN.authorization}\r\n`) =>
    `GET /v1/sql?sql=SELECT%201 HTTP/1.1\r\nhost: x\r\n${auth}${headers}\r\n`;
  const big = (kib: number) => `x-big: ${'a'.repeat(kib * 1024)}\r\n`;
  const many = (n: number) => Array.from({ length: n }, (_, i) => `x-h${i}: v\r\n`).join('');
  const onListener = async (base: string): Promise<void> => {
    // A large but ordinary header (a big cookie) is answered. uWS takes a header block up to about
    // 100 KiB, but a 64 KiB one went unanswered once in CI, so the check stays well inside.
    const within = await rawExchange(base, request(big(8)));
    t.match(within.answer, /^HTTP\/1\.1 200 /, `${base}: an 8 KiB header is within the limit`);
    // Larger blocks and more than ~48 headers are dropped by uWS: a reset, or a close at its 10 s
    // idle timeout, never an answer.
    const cases: Array<[string, string]> = [
      ['a 128 KiB header', request(big(128))],
      ['a 1 MiB header', request(big(1024))],
      ['a 1 MiB header without credentials', request(big(1024), '')],
      ['60 headers', request(many(60))],
      ['500 headers', request(many(500))],
      ['64 KiB of Basic credentials', request('', `authorization: Basic ${'QUFB'.repeat(16 * 1024)}\r\n`)],
    ];
    const answers = await Promise.all(cases.map(([, bytes]) => rawExchange(base, bytes)));
    cases.forEach(([what], i) => {
      const e = answers[i] as Exchange;
      t.ok(refused(e), `${base} ${what}: ${JSON.stringify(e.answer.slice(0, 80))} closed=${e.closed}`);
    });
    // uWS answers 64 KiB of credentials with our 401 or drops them (it varies with how the bytes
    // arrive): either way they never pass.
    t.match(answers[5]?.answer ?? '', /^(HTTP\/1\.1 401 |$)/, 'oversized Basic credentials are a 401 or dropped');
    await stillServes(t, server, 'oversized headers');
  };
  // Both listeners at once, so that the idle timeouts overlap.
  await Promise.all([onListener(server.url), onListener(server.apiUrl as string)]);
  // Bounded: 20 oversized requests in a row, then a normal one.
  for (let i = 0; i < 20; i++)
    await rawExchange(server.url, `GET /health HTTP/1.1\r\nx: ${'b'.repeat(200_000)}\r\n\r\n`);
  await stillServes(t, server, 'twenty oversized requests');
  const ok = await rawRequest(server.url, 'GET', '/v1/sql?sql=SELECT%201', ADMIN);
  t.equal(ok.status, 200, 'an authenticated query still works');
});

const SECRETS = ['Cmd-s3cret-pw1', 'Cmd-s3cret-pw2', 'File-s3cret-pw3', 'Watch-s3cret-pw4', 'Env-s3cret-pw5'];

async function configNeverShows(t: Test, server: TestServer, login: Record<string, string>, what: string) {
  for (const headers of [{}, login, { authorization: basic('nobody', 'x') }]) {
    const main = await rawRequest(server.url, 'GET', '/config', headers);
    t.equal(main.status, 200, `${what}: /config is served on the main listener`);
    t.match(main.text, /user_provider/, `${what}: /config names the provider`);
    const api = await rawRequest(server.apiUrl as string, 'GET', '/config', headers);
    t.equal(api.status, 404, `${what}: /config is 404 on the API listener`);
    for (const body of [main.text, api.text]) {
      for (const secret of SECRETS) t.notOk(body.includes(secret), `${what}: /config does not show ${secret}`);
    }
  }
  for (const secret of SECRETS) t.notOk(server.output().includes(secret), `${what}: the log does not show ${secret}`);
}

t.test(
  '/config never shows a password, on either listener, with or without credentials',
  { buffered: true },
  async (t) => {
    const dir = tempDir();
    const file = path.join(dir, 'users');
    fs.writeFileSync(file, `# users\nalice=plain:${SECRETS[2]}\nbob:ro=${SECRETS[3]}\nbroken line ${SECRETS[2]}\n`);
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const providers: Array<[string, Record<string, string>, { topLevelToml?: string; env?: NodeJS.ProcessEnv }]> = [
      [
        'cmd',
        { authorization: basic('admin', SECRETS[0] as string) },
        {
          topLevelToml: `user_provider = "static_user_provider:cmd:admin=${SECRETS[0]},reader:ro=plain:${SECRETS[1]}"`,
        },
      ],
      [
        'file',
        { authorization: basic('alice', SECRETS[2] as string) },
        { topLevelToml: `user_provider = "static_user_provider:file:${file}"` },
      ],
      [
        'watch file',
        { authorization: basic('bob', SECRETS[3] as string) },
        { topLevelToml: `user_provider = "watch_file_user_provider:${file}"` },
      ],
      [
        'environment',
        { authorization: basic('envuser', SECRETS[4] as string) },
        { env: { SHOALDB_USER_PROVIDER: `static_user_provider:cmd:envuser=${SECRETS[4]}` } },
      ],
    ];
    for (const [what, login, opts] of providers) {
      const server = await startServer({ httpToml: API_TOML, ...opts });
      try {
        const probe = await rawRequest(server.url, 'GET', '/v1/sql?sql=SELECT%201', login);
        t.equal(probe.status, 200, `${what}: the user logs in (${probe.text.slice(0, 100)})`);
        await configNeverShows(t, server, login, what);
      } finally {
        await server.stop();
      }
    }
  },
);
