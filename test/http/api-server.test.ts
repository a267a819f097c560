/** The public API listener serves only /v1 and /dashboard; admin paths are 404 there, before auth. */
import t from 'tap';
import { startServer } from '../helpers/server.js';

t.test('the API server filters paths and the main server serves all', async (t) => {
  const server = await startServer({
    httpToml: 'enable_api_server = true\napi_server_addr = "127.0.0.1:0"',
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=pw"',
  });
  t.teardown(() => server.stop());
  t.ok(server.apiUrl, 'the API listener is up');
  const api = server.apiUrl as string;
  for (const p of ['/health', '/metrics', '/config', '/status', '/debug/log_level', '/v10', '/v1-x', '/']) {
    const res = await fetch(`${api}${p}`);
    t.equal(res.status, 404, `${p} is 404 on the API server`);
    t.equal(await res.text(), '', `${p} has an empty body`);
  }
  t.equal((await fetch(`${api}/v1/health`)).status, 200);
  t.equal((await fetch(`${api}/v1/sql?sql=SELECT%201`)).status, 401, '/v1 paths still need auth');
  const auth = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };
  t.equal((await fetch(`${api}/v1/sql?sql=SELECT%201`, { headers: auth })).status, 200);
  t.equal((await fetch(`${server.url}/metrics`)).status, 200, 'the main server serves admin paths');
});

t.test('the API server is off by default', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  t.equal(server.apiUrl, null);
});
