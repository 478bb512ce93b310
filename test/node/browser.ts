/** Helpers for browser tests: Debian's Chromium through playwright-core, and a customer site. */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { DEMO_TEST_PASSWORD } from '../../scripts/local-worker.mjs';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { DEMO } from '../../scripts/seed.mjs';
import { workerTotpCode } from './account-helpers';

/**
 * Debian's old headless shell when it is installed (apt-get install chromium-headless-shell), else
 * Chromium itself. The same Blink without the browser's UI layer (what Playwright's own headless
 * mode runs), it runs the Node suite on about 60% of the CPU: 163 against 261 CPU-seconds.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ??
  (existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');

/**
 * Locally, a machine without Chromium skips the browser tests with a notice; in CI they must run
 * (.ci/run installs Chromium), so a missing browser fails there instead of passing silently.
 */
export const browserAvailable = existsSync(CHROMIUM_PATH);
if (!browserAvailable) {
  const message =
    `Chromium not found at ${CHROMIUM_PATH}: install it with "apt-get install -y chromium-headless-shell" to run the ` +
    `browser tests.`;
  if (process.env.CI) throw new Error(message);
  console.warn(`SKIPPING browser tests. ${message}`);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, `${name}.png`);
}

/**
 * Whether the browser tests write their screenshots: with EGW_SCREENSHOTS=1, to look at the pages
 * (test-results/screenshots/). Encoding full-page PNGs is a good share of the suite's CPU, which
 * `npm test` runs would otherwise spend on files nobody opens.
 */
export const SCREENSHOTS = process.env.EGW_SCREENSHOTS === '1';

/** A screenshot of the page under `name`, when EGW_SCREENSHOTS=1 asks for them. */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  if (SCREENSHOTS) await page.screenshot({ path: screenshotPath(name), ...options });
}

export interface Site {
  origin: string;
  close(): Promise<void>;
}

/** A customer's website on its own loopback port (so another origin than the Worker). */
export async function serveSite(
  pages: Record<string, { body: string; type?: string; headers?: Record<string, string> }>,
): Promise<Site> {
  const server: Server = createServer((request, response) => {
    const page = pages[new URL(request.url ?? '/', 'http://x').pathname];
    if (!page) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'Content-Type': page.type ?? 'text/html; charset=utf-8', ...page.headers });
    response.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string;
  nodes: { target: unknown }[];
}

/** axe-core's serious and critical findings for the page, or for one element (shadow DOM included). */
export async function axeSeriousViolations(page: Page, selector: string | null = null) {
  await page.evaluate(axeSource);
  const results = await page.evaluate(async (context) => {
    const axe = (
      window as unknown as {
        axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    return axe.run(context ? document.querySelector(context) : document, { resultTypes: ['violations'] });
  }, selector);
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => node.target),
    }));
}

/** Screenshots at both widths a page is looked at, 375 px and 1440 px; it must not scroll sideways at 375 px. */
export async function screenshotBoth(page: Page, name: string) {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 812 });
  await saveScreenshot(page, `${name}-375`, { fullPage: true });
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, `${name} scrolls sideways at 375 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1440, height: 900 });
  await saveScreenshot(page, `${name}-1440`, { fullPage: true });
  if (viewport) await page.setViewportSize(viewport);
}

/** No serious or critical axe-core finding on the page (or in one element). */
export async function expectAccessible(page: Page, name: string, selector: string | null = null) {
  expect({ page: name, violations: await axeSeriousViolations(page, selector) }).toEqual({
    page: name,
    violations: [],
  });
}

/** Signs a seeded demo account in through the sign-in form (the worker's URL, the account's email). */
export async function signInAsDemo(page: Page, worker: string, email: string) {
  await page.goto(`${worker}/auth/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEMO_TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState('load');
  // The platform admin signs in in two steps: the demo key's code, a time step on (each step is taken once).
  if (new URL(page.url()).pathname === '/auth/second-factor') {
    const code = await workerTotpCode(DEMO.adminTotpKey, { advanceMs: 30_000 });
    await page.getByLabel('Code from your authenticator app').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState('load');
  }
}
