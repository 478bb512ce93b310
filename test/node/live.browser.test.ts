/**
 * Live conversation in Chromium (docs/design/live.md), in two browser contexts: a visitor on a
 * customer's cross-origin page (strict CSP) and the seeded expert in the workbench. The reference
 * agent answers until the expert claims; then visitor and expert write to each other live, with
 * typing and read marks; the visitor reloads and finds the whole thread; with WebSockets blocked,
 * polling still delivers; markup from either side stays text. axe-core checks both sides, and
 * screenshots are taken at 375 px and 1440 px.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  browserAvailable,
  expectAccessible,
  launchBrowser,
  screenshotBoth,
  serveSite,
  signInAsDemo,
  type Site,
} from './browser';

const worker = inject('workerUrl');
/** expect.poll with room for a loaded 2-core machine (its default waits 1 s). */
const eventually = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 15_000, interval: 50 });
const apiKey = inject('demoApiKey');

describe.skipIf(!browserAvailable)('live conversation between a visitor and the expert, in Chromium', () => {
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
        name: 'Northwind live help',
        domain: 'faq',
        allowed_origins: [site.origin],
        widget: { brand: { name: 'Northwind Bookkeeping' } },
      }),
    });
    expect(response.status).toBe(201);
    const { channel_key: channelKey } = (await response.json()) as { channel_key: string };
    const socketOrigin = worker.replace(/^http/, 'ws');
    pages['/contact.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport"
        content="width=device-width, initial-scale=1"><title>Northwind contact</title><link rel="icon"
          href="data:,"></head>
<body><main><h1>Northwind Bookkeeping</h1><p>Talk to us below.</p></main>
<script async src="${worker}/embed/widget.js" data-channel-id="${channelKey}"
  data-console-origin="${worker}"></script></body></html>`,
      headers: {
        // A strict host page: the widget needs its script, its API and its socket origin, nothing else.
        'Content-Security-Policy':
          `default-src 'none'; script-src ${worker}; connect-src ${worker} ${socketOrigin}; style-src ` +
          `'self'; img-src 'self' data:`,
      },
    };
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  const widget = (page: Page) => page.locator('div[data-egw]');
  const say = async (page: Page, text: string) => {
    await widget(page).locator('textarea').fill(text);
    await page.keyboard.press('Enter');
    await widget(page).locator('.bubble.visitor', { hasText: text }).waitFor();
    // Sent once intake has answered (the panel is no longer thinking).
    await eventually(() => widget(page).locator('.thinking', { hasText: 'Thinking' }).count()).toBe(0);
  };
  const openWidget = async (page: Page) => {
    await page.goto(`${site.origin}/contact.html`);
    await widget(page).locator('button.l').click();
    await widget(page).locator('textarea').waitFor();
  };

  it('the agent hands over on a claim; then both sides write live, with typing, read marks and a reload', async () => {
    const tag = Date.now().toString(36);
    const visitorContext: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const visitor = await visitorContext.newPage();
    await openWidget(visitor);

    // The agent answers, declines what it does not cover, and still answers the next question it does.
    await say(visitor, `What are your opening hours? (${tag})`);
    const automated = widget(visitor).locator('.bubble.assistant .by', { hasText: 'Automated answer' });
    await eventually(() => automated.count()).toBe(1);
    await say(visitor, `Can you take over the payroll of my 12 employees? (${tag})`);
    await widget(visitor).locator('.bubble.assistant', { hasText: 'request D-' }).first().waitFor();
    await say(visitor, 'Are you open on Saturday?');
    await eventually(() => automated.count()).toBe(2);

    // The expert claims the lead, and the agent falls silent.
    const expertContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const expert = await expertContext.newPage();
    await signInAsDemo(expert, worker, 'expert@demo.test');
    await expert.goto(`${worker}/provider/workbench`);
    await expert
      .locator('.lead-card', { hasText: `12 employees? (${tag})` })
      .locator('a')
      .click();
    await expert.getByRole('button', { name: 'Claim this lead' }).click();
    const transcript = expert.locator('ol#transcript');
    await expert.locator('form#reply-form textarea').waitFor();

    await say(visitor, 'Hello? What are your hours again?');
    await transcript.locator('li.visitor', { hasText: 'What are your hours again?' }).waitFor();
    expect(await automated.count()).toBe(2);

    // The visitor types: the expert sees it.
    await widget(visitor).locator('textarea').pressSequentially('Also', { delay: 30 });
    await expert.locator('#typing', { hasText: 'The visitor is typing' }).waitFor();
    await widget(visitor).locator('textarea').fill('');

    // Three replies from the expert, one with markup, reach the visitor without a reload, as text.
    const reply = async (text: string) => {
      await expert.locator('form#reply-form textarea').fill(text);
      await expert.getByRole('button', { name: 'Send reply' }).click();
      await transcript.locator('li.provider', { hasText: text }).waitFor();
    };
    await expert.locator('form#reply-form textarea').pressSequentially('Hi', { delay: 30 });
    await widget(visitor).locator('.thinking', { hasText: 'is typing' }).waitFor();
    await reply('Hi, this is Erin from Northwind. Happy to help with payroll.');
    await reply('<img src=x onerror="window.__xss=1">How many payslips a month?');
    await reply('And which country are your employees in?');
    const fromExpert = widget(visitor).locator('.bubble.assistant .by', { hasText: '· Expert' });
    await eventually(() => fromExpert.count()).toBe(3);
    // The first reply moved the lead to contacted: the page says so without a reload.
    await expert.locator('.title-row .pill.status-contacted').waitFor();
    // And its history with it.
    await expert.locator('ol.history li').filter({ hasText: 'claimed → contacted' }).waitFor();
    expect(await expert.locator('select#f-status option').allTextContents()).toEqual(['qualified']);
    await widget(visitor).locator('.bubble', { hasText: '<img src=x onerror="window.__xss=1">' }).waitFor();

    // Three visitor messages, one with markup, reach the expert live, as text.
    await say(visitor, 'About 12 payslips.');
    await say(visitor, '<b onmouseover="window.__xss=2">Germany</b>');
    await say(visitor, 'Thanks!');
    await transcript.locator('li.visitor', { hasText: 'Thanks!' }).waitFor();
    await transcript.locator('li.visitor p', { hasText: '<b onmouseover="window.__xss=2">Germany</b>' }).waitFor();
    expect(await transcript.locator('li.visitor b').count()).toBe(0);
    expect(await visitor.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    expect(await expert.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();

    // Read marks both ways: the expert's page is open, so the visitor's last message is read; and back.
    await widget(visitor).locator('.bubble.visitor .mark', { hasText: 'Read' }).waitFor();
    await transcript.locator('li.provider .seen', { hasText: 'Seen' }).waitFor();

    await expectAccessible(visitor, 'widget in a live conversation', 'div[data-egw]');
    await screenshotBoth(visitor, 'live-visitor');
    await expectAccessible(expert, 'lead page in a live conversation');
    await screenshotBoth(expert, 'live-expert');

    // The visitor reloads: the whole thread is there, the expert's messages included.
    await visitor.reload();
    await widget(visitor).locator('button.l').click();
    await widget(visitor).locator('.bubble', { hasText: 'And which country are your employees in?' }).waitFor();
    expect(await widget(visitor).locator('.bubble.visitor', { hasText: 'Thanks!' }).count()).toBe(1);

    // With WebSockets blocked, polling still delivers.
    await visitorContext.routeWebSocket(/\/live\//, (socket) => socket.close());
    await visitor.reload();
    await widget(visitor).locator('button.l').click();
    await widget(visitor).locator('textarea').waitFor();
    await reply('Polling reaches you too.');
    await widget(visitor).locator('.bubble', { hasText: 'Polling reaches you too.' }).waitFor({ timeout: 30_000 });

    // The site owner reads the whole conversation, read only, in the console.
    const ownerContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const owner = await ownerContext.newPage();
    await signInAsDemo(owner, worker, 'owner@demo.test');
    await owner.goto(`${worker}/integrations`);
    await owner.getByRole('link', { name: 'Northwind live help' }).first().click();
    await owner.getByRole('link', { name: 'Recent intake' }).click();
    await owner.locator('a', { hasText: 'read the conversation' }).first().click();
    await owner.locator('ol.transcript li', { hasText: 'Polling reaches you too.' }).waitFor();
    expect(await owner.locator('textarea').count()).toBe(0);
    await expectAccessible(owner, 'the owner’s conversation page');
    await screenshotBoth(owner, 'live-owner-conversation');

    await ownerContext.close();
    await visitorContext.close();
    await expertContext.close();
  });

  it('a returning visitor sees how many answers arrived since their last look, on the launcher', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    let page = await context.newPage();
    await openWidget(page);
    await say(page, 'What does bookkeeping cost?');
    await widget(page).locator('.bubble .by', { hasText: 'Automated answer' }).waitFor();
    const session = await page.evaluate(() => {
      const key = Object.keys(localStorage).find((name) => name.endsWith(':session'))!;
      return { key: key.split(':')[1]!, session: JSON.parse(localStorage.getItem(key)!) as string };
    });
    // They leave; an answer arrives meanwhile (to a message sent from elsewhere in their session).
    await page.close();
    const sent = await fetch(`${worker}/api/public/widget/${session.key}/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: site.origin },
      body: JSON.stringify({ session_id: session.session, message: { text: 'And your opening hours?' } }),
    });
    expect(sent.status).toBe(200);
    page = await context.newPage();
    await page.goto(`${site.origin}/contact.html`);
    const launcher = widget(page).locator('button.l');
    await eventually(() => launcher.getAttribute('data-n')).toBe('1');
    expect(await launcher.getAttribute('aria-label')).toMatch(/ \(1\)$/);
    await screenshotBoth(page, 'live-launcher-unread');
    await launcher.click();
    await eventually(() => launcher.getAttribute('data-n')).toBeNull();
    await context.close();
  });
});
