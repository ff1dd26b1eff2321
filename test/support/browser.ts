// The browser tests' tools: Debian's Chromium driven by playwright-core (never a browser
// that playwright downloads), axe-core injected from node_modules, screenshots at 1280
// and 375 px into test-output/screenshots/ (not committed), and the built web application
// (web/build.ts --if-stale) served by a real herald listening on a loopback port.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';

const root = new URL('../../', import.meta.url).pathname;
export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];
export const SCREENSHOTS = join(root, 'test-output', 'screenshots');

/** Why the browser tests cannot run here, or false. CI installs Chromium (.ci/run). */
export const skipWithoutChromium: string | false = existsSync(CHROMIUM)
  ? false
  : `browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;

/** Builds web/dist when a source is newer than it (npm ci built it; a developer may have edited since). */
export function buildWebIfStale(): void {
  execFileSync(process.execPath, [join(root, 'web', 'build.ts'), '--if-stale', '--quiet'], { cwd: root, stdio: 'inherit' });
}

export async function launchChromium(t: TestContext): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  t.after(() => browser.close());
  return browser;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What a page did wrong that no assertion of the story looks at: script errors and CSP refusals. */
export interface PageProblems { readonly errors: string[] }

/**
 * A browser context (a separate cookie jar: another person, or another browser of the
 * same person) whose pages report uncaught errors and Content-Security-Policy violations.
 */
export async function openContext(browser: Browser, baseURL: string, problems: PageProblems, storageState?: Awaited<ReturnType<BrowserContext['storageState']>>): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 }, colorScheme: 'light', ...(storageState === undefined ? {} : { storageState }) });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  // Injected by the DevTools protocol, so the page's own CSP does not apply to this listener.
  // (Page code is written as strings: this file is type-checked without the DOM's types.)
  await context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
    console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' in ' + event.sourceFile + ':' + event.lineNumber);
  });`);
  context.on('page', (page) => watch(page, problems));
  return context;
}

// The requests each page has under way: a page is settled (for axe and its photograph)
// when none is, and no loading state shows. Playwright's own 'networkidle' is not used:
// it is a lifecycle event of the document's load, and once a sandboxed preview iframe has
// come and gone in the single-page app it may never fire again.
const underWay = new WeakMap<Page, { requests: Set<Request>; idle: (() => void)[] }>();

function track(page: Page): void {
  const state = { requests: new Set<Request>(), idle: [] as (() => void)[] };
  underWay.set(page, state);
  const done = (request: Request): void => {
    state.requests.delete(request);
    if (state.requests.size === 0) for (const resolve of state.idle.splice(0)) resolve();
  };
  // The live stream (GET /v1/events/stream) stays open as long as the page: never under way.
  page.on('request', (request) => { if (request.resourceType() !== 'eventsource') state.requests.add(request); });
  page.on('requestfinished', done);
  page.on('requestfailed', done);
}

function noRequestUnderWay(page: Page): Promise<void> {
  const state = underWay.get(page);
  if (state === undefined || state.requests.size === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`requests still under way after 30 s: ${[...state.requests].map((r) => r.url()).join(', ')}`)), 30_000);
    state.idle.push(() => { clearTimeout(timer); resolve(); });
  });
}

/** Waits until the page has no request under way and shows no loading state (spinner, dimmed table). */
export async function settle(page: Page): Promise<void> {
  await noRequestUnderWay(page);
  // Polled with page.evaluate (the DevTools protocol, which the page's CSP does not govern):
  // waitForFunction polls by evaluating its text inside the page, which script-src 'self' refuses as eval.
  const quiet = 'document.readyState === "complete" && document.querySelector(".state.loading, .loading-table, [aria-busy=\\"true\\"]") === null';
  const deadline = Date.now() + 30_000;
  while (!(await page.evaluate(quiet))) {
    if (Date.now() > deadline) throw new Error(`${page.url()} still shows a loading state after 30 s`);
    await page.waitForTimeout(50);
  }
  await noRequestUnderWay(page);
}

function watch(page: Page, problems: PageProblems): void {
  track(page);
  page.on('pageerror', (error) => problems.errors.push(`${page.url()}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // A refused request shows in the console as a failed resource; herald's answer is the page's business.
    if (/Failed to load resource: the server responded with a status of (4\d\d)/.test(text)) return;
    problems.errors.push(`${page.url()}: ${text}`);
  });
}

interface AxeViolation { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] }

/** Runs axe-core on the page as it is; fails on any serious or critical violation. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  // page.evaluate goes through the DevTools protocol: the page's CSP (no inline script) does not block it.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  const violations = await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
  })))`) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepStrictEqual(serious, [], `${name}: axe-core found serious or critical violations`);
}

/**
 * Checks a page at desktop and phone width: axe at each, no sideways scrolling at 375 px,
 * and a full-page screenshot of each into test-output/screenshots/<name>-<width>.png.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await settle(page);
    await assertAccessible(page, `${name} at ${width} px`);
    if (width === 375) {
      const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as number;
      assert.ok(overflow <= 0, `${name}: the page scrolls sideways at 375 px (${overflow} px too wide)`);
    }
    // From the top: scrolled (by a click further down), the sticky header and navigation
    // would be photographed where the viewport stood, in the middle of the page.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
