/**
 * The documentation site as a reader sees it (issue 22): every page at 375 px and 1440 px without
 * sideways scrolling and axe-clean; the search answering from the page, with no request; and the
 * widget examples of the integration page run as a host page would (the snippet under the strict
 * CSP the page gives, then the egw() queue opening the panel).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth } from './browser';
import { docsExamples } from './docs-examples';

const worker = inject('workerUrl');
const PAGES = [
  '',
  '/integration',
  '/knowledge',
  '/protocol',
  '/boundaries',
  '/providers',
  '/webhooks',
  '/mcp',
  '/a2a',
  '/accounts',
  '/retention',
  '/reference',
];

describe.skipIf(!browserAvailable)('the documentation site', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('every page reads at 375 px and 1440 px and has no serious accessibility finding', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    for (const path of PAGES) {
      await page.goto(`${worker}/docs${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expectAccessible(page, `/docs${path}`);
      await screenshotBoth(page, `docs${path.replace('/', '-') || '-overview'}`);
    }
    await page.close();
  });

  it('searches every page in the browser, without a request', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(`${worker}/docs`);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const search = page.getByLabel('Search the docs');
    await search.fill('idempotency replay');
    const first = page.locator('#docs-search-results a').first();
    await first.waitFor();
    expect(await first.getAttribute('href')).toBe('/docs/protocol#idempotency');
    await search.fill('python');
    await expect.poll(() => page.locator('#docs-search-results a').allTextContents()).toContain('Python · Webhooks');
    // The guides of the knowledge, account security and retention are found by their words.
    for (const [words, href] of [
      ['help center', '/docs/knowledge'],
      ['passkey', '/docs/accounts'],
      ['retention', '/docs/retention'],
    ] as const) {
      await search.fill(words);
      await expect
        .poll(async () => (await page.locator('#docs-search-results a').first().getAttribute('href')) ?? '')
        .toMatch(new RegExp(`^${href}(#|$)`));
    }
    await search.fill('zzzz nothing');
    await page.getByText('Nothing found.').waitFor();
    expect(requests).toEqual([]);
    await search.fill('signature');
    await page.locator('#docs-search-results a').first().click();
    await page.waitForURL(/\/docs\/(webhooks|providers)#/);
    await page.close();
  });

  it('the widget examples work on a host page with the CSP the docs give', async () => {
    const examples = (await docsExamples(worker)).filter((example) => example.page.endsWith('/integration.md'));
    const snippet = examples.find((example) => example.info === 'html browser')?.code ?? '';
    const queue = examples.find((example) => example.info === 'js browser')?.code ?? '';
    const csp = (examples.find((example) => example.info === 'text csp')?.code ?? '').replace(
      /^Content-Security-Policy: /,
      '',
    );
    expect(snippet).toContain('data-channel-id="ch_demo"');
    expect(csp).toContain(`script-src 'self' ${worker}`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    // A host page on an origin the demo channel allows (the console's), with exactly that policy.
    await page.route(`${worker}/__docs-host`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        headers: { 'Content-Security-Policy': csp },
        body: `<!doctype html><html lang="en"><title>Host</title><main><h1>A host page</h1></main>${snippet}</html>`,
      }),
    );
    await page.goto(`${worker}/__docs-host`);
    await page.locator('div[data-egw]').waitFor({ state: 'attached', timeout: 15_000 });
    await page.evaluate(queue);
    await page.locator('div[data-egw] [role="dialog"]').waitFor({ timeout: 15_000 });
    expect(errors.filter((error) => /Content Security Policy/i.test(error))).toEqual([]);
    await page.close();
  });

  it('the integration page runs the live widget, opened by its egw() buttons', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${worker}/docs/integration`);
    await page.locator('div[data-egw]').waitFor({ state: 'attached', timeout: 15_000 });
    await page.getByRole('button', { name: "egw('open')" }).click();
    await page.locator('div[data-egw] [role="dialog"]').waitFor({ timeout: 15_000 });
    await page.close();
  });
});
