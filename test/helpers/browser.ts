/**
 * Driving Debian's chromium with playwright-core for the dashboard tests: launch with the flags a
 * container needs, record console errors and failed requests, take screenshots, run axe-core.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const CHROMIUM = '/usr/bin/chromium';
/** Headless, no sandbox (root in CI), and nothing that reaches the network on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];
export const hasChromium = fs.existsSync(CHROMIUM);
export const SKIP_REASON = `chromium is not installed at ${CHROMIUM} (.ci/run apt-installs it)`;
/** Screenshots land in test/dashboard/artifacts (git-ignored), one per page and test. */
export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dashboard', 'artifacts');

/** Starts chromium; the test's teardown closes it. */
export async function launchBrowser(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30_000,
    args: CHROMIUM_ARGS,
  });
  t.teardown(() => browser.close());
  return browser;
}

/** What went wrong on a page while it was watched. */
export interface PageProblems {
  consoleErrors: string[];
  failedRequests: string[];
}

export function watchPage(page: Page): PageProblems {
  const problems: PageProblems = { consoleErrors: [], failedRequests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') problems.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => problems.consoleErrors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.failedRequests.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.failedRequests.push(`${r.request().method()} ${r.url()}: ${r.status()}`);
  });
  return problems;
}

/**
 * Takes an expected refusal out of the tally: the one failed request (its status and path) and
 * the console line chromium prints for it. Returns what was removed, for the test to assert on.
 */
export function takeExpectedRefusal(problems: PageProblems, status: number, path: string): string[] {
  const taken: string[] = [];
  const keep = (list: string[], matches: (s: string) => boolean): string[] =>
    list.filter((s) => {
      if (!matches(s)) return true;
      taken.push(s);
      return false;
    });
  problems.failedRequests = keep(problems.failedRequests, (f) => f.endsWith(`: ${status}`) && f.includes(path));
  problems.consoleErrors = keep(problems.consoleErrors, (e) => e.includes(`status of ${status}`));
  return taken;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's violations on the page as it is now (the script runs in the page, hence a string). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate("'axe' in window"))) await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))`);
}

/** The serious and critical ones: what the dashboard must not have. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Replaces an editor's text the way a user would: focus, select all, type. */
export async function typeInto(page: Page, label: string, text: string): Promise<void> {
  const editor = page.locator(`.cm-content[aria-label="${label}"]`);
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}
