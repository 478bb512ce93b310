/**
 * Chat with the reference agent in Chromium: on a customer's cross-origin page, a visitor asks
 * the seeded FAQ agent a question and reads its answer (labelled as automated), hands off to a
 * person, and the seeded expert finds the lead in the workbench with the whole conversation,
 * agent turns included. The agent's own provider pages (operations, the card on its profile)
 * are looked at too. axe-core checks each page; screenshots at 375 px and 1440 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  browserAvailable,
  expectAccessible,
  launchBrowser,
  screenshotBoth,
  signInAsDemo,
  serveSite,
  type Site,
} from './browser';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');

const signIn = (page: Page, email: string) => signInAsDemo(page, worker, email);

describe.skipIf(!browserAvailable)('chatting with the reference agent in Chromium', () => {
  let browser: Browser;
  let site: Site;
  const pages: Record<string, { body: string; headers?: Record<string, string> }> = {};

  beforeAll(async () => {
    browser = await launchBrowser();
    site = await serveSite(pages);
    const response = await fetch(`${worker}/api/integrations/channels`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'Northwind help',
        domain: 'faq',
        allowed_origins: [site.origin],
        widget: { brand: { name: 'Northwind Bookkeeping' } },
      }),
    });
    expect(response.status).toBe(201);
    const { channel_key: channelKey } = (await response.json()) as { channel_key: string };
    pages['/help.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport"
        content="width=device-width, initial-scale=1"><title>Northwind help</title><link rel="icon"
          href="data:,"></head>
<body><main><h1>Northwind Bookkeeping</h1><p>Questions? Ask below.</p></main>
<script async src="${worker}/embed/widget.js" data-channel-id="${channelKey}"
  data-console-origin="${worker}"></script></body></html>`,
      headers: {
        'Content-Security-Policy':
          `default-src 'none'; script-src ${worker}; connect-src ${worker} ${worker.replace(/^http/, 'ws')}; ` +
          `style-src ` +
          `'self'; img-src 'self' data:`,
      },
    };
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('the agent answers, the visitor hands off, and the expert’s lead shows every turn', async () => {
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await visitor.newPage();
    await page.goto(`${site.origin}/help.html`);
    await page.locator('div[data-egw] button.l').click();
    const tag = Date.now().toString(36);
    const question = `Hi, Robin here (${tag}): what are your opening hours?`;
    await page.locator('div[data-egw] textarea').fill(question);
    await page.keyboard.press('Enter');
    const answer = page.locator('div[data-egw] .bubble.assistant', { hasText: 'Monday to Friday' });
    await answer.waitFor();
    expect(await answer.locator('.by').textContent()).toBe('Automated answer · Northwind FAQ agent');
    await expectAccessible(page, 'widget with an agent answer', 'div[data-egw]');
    await screenshotBoth(page, 'agent-widget-answer');

    // A question the agent does not cover: it declines, and the lead path answers (no automated label).
    // The lead starts here, so this message is its summary in the workbench.
    await page
      .locator('div[data-egw] textarea')
      .fill(`Can you take over the payroll of my 12 employees from next month? (${tag})`);
    await page.keyboard.press('Enter');
    const fallback = page.locator('div[data-egw] .bubble.assistant', { hasText: 'request D-' });
    await fallback.first().waitFor();
    expect(await fallback.first().locator('.by').count()).toBe(0);

    await page.locator('div[data-egw] button', { hasText: 'Talk to an expert' }).click();
    await page.locator('div[data-egw] .bubble.assistant', { hasText: 'bringing in' }).waitFor();
    await screenshotBoth(page, 'agent-widget-handoff');
    await visitor.close();

    const expertContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const expert = await expertContext.newPage();
    await signIn(expert, 'expert@demo.test');
    await expert.goto(`${worker}/provider/workbench`);
    await expert
      .locator('.lead-card', { hasText: `12 employees from next month? (${tag})` })
      .locator('a')
      .click();
    const transcript = expert.locator('ol.transcript');
    await transcript.waitFor();
    const turns = await transcript
      .locator('li')
      .evaluateAll((items) =>
        items.map((item) => [item.querySelector('.speaker')?.textContent, item.querySelector('p')?.textContent]),
      );
    expect(turns.slice(0, 2)).toEqual([
      ['Visitor', question],
      ['Agent · Northwind FAQ agent', expect.stringContaining('Monday to Friday')],
    ]);
    expect(turns.map(([speaker]) => speaker)).toEqual([
      'Visitor',
      'Agent · Northwind FAQ agent',
      'Visitor',
      'Platform',
      'Visitor',
      'Platform',
    ]);
    await expectAccessible(expert, 'lead with agent turns');
    await screenshotBoth(expert, 'agent-lead-transcript');
    await expertContext.close();
  });

  it('the agent’s provider sees its card, its operations and its health', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signIn(page, 'agent@demo.test');
    await page.goto(`${worker}/provider/operations`);
    await page.getByRole('heading', { name: 'Operations' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('Last 24 hours');
    await expectAccessible(page, 'operations');
    await screenshotBoth(page, 'agent-operations');
    await page.goto(`${worker}/provider/onboarding?step=profile`);
    expect(await page.locator('main').textContent()).toContain('Card found: Northwind FAQ agent');
    await expectAccessible(page, 'agent profile step');
    await screenshotBoth(page, 'agent-profile-card');
    // The review step counts the card's one skill in the singular.
    await page.goto(`${worker}/provider/onboarding?step=review`);
    expect(await page.locator('main').textContent()).toContain('(A2A 1.0, 1 skill)');
    await context.close();

    // A platform admin sees the same health on the agent's review page.
    const adminContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const admin = await adminContext.newPage();
    await signIn(admin, 'admin@demo.test');
    await admin.goto(`${worker}/admin/providers/prv_demo_agent`);
    await admin.getByRole('heading', { name: 'Last 24 hours' }).waitFor();
    expect(await admin.locator('main').textContent()).toContain('Northwind FAQ agent (A2A 1.0)');
    await expectAccessible(admin, 'admin review of an agent');
    await screenshotBoth(admin, 'agent-admin-review');
    await adminContext.close();
  });
});
