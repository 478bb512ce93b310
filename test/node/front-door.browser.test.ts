/**
 * The front page `/` as a newcomer sees it (issue 22): at 375 px and 1440 px, with the platform's
 * own widget (FRONT_DOOR_CHANNEL is the demo channel here), axe-clean, and its entries leading
 * where they say.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth } from './browser';

const worker = inject('workerUrl');

describe.skipIf(!browserAvailable)('the front page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the four ways in, the consultation entry with its widget, and the provider sign-up', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${worker}/`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    for (const heading of ['Site owners', 'Visitors', 'API callers', 'Experts, robots and agents'])
      await page.getByRole('heading', { name: heading }).waitFor();
    // The platform's own widget draws its launcher (the loader's host element carries data-egw).
    await page.locator('div[data-egw]').waitFor({ state: 'attached', timeout: 15_000 });
    await page.locator('div[data-egw] button.l').waitFor({ state: 'visible' });
    await page.waitForLoadState('networkidle'); // The channel's look has arrived.
    await expectAccessible(page, 'front page', 'main');
    await screenshotBoth(page, 'front-page');
    await page.getByRole('link', { name: 'Become an expert, connect a robot, register an agent' }).click();
    await page.waitForURL(/\/auth\/sign-up\?role=provider/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBeTruthy();
    await page.close();
  });
});
