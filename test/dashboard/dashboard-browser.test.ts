/**
 * The dashboard in a real browser (issue 17): Debian's chromium driven by playwright-core against
 * the real server. Each page is used the way a person would, its rows or chart read back from the
 * DOM, screenshots saved under test/dashboard/artifacts.
 */
import t from 'tap';
import {
  hasChromium,
  launchBrowser,
  SKIP_REASON,
  screenshot,
  seriousViolations,
  takeExpectedRefusal,
  typeInto,
  watchPage,
} from '../helpers/browser.js';
import { sql, startServer, writeLines } from '../helpers/server.js';

const UI_TIMEOUT = 15_000;

t.test('the dashboard, page by page, in chromium', { skip: hasChromium ? false : SKIP_REASON }, async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const now = Date.now();
  // Two series of one metric, a point every 30 s over the last five minutes.
  const lines: string[] = [];
  for (let i = 10; i >= 0; i--) {
    lines.push(`dash_temp,host=alpha value=${20 + i} ${now - i * 30_000}`);
    lines.push(`dash_temp,host=beta value=${40 - i} ${now - i * 30_000}`);
  }
  t.equal((await writeLines(server.url, lines.join('\n'))).status, 204);
  const create = await sql(
    server.url,
    'CREATE TABLE app_logs (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, level STRING, message STRING)',
  );
  t.equal(create.status, 200, create.text);
  const logRows = [
    ['web-1', 'INFO', 'request ok'],
    ['web-2', 'ERROR', 'upstream timeout'],
    ['web-1', 'WARN', 'slow upstream timeout'],
    ['web-3', 'INFO', 'cache warm'],
  ];
  const values = logRows.map(([h, l, m], i) => `(${now - (i + 1) * 1000}, '${h}', '${l}', '${m}')`).join(', ');
  t.equal((await sql(server.url, `INSERT INTO app_logs VALUES ${values}`)).status, 200);
  // More lines than the explorer's limit: newest first must be the newest, not the first found.
  t.equal((await sql(server.url, 'CREATE TABLE many_logs (ts TIMESTAMP TIME INDEX, message STRING)')).status, 200);
  const many = Array.from({ length: 300 }, (_, i) => `(${now - 2000 - i * 700}, 'line ${i}')`).join(', ');
  t.equal((await sql(server.url, `INSERT INTO many_logs VALUES ${many}`)).status, 200);

  const browser = await launchBrowser(t);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  const problems = watchPage(page);

  // First load: everything it fetches, compressed as sent.
  let transferred = 0;
  const sizes: Promise<void>[] = [];
  const count = (r: import('playwright-core').Request) => {
    sizes.push(
      r.sizes().then((s) => {
        transferred += s.responseBodySize + s.responseHeadersSize;
      }),
    );
  };
  page.on('requestfinished', count);
  const first = await page.goto(`${server.url}/dashboard`, { waitUntil: 'networkidle' });
  t.equal(first?.status(), 200, '/dashboard redirects to the page');
  t.match(page.url(), /\/dashboard\/$/);
  page.off('requestfinished', count);
  await Promise.all(sizes);
  t.ok(transferred > 10_000 && transferred < 500 * 1024, `first load transfers ${transferred} B (< 500 KB)`);
  t.comment(`first load: ${transferred} bytes transferred`);

  await t.test('query page: SQL rows and the accessibility check', async (t) => {
    await page.locator('.cm-content[aria-label="SQL query"]').waitFor();
    await typeInto(page, 'SQL query', 'SELECT host, level, message FROM app_logs ORDER BY ts');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const rows = page.locator('#page-query table.results tbody tr');
    await rows.first().waitFor();
    t.equal(await rows.count(), 4, 'four rows in the table');
    t.same(
      await rows.nth(0).locator('td').allTextContents(),
      ['web-3', 'INFO', 'cache warm'],
      'the oldest row first, as ordered',
    );
    t.match(await page.locator('#page-query .status').textContent(), /4 rows in \d+ ms/, 'row count and timing');
    t.same(
      await page.locator('#page-query table.results thead .type').allTextContents(),
      ['String', 'String', 'String'],
      'column types in the header',
    );
    // Sorting by a column header reorders the rows.
    await page.locator('th button.sort', { hasText: 'message' }).click();
    t.equal(await rows.nth(0).locator('td').nth(2).textContent(), 'cache warm');
    await page.locator('th button.sort', { hasText: 'message' }).click();
    t.equal(await rows.nth(0).locator('td').nth(2).textContent(), 'upstream timeout');
    t.match(await page.locator('.history-list').textContent(), /FROM app_logs/, 'the query is in the history');
    await screenshot(page, 'query-sql');
    const serious = await seriousViolations(page);
    t.same(serious, [], 'no serious or critical axe violation');
  });

  await t.test('query page: a PromQL range query draws one line per series', async (t) => {
    await page.getByRole('radio', { name: 'PromQL' }).check();
    await typeInto(page, 'PromQL query', 'dash_temp');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const legend = page.locator('#page-query .result-chart .u-legend .u-series');
    await legend.nth(2).waitFor();
    // The legend's first entry is the time axis.
    t.equal((await legend.count()) - 1, 2, 'two series in the legend');
    t.equal(await page.locator('#page-query .result-chart').getAttribute('data-series'), '2');
    t.match(await legend.allTextContents(), [/./, /host="alpha"/, /host="beta"/]);
    t.match(await page.locator('#page-query .status').textContent(), /2 series/);
    // Stacked and logarithmic redraws keep the series.
    await page.getByLabel('Stacked', { exact: true }).check();
    await page.getByLabel('Log scale', { exact: true }).check();
    t.equal(await page.locator('#page-query .result-chart').getAttribute('data-series'), '2');
    await screenshot(page, 'query-promql-chart');
    t.same(await seriousViolations(page), [], 'the chart view passes axe too');
    await page.getByLabel('Stacked', { exact: true }).uncheck();
    await page.getByLabel('Log scale', { exact: true }).uncheck();
    await page.getByRole('radio', { name: 'SQL' }).check();
  });

  await t.test('a server error is shown where the server says it is', async (t) => {
    await typeInto(page, 'SQL query', 'SELECT host FROM app_logs WHERE ) ORDER BY ts');
    await page.keyboard.press('Control+Enter');
    await page.locator('#page-query .error').waitFor();
    t.match(await page.locator('#page-query .error').textContent(), /found: \) at Line: 1, Column: 33/);
    t.equal(await page.locator('.cm-lintRange-error').first().textContent(), ')', 'the editor marks the position');
    // The refused request is expected: take it and its console line out of the tally.
    t.equal(takeExpectedRefusal(problems, 400, '/v1/sql').length, 2, 'the refused request and its console line');

    await page.getByRole('radio', { name: 'PromQL' }).check();
    await typeInto(page, 'PromQL query', 'sum(dash_temp) by (host');
    await page.keyboard.press('Control+Enter');
    // The SQL error may still be on the page until the PromQL answer replaces it.
    await page.locator('#page-query .error', { hasText: 'parse error' }).waitFor();
    t.match(await page.locator('#page-query .error').textContent(), /1:24: parse error: unclosed left parenthesis/);
    // Column 24 is past the end of the line: the mark falls on its last character.
    t.equal(await page.locator('#page-query .cm-lintRange-error').last().textContent(), 't', "PromQL's position too");
    t.equal(takeExpectedRefusal(problems, 400, '/query_range').length, 2);
    await page.getByRole('radio', { name: 'SQL' }).check();
  });

  await t.test('catalog: open a table and query it', async (t) => {
    // Flushed, so that the table has segments and an on-disk size to show.
    t.equal((await sql(server.url, "ADMIN flush_table('app_logs')")).status, 200);
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.locator('[data-table="public.app_logs"]').click();
    await page.getByRole('heading', { name: 'public.app_logs' }).waitFor();
    const facts = page.locator('dl.facts');
    await page.waitForFunction("document.querySelectorAll('dl.facts dd')[2]?.textContent !== '…'");
    t.match(await facts.textContent(), /Time indexts/);
    t.match(await facts.textContent(), /Tagshost/);
    t.match(await facts.textContent(), /Rows4/);
    await page.waitForFunction("document.querySelector('[data-testid=disk-size]')?.textContent !== '…'");
    t.match(await page.locator('[data-testid=disk-size]').textContent(), /^\d+(\.\d+)? (B|KiB)$/, 'on-disk size');
    t.same(await page.locator('table.columns tbody td:first-child').allTextContents(), [
      'ts',
      'host',
      'level',
      'message',
    ]);
    await screenshot(page, 'catalog');
    const serious = await seriousViolations(page);
    t.same(serious, [], 'no serious or critical axe violation');
    await page.getByRole('button', { name: 'Query this table' }).click();
    await page.locator('#page-query').waitFor({ state: 'visible' });
    const rows = page.locator('#page-query table.results tbody tr');
    await page.locator('.cm-content[aria-label="SQL query"]', { hasText: '"app_logs"' }).waitFor();
    await page.locator('#page-query .status', { hasText: '4 rows' }).waitFor();
    t.equal(await rows.count(), 4, 'the table query ran');
  });

  await t.test('logs: search terms, newest first', async (t) => {
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.locator('#page-logs option', { hasText: 'public.app_logs' }).waitFor({ state: 'attached' });
    await page.getByLabel('Table', { exact: true }).selectOption({ label: 'public.app_logs' });
    await page.getByLabel('Terms', { exact: true }).fill('timeout');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('#page-logs table.results tbody tr');
    await page.locator('#page-logs .status', { hasText: 'lines' }).waitFor();
    t.equal(await rows.count(), 2, 'two lines have the term');
    const messages = await page.locator('#page-logs table.results tbody td:last-child').allTextContents();
    t.same(messages, ['upstream timeout', 'slow upstream timeout'], 'newest first');
    await page.getByLabel('Filters', { exact: true }).fill('level=WARN');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction("document.querySelectorAll('#page-logs table.results tbody tr').length === 1");
    t.pass('a filter narrows the lines');
    await page.getByLabel('Table', { exact: true }).selectOption({ label: 'public.many_logs' });
    await page.getByLabel('Terms', { exact: true }).fill('');
    await page.getByLabel('Filters', { exact: true }).fill('');
    await page.getByLabel('Limit', { exact: true }).fill('25');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#page-logs .status', { hasText: '25 lines' }).waitFor();
    t.same(
      await page.locator('#page-logs table.results tbody td:last-child').allTextContents(),
      Array.from({ length: 25 }, (_, i) => `line ${i}`),
      'the 25 newest of 300 lines, newest first',
    );
    await screenshot(page, 'logs');
    t.same(await seriousViolations(page), [], 'no serious or critical axe violation');
  });

  await t.test('pipelines: dry run shows each processor, save lists the version', async (t) => {
    await page.getByRole('link', { name: 'Pipelines' }).click();
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.locator('#page-pipelines .trace').first().waitFor();
    const steps = await page.locator('#page-pipelines .trace li strong').allTextContents();
    t.same(steps, ['dissect', 'date'], "each processor's output");
    t.match(await page.locator('#page-pipelines .trace li').first().textContent(), /"method": "GET"/);
    t.match(await page.locator('#page-pipelines .rows-out').textContent(), /index\.html/);
    await screenshot(page, 'pipelines');
    t.same(await seriousViolations(page), [], 'no serious or critical axe violation');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('#page-pipelines .versions tbody tr').first().waitFor();
    t.equal(await page.locator('#page-pipelines .versions tbody tr').count(), 1, 'one version listed');
    const stored = await fetch(`${server.url}/v1/pipelines/my_pipeline`);
    t.equal(stored.status, 200, 'the pipeline is stored');
    await page.getByRole('button', { name: /^Delete my_pipeline/ }).click();
    await page.locator('#page-pipelines .versions', { hasText: 'No pipeline saved yet.' }).waitFor();
    t.pass('the version is deleted');

    // Validation: the YAML parser's errors are marked as one types; the server's on a dry run.
    await typeInto(page, 'Pipeline YAML', 'processors:\n  - dissect: {fields: [message\n');
    await page.locator('#page-pipelines .cm-lint-marker-error').first().waitFor();
    t.pass('a YAML syntax error is marked in the editor');
    await typeInto(page, 'Pipeline YAML', 'processors:\n  - no_such_processor:\n      field: message\n');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.locator('#page-pipelines .dry-run .error').waitFor();
    t.match(await page.locator('#page-pipelines .dry-run .error').textContent(), /Failed to build pipeline/);
    await page.locator('#page-pipelines .cm-lintRange-error').first().waitFor();
    t.equal(
      await page.locator('#page-pipelines .cm-lintRange-error').first().textContent(),
      'no_such_processor',
      "the server's refusal is marked where it says (line 2, column 5)",
    );
    await screenshot(page, 'pipelines-invalid');
    // The refused dry run is expected: take it and its console line out of the tally.
    t.equal(
      takeExpectedRefusal(problems, 400, '/v1/pipelines/_dryrun').length,
      2,
      'the refused request and its console line',
    );
  });

  await t.test('overview: ingest and shards from /metrics', async (t) => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.locator('#page-overview table.results caption', { hasText: 'Shards' }).waitFor();
    t.equal(await page.locator('#page-overview table:has(caption:text("Shards")) tbody tr').count(), 2, 'two shards');
    t.match(
      await page.locator('#page-overview table:has(caption:text("Ingest by protocol"))').textContent(),
      /lineproto|influx/i,
    );
    await screenshot(page, 'overview');
    t.same(await seriousViolations(page), [], 'no serious or critical axe violation');
    await page.getByRole('link', { name: 'Query' }).click();
  });

  t.same(problems.consoleErrors, [], 'no console error');
  t.same(problems.failedRequests, [], 'no failed request');

  await t.test('a keyboard-only user runs a query', async (t) => {
    const kb = await context.newPage();
    kb.setDefaultTimeout(UI_TIMEOUT);
    await kb.goto(`${server.url}/dashboard/`, { waitUntil: 'networkidle' });
    let focused = false;
    for (let i = 0; i < 30 && !focused; i++) {
      await kb.keyboard.press('Tab');
      focused = (await kb.evaluate("document.activeElement?.getAttribute('aria-label')")) === 'SQL query';
    }
    t.ok(focused, 'Tab reaches the SQL editor');
    await kb.keyboard.press('Control+A');
    await kb.keyboard.type('SELECT count(*) AS n FROM app_logs');
    await kb.keyboard.press('Control+Enter');
    await kb.locator('#page-query table.results tbody tr').first().waitFor();
    t.same(await kb.locator('#page-query table.results tbody td').allTextContents(), ['4']);
    await screenshot(kb, 'keyboard');
    await kb.close();
  });
});
