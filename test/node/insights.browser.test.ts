/**
 * The Insights page in Chromium (docs/design/insights.md): the demo owner's numbers after a few
 * executions and a sweep, at 375 and 1440 px, axe-clean; the table under each chart has the API's
 * numbers, and the CSV downloads.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth, signInAsDemo } from './browser';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');

describe.skipIf(!browserAvailable)('the Insights page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
    for (const text of ['What are your opening hours?', 'My payroll run failed, can someone help today?']) {
      const response = await fetch(`${worker}/api/execute`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ domain: 'faq', execution_mode: 'sync', required_scopes: [], text }),
      });
      expect(response.status).toBe(200);
    }
    // The sweep counts what happened (it runs each minute in `npm run dev`).
    expect((await fetch(`${worker}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('draws the funnel and the days, its tables match the API, and each downloads as CSV', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    await signInAsDemo(page, worker, 'owner@demo.test');
    await page.goto(`${worker}/integrations/insights?ws=ws_demo&range=7`);
    const api = (await (
      await fetch(
        `${worker}/api/insights?from=${await page.inputValue('#f-from')}&to=${await page.inputValue('#f-to')}`,
        {
          headers: { Authorization: `Bearer ${apiKey}` },
        },
      )
    ).json()) as {
      totals: Record<string, number> & { funnel: Record<string, number> };
      days: Array<Record<string, number | string>>;
    };
    expect(await page.locator('figure.chart svg[role=img]').count()).toBe(2);
    // The funnel's table, under its chart, says what the API says.
    const funnel = page.locator('#funnel-title ~ figure details');
    await funnel.locator('summary').click();
    const cells = await funnel.locator('tbody tr').allInnerTexts();
    expect(cells[0]).toContain(String(api.totals.funnel.conversations));
    expect(cells[1]).toContain(String(api.totals.funnel.leads));
    const days = page.locator('#days-title ~ figure details');
    await days.locator('summary').click();
    const today = api.days.at(-1)!;
    expect(await days.locator('tbody tr').last().innerText()).toContain(String(today.answered_by_agent));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      days.getByRole('link', { name: 'Download as CSV' }).click(),
    ]);
    const csv = await (await download.createReadStream()).toArray();
    const lines = Buffer.concat(csv).toString('utf8').trim().split('\r\n');
    expect(lines[0]).toBe(
      'day,Answered from your knowledge,Answered by an agent,Answered by a robot,Leads for experts',
    );
    const { date, answered_by_knowledge, answered_by_agent, answered_by_robot, leads } = today;
    expect(lines.at(-1)).toBe([date, answered_by_knowledge, answered_by_agent, answered_by_robot, leads].join(','));
    await expectAccessible(page, 'insights page');
    await screenshotBoth(page, 'insights');
    await context.close();
  });
});
