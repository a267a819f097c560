/**
 * The dashboard with static-user auth on, through the public API listener, mounted by a reverse
 * proxy under a path prefix (issue 17): the assets load, the first /v1 call is refused with 401,
 * the login form opens, and with the credentials queries work.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import {
  hasChromium,
  launchBrowser,
  SKIP_REASON,
  screenshot,
  seriousViolations,
  typeInto,
  watchPage,
} from '../helpers/browser.js';
import { sql, startServer } from '../helpers/server.js';

const PREFIX = '/shoal';

/** A reverse proxy serving `target` under PREFIX, as nginx's `location /shoal/ { proxy_pass ...; }`. */
async function prefixProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    if (!path.startsWith(`${PREFIX}/`)) {
      res.writeHead(404).end();
      return;
    }
    const upstream = http.request(
      `${target}${path.slice(PREFIX.length)}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${PREFIX}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

t.test('auth on, public API listener, under a path prefix', { skip: hasChromium ? false : SKIP_REASON }, async (t) => {
  const server = await startServer({
    topLevelToml: 'user_provider = "static_user_provider:cmd:admin=s3cret"',
    httpToml: 'enable_api_server = true\napi_server_addr = "127.0.0.1:0"',
  });
  t.teardown(() => server.stop());
  const auth = { authorization: `Basic ${Buffer.from('admin:s3cret').toString('base64')}` };
  const created = await sql(server.url, 'CREATE TABLE notes (ts TIMESTAMP TIME INDEX, body STRING)', undefined, auth);
  t.equal(created.status, 200, created.text);
  const inserted = await sql(server.url, "INSERT INTO notes VALUES (1000, 'first'), (2000, 'second')", undefined, auth);
  t.equal(inserted.status, 200, inserted.text);

  const proxy = await prefixProxy(server.apiUrl as string);
  t.teardown(() => proxy.close());
  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(15_000);
  const problems = watchPage(page);
  const requested: string[] = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));

  const loaded = await page.goto(`${proxy.url}/dashboard`, { waitUntil: 'networkidle' });
  t.equal(loaded?.status(), 200);
  t.equal(new URL(page.url()).pathname, `${PREFIX}/dashboard/`, 'the redirect kept the prefix');
  const dialog = page.locator('dialog.login');
  await dialog.waitFor({ state: 'visible' });
  t.pass('a refused call opens the login form');
  t.ok(
    requested.every((p) => p.startsWith(`${PREFIX}/`)),
    `every request stays under the prefix: ${[...new Set(requested)].join(', ')}`,
  );
  t.ok(problems.failedRequests.length > 0, 'the server refused the call without credentials');
  t.ok(
    problems.failedRequests.every((f) => / 401$/.test(f) && f.includes(`${PREFIX}/v1/`)),
    `only 401s from /v1 before the login: ${problems.failedRequests.join('; ')}`,
  );
  t.ok(
    problems.consoleErrors.every((e) => e.includes('401')),
    `only the 401s in the console: ${problems.consoleErrors.join('; ')}`,
  );
  await screenshot(page, 'auth-login');
  t.same(await seriousViolations(page), [], 'the login form passes axe');

  await page.getByLabel('User', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await dialog.getByText('Those credentials were refused.').waitFor();
  t.pass('a wrong password brings the form back, saying so');

  problems.failedRequests.length = 0;
  problems.consoleErrors.length = 0;
  await page.getByLabel('User', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('s3cret');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await dialog.waitFor({ state: 'hidden' });

  await typeInto(page, 'SQL query', 'SELECT body FROM notes ORDER BY ts');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.locator('#page-query .status', { hasText: '2 rows' }).waitFor();
  t.same(await page.locator('#page-query table.results tbody td').allTextContents(), ['first', 'second']);
  await page.getByRole('link', { name: 'Catalog' }).click();
  await page.locator('[data-table="public.notes"]').click();
  await page.locator('dl.facts', { hasText: 'Rows2' }).waitFor();
  t.pass('the catalog reads the table with the credentials');
  await screenshot(page, 'auth-after-login');
  t.same(problems.failedRequests, [], 'no failed request after the login');
  t.same(problems.consoleErrors, [], 'no console error after the login');
  t.ok(
    requested.every((p) => p.startsWith(`${PREFIX}/`)),
    'still nothing outside the prefix',
  );
});
