/**
 * The console on a phone (issue 22). Every data table at 375 px: each row is a card with every
 * column shown and labelled, and no table scrolls sideways inside its card (the team's Update and
 * Remove buttons, the last columns of Recent intake, the webhook log, provider review, operations).
 * And every console page, for each demo role: nothing wider than the phone, no serious or critical
 * axe violation.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, saveScreenshot, signInAsDemo } from './browser';

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
    ['owner@demo.test', '/integrations/channels/ch_demo/intake?ws=ws_demo', 'table-recent-intake'],
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
      await saveScreenshot(page, `${name}-375`, { fullPage: true });
      await context.close();
    }
  });

  /** The console's pages by demo account; `link:` follows the first link matching a selector. */
  const consolePages: Array<[string | null, string[]]> = [
    [null, ['/', '/auth/sign-in', '/auth/sign-up', '/auth/sign-up?role=provider']],
    [
      'owner@demo.test',
      [
        '/integrations?ws=ws_demo',
        '/integrations/channels/ch_demo?ws=ws_demo',
        '/integrations/channels/ch_demo/intake?ws=ws_demo',
        'link:a[href*="/conversations/"]',
        '/integrations/team?ws=ws_demo',
        '/integrations/webhooks?ws=ws_demo',
        '/integrations/email?ws=ws_demo',
        '/invitations',
        '/account/security',
      ],
    ],
    ['admin@demo.test', ['/admin/providers', '/admin/providers?status=active', '/admin/providers/prv_demo_agent']],
    ['expert@demo.test', ['/provider/workbench', 'link:a[href*="/provider/workbench/leads/"]', '/provider/onboarding']],
    [
      'agent@demo.test',
      ['/provider/operations', '/provider/onboarding?step=profile', '/provider/onboarding?step=reach'],
    ],
  ];

  it('every console page fits a phone and passes axe', async () => {
    // A conversation and a lead to open.
    await fetch(`${worker}/api/public/channels/ch_demo/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: worker },
      body: JSON.stringify({ message: { text: 'Could an expert look at our payroll?' }, trigger: 'handoff' }),
    });
    for (const [account, paths] of consolePages) {
      const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
      const page = await context.newPage();
      if (account) await signInAsDemo(page, worker, account);
      for (const path of paths) {
        if (path.startsWith('link:')) await page.locator(path.slice(5)).first().click();
        else await page.goto(`${worker}${path}`);
        await page.waitForLoadState('load');
        const where = `${account ?? 'anonymous'} ${page.url().replace(worker, '')}`;
        expect(page.url(), where).not.toContain('/auth/sign-in?');
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width, `${where} scrolls sideways`).toBeLessThanOrEqual(375);
        await expectAccessible(page, where);
        if (path === '/admin/providers?status=active') {
          // The review tabs count each state: the current one counts the rows it lists.
          const count = await page.locator('.tabs a[aria-current=page] .count').textContent();
          expect(Number(count)).toBe(await page.locator('main tbody tr').count());
        }
      }
      await context.close();
    }
  });
});
