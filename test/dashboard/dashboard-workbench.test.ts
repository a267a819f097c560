/**
 * The workbench and the log explorer beyond the first look (issue 17): PromQL completion from our
 * API, paging, CSV and JSON export, history, a SQL result with a time index as a chart, legend
 * toggles, zoom by dragging, auto-refresh, and the log explorer's live tail.
 */
import fs from 'node:fs';
import t from 'tap';
import { hasChromium, launchBrowser, SKIP_REASON, screenshot, typeInto, watchPage } from '../helpers/browser.js';
import { sql, startServer, writeLines } from '../helpers/server.js';

t.test('workbench details in chromium', { skip: hasChromium ? false : SKIP_REASON }, async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  const now = Date.now();
  const lines: string[] = [];
  for (let i = 0; i < 250; i++) {
    lines.push(`wb_load,host=h${i % 2} value=${i} ${now - (250 - i) * 1000}`);
  }
  t.equal((await writeLines(server.url, lines.join('\n'))).status, 204);
  const created = await sql(server.url, 'CREATE TABLE tail_logs (ts TIMESTAMP TIME INDEX, message STRING)');
  t.equal(created.status, 200, created.text);
  t.equal((await sql(server.url, `INSERT INTO tail_logs VALUES (${now - 5000}, 'before the tail')`)).status, 200);

  const browser = await launchBrowser(t);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = watchPage(page);
  await page.goto(`${server.url}/dashboard/`, { waitUntil: 'networkidle' });
  const run = () => page.getByRole('button', { name: 'Run', exact: true }).click();
  const rows = page.locator('#page-query .result-table tbody tr');

  await t.test('paging and export of a large result', async (t) => {
    await typeInto(page, 'SQL query', 'SELECT host, value FROM wb_load ORDER BY value');
    await run();
    await page.locator('#page-query .status', { hasText: '250 rows' }).waitFor();
    t.equal(await rows.count(), 100, 'a page holds 100 rows');
    t.match(await page.locator('.pager').textContent(), /Page 1 of 3/);
    await page.getByRole('button', { name: 'Next page' }).click();
    t.equal(await rows.first().locator('td').nth(1).textContent(), '100', 'the second page starts at row 101');
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const csvText = fs.readFileSync(await csv.path(), 'utf8');
    const csvLines = csvText.trim().split('\n');
    t.equal(csvLines[0], 'host,value');
    t.equal(csvLines.length, 251, 'every row is exported, not only the page');
    t.equal(csvLines[1], 'h0,0');
    const [jsonFile] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON' }).click(),
    ]);
    const objects = JSON.parse(fs.readFileSync(await jsonFile.path(), 'utf8')) as Array<Record<string, unknown>>;
    t.equal(objects.length, 250);
    t.same(objects[249], { host: 'h1', value: 249 });
  });

  await t.test('a SQL result with a time index is a chart; legend toggles; zoom by dragging', async (t) => {
    await typeInto(page, 'SQL query', 'SELECT greptime_timestamp, host, value FROM wb_load');
    await run();
    await page.locator('#page-query .status', { hasText: '250 rows' }).waitFor();
    await page.getByRole('button', { name: 'Chart' }).click();
    const chart = page.locator('#page-query .result-chart');
    await chart.locator('.u-legend').waitFor();
    t.equal(await chart.getAttribute('data-series'), '2', 'one line per host');
    const legend = chart.locator('.u-legend .u-series');
    t.match(await legend.allTextContents(), [/./, /value\{host=h0\}/, /value\{host=h1\}/]);
    await legend.nth(1).click();
    t.match(await legend.nth(1).getAttribute('class'), /u-off/, 'a click on the legend hides the line');
    await legend.nth(1).click();
    t.notMatch(await legend.nth(1).getAttribute('class'), /u-off/, 'and shows it again');
    const before = Number(await chart.getAttribute('data-x-max')) - Number(await chart.getAttribute('data-x-min'));
    const over = await chart.locator('.u-over').boundingBox();
    if (!over) throw new Error('no plot area');
    await page.mouse.move(over.x + over.width * 0.3, over.y + over.height / 2);
    await page.mouse.down();
    await page.mouse.move(over.x + over.width * 0.6, over.y + over.height / 2, { steps: 5 });
    await page.mouse.up();
    const after = Number(await chart.getAttribute('data-x-max')) - Number(await chart.getAttribute('data-x-min'));
    t.ok(after < before * 0.5, `dragging zooms in: ${before.toFixed(0)} s → ${after.toFixed(0)} s`);
    await screenshot(page, 'sql-chart-zoomed');
  });

  await t.test('history brings a query back', async (t) => {
    await page.locator('.history-item', { hasText: 'ORDER BY value' }).click();
    t.match(await page.locator('.cm-content[aria-label="SQL query"]').textContent(), /ORDER BY value/);
    t.equal(await page.locator('.history-item').count(), 2, 'each query once');
    await page.reload({ waitUntil: 'networkidle' });
    t.equal(await page.locator('.history-item').count(), 2, 'kept in the browser across loads');
  });

  await t.test('PromQL: completion of metric names from our API, auto-refresh', async (t) => {
    await page.getByRole('radio', { name: 'PromQL' }).check();
    await typeInto(page, 'PromQL query', 'wb_lo');
    await page.keyboard.press('Control+Space');
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: 'wb_load' });
    await option.first().waitFor();
    t.pass('wb_load is offered');
    await option.first().click();
    t.match(await page.locator('.cm-content[aria-label="PromQL query"]').textContent(), /^wb_load/, 'and taken');
    await typeInto(page, 'PromQL query', 'sum by (host) (wb_load)');
    let rangeQueries = 0;
    page.on('request', (r) => {
      if (r.url().includes('/query_range')) rangeQueries += 1;
    });
    await page.locator('#page-query').getByLabel('Range', { exact: true }).selectOption('900');
    await page.getByLabel('Step (s)', { exact: true }).fill('30');
    await run();
    await page.locator('#page-query .status', { hasText: 'step 30 s' }).waitFor();
    t.equal(await page.locator('#page-query .result-chart').getAttribute('data-series'), '2');
    await page.getByLabel('Auto-refresh', { exact: true }).selectOption('5');
    // Two refreshes at 5 s intervals; polled so a slow machine only makes it wait longer.
    for (let waited = 0; waited < 30_000 && rangeQueries < 3; waited += 500) await page.waitForTimeout(500);
    await page.getByLabel('Auto-refresh', { exact: true }).selectOption('0');
    t.ok(rangeQueries >= 3, `the query ran again by itself (${rangeQueries} range queries)`);
  });

  await t.test('logs: live tail shows a new line without a click', async (t) => {
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.locator('#page-logs option', { hasText: 'public.tail_logs' }).waitFor({ state: 'attached' });
    await page.getByLabel('Table', { exact: true }).selectOption({ label: 'public.tail_logs' });
    await page.getByLabel('Live tail', { exact: true }).check();
    const cells = page.locator('#page-logs table.results tbody td:last-child');
    await cells.first().waitFor();
    t.same(await cells.allTextContents(), ['before the tail']);
    t.equal((await sql(server.url, `INSERT INTO tail_logs VALUES (${Date.now()}, 'during the tail')`)).status, 200);
    await page.locator('#page-logs table.results tbody td', { hasText: 'during the tail' }).waitFor();
    t.same(await cells.allTextContents(), ['during the tail', 'before the tail'], 'the new line on top');
    await page.getByLabel('Live tail', { exact: true }).uncheck();
  });

  await t.test('overview: a heap flame graph shown in the page', async (t) => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: 'Heap profile' }).click();
    const graph = page.frameLocator('iframe.flame').locator('svg').first();
    await graph.waitFor({ state: 'attached', timeout: 30_000 });
    t.pass('the flame graph is an SVG in the page');
    t.match(
      await page.locator('#page-overview .status', { hasText: 'profile' }).last().textContent(),
      /Heap profile taken/,
    );
    await screenshot(page, 'overview-heap-flamegraph');
  });

  t.same(problems.consoleErrors, [], 'no console error');
  t.same(problems.failedRequests, [], 'no failed request');
});
