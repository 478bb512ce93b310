/**
 * Every data table of the console at 375 px (issue 22): each row is a card with every column
 * shown and labelled, and no table scrolls sideways inside its card (the team's Update and Remove
 * buttons, the last columns of Recent intake, the webhook log, provider review, operations).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, launchBrowser, screenshotPath, signInAsDemo } from './browser';

const worker = inject('workerUrl');

/** How far each table of the page scrolls sideways, and how many labelled cells it shows. */
async function tablesOf(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.table-scroll')].map((wrapper) => ({
      overflow: wrapper.scrollWidth - wrapper.clientWidth,
      labelled: wrapper.querySelectorAll('td[data-label]').length,
    })),
  );
}

describe.skipIf(!browserAvailable)('console tables on a phone', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const pages: Array<[string, string, string]> = [
    ['owner@demo.test', '/integrations/channels/ch_demo?ws=ws_demo', 'table-recent-intake'],
    ['owner@demo.test', '/integrations/team?ws=ws_demo', 'table-team'],
    ['owner@demo.test', '/integrations/email?ws=ws_demo', 'table-email-log'],
    ['admin@demo.test', '/admin/providers?status=active', 'table-provider-review'],
    ['agent@demo.test', '/provider/operations', 'table-operations'],
  ];

  it('every table shows its rows as cards, none scrolls sideways', async () => {
    // Something in Recent intake and the email log first.
    await fetch(`${worker}/api/public/channels/ch_demo/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: worker },
      body: JSON.stringify({ message: { text: 'Can someone call me about payroll?' }, trigger: 'handoff' }),
    });
    for (const [account, path, name] of pages) {
      const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
      const page = await context.newPage();
      await signInAsDemo(page, worker, account);
      await page.goto(`${worker}${path}`);
      const tables = await tablesOf(page);
      expect(tables.length, `${path} has a table`).toBeGreaterThan(0);
      for (const table of tables) expect(table.overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
      expect(
        tables.some((table) => table.labelled > 0),
        `${path} labels its cells`,
      ).toBe(true);
      await page.screenshot({ path: screenshotPath(`${name}-375`), fullPage: true });
      await context.close();
    }
  });
});
