/**
 * The first hour, as a visitor, an expert, an owner and an admin meet it (issue 39), in Chromium:
 * the widget after an expert takes over (English, and Arabic with an English message in it), the
 * claim button that says the fee, the Insights page on a phone, and the provisioning forms from
 * request to approved key. Each page is looked at in screenshots at 375 px and 1440 px, with axe.
 */
import { readFileSync } from 'node:fs';
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
const apiKey = inject('demoApiKey');
const eventually = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 15_000, interval: 50 });

describe.skipIf(!browserAvailable)('the first hour, in Chromium', () => {
  let browser: Browser;
  let site: Site;
  const contexts: BrowserContext[] = [];
  const pages: Record<string, { body: string }> = {};
  const newPage = async (viewport = { width: 1440, height: 900 }) => {
    const context = await browser.newContext({ viewport, locale: 'en-GB' });
    contexts.push(context);
    return context.newPage();
  };

  async function channel(name: string, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await fetch(`${worker}/api/integrations/channels`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name,
        domain: 'consultation',
        allowed_origins: [site.origin],
        widget: { brand: { name } },
        ...extra,
      }),
    });
    expect(response.status).toBe(201);
    const { channel_key: key } = (await response.json()) as { channel_key: string };
    pages[`/${key}.html`] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport"
        content="width=device-width, initial-scale=1"><title>${name}</title><link rel="icon" href="data:,"></head>
        <body><main><h1>${name}</h1></main><script async src="${worker}/embed/widget.js" data-channel-id="${key}"
        data-console-origin="${worker}"></script></body></html>`,
    };
    return key;
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    site = await serveSite(pages);
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await site?.close();
  });

  const widget = (page: Page) => page.locator('div[data-egw]');
  const openWidget = async (page: Page, key: string) => {
    await page.goto(`${site.origin}/${key}.html`);
    await widget(page).locator('button.l').click();
    await widget(page).locator('textarea').waitFor();
  };
  const say = async (page: Page, text: string) => {
    await widget(page).locator('textarea').fill(text);
    await page.keyboard.press('Enter');
    await widget(page).locator('.bubble.visitor', { hasText: text }).waitFor();
    await eventually(() => widget(page).locator('.bubble.visitor .mark').count()).toBeGreaterThan(0);
  };

  /** The expert claims the visitor's lead (the button says its fee) and replies; answers the lead page. */
  async function takeOver(text: string, reply: string, screenshot?: string) {
    const expert = await newPage();
    await signInAsDemo(expert, worker, 'expert@demo.test');
    await expert.goto(`${worker}/provider/workbench`);
    const card = expert.locator('.lead-card', { hasText: text });
    await card.waitFor();
    expect(await card.locator('.pill.fee').innerText()).toBe('fee €2.50');
    await card.locator('a').click();
    const claim = expert.getByRole('button', { name: 'Claim this lead for €2.50' });
    await claim.waitFor();
    if (screenshot) {
      await expectAccessible(expert, 'lead page before the claim');
      await screenshotBoth(expert, screenshot);
    }
    await claim.click();
    await expert.locator('form#reply-form textarea').fill(reply);
    await expert.getByRole('button', { name: 'Send reply' }).click();
    await expert.locator('ol#transcript li.provider', { hasText: reply }).waitFor();
    return expert;
  }

  it('after a takeover the widget drops the hand-off prompt and the waiting card; the reply is said once', async () => {
    const key = await channel('Northwind Payroll');
    const visitor = await newPage({ width: 1280, height: 800 });
    await openWidget(visitor, key);
    const tag = Date.now().toString(36);
    await say(visitor, `Our payroll run failed (${tag}), can someone help today?`);
    await say(visitor, 'It is for 12 employees.');
    // The request's reference is said once; the later message hears that an expert has it.
    expect(await widget(visitor).locator('.bubble.assistant', { hasText: 'D-' }).count()).toBe(1);
    await widget(visitor).getByRole('button', { name: 'Talk to an expert' }).waitFor();
    await takeOver(
      `payroll run failed (${tag})`,
      'Hi, Dana here. I can help with the payroll today.',
      'claim-with-fee',
    );
    await widget(visitor).locator('.bubble', { hasText: 'Dana here' }).waitFor();
    await eventually(() => widget(visitor).getByRole('button', { name: 'Talk to an expert' }).count()).toBe(0);
    expect(await widget(visitor).locator('.card.success').count()).toBe(0);
    expect(await widget(visitor).locator('form.card').count()).toBe(0);
    await expectAccessible(visitor, 'widget after a takeover', 'div[data-egw]');
    await screenshotBoth(visitor, 'widget-after-takeover');
  });

  it('in Arabic, an English message keeps its own direction and punctuation', async () => {
    const key = await channel('مكتب المحاسبة', { language: 'ar' });
    const visitor = await newPage({ width: 1280, height: 800 });
    await openWidget(visitor, key);
    expect(await widget(visitor).locator('.panel').getAttribute('dir')).toBe('rtl');
    const tag = Date.now().toString(36);
    await say(visitor, `What are your opening hours? (${tag})`);
    const english = widget(visitor).locator('.bubble.visitor .text', { hasText: `opening hours? (${tag})` });
    expect(await english.evaluate((node) => getComputedStyle(node).direction)).toBe('ltr');
    // The question mark ends the sentence: the text's first visual character is its first letter.
    const first = await english.evaluate((node) => {
      const range = document.createRange();
      range.setStart(node.firstChild!, 0);
      range.setEnd(node.firstChild!, 1);
      const letter = range.getBoundingClientRect();
      return { letter: letter.left, box: node.getBoundingClientRect().left };
    });
    expect(first.letter - first.box).toBeLessThan(4);
    await takeOver(`opening hours? (${tag})`, 'We open at nine. مرحبا');
    await widget(visitor).locator('.bubble', { hasText: 'We open at nine.' }).waitFor();
    const talkToExpert = JSON.parse(readFileSync('worker/lib/i18n/catalogs/ar.json', 'utf8')).widget.talk_to_expert;
    await eventually(() => widget(visitor).locator('.actions button', { hasText: talkToExpert }).count()).toBe(0);
    expect(await widget(visitor).locator('form.card').count()).toBe(0);
    await expectAccessible(visitor, 'Arabic widget after a takeover', 'div[data-egw]');
    await screenshotBoth(visitor, 'widget-after-takeover-ar');
  });

  it('Insights on a phone: the funnel narrows, the charts fit, and a bad range is shown beside the form', async () => {
    const owner = await newPage({ width: 375, height: 812 });
    await signInAsDemo(owner, worker, 'owner@demo.test');
    await owner.goto(`${worker}/integrations/insights?ws=ws_demo&range=7`);
    await owner.locator('#funnel-title').waitFor();
    const scrolls = await owner.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(scrolls).toBeLessThanOrEqual(0);
    // Every chart's text is 11 px or more as drawn (the SVG scales), no two labels touch, each
    // drawing fills its card, and today's bar says so.
    const drawn = await owner.evaluate(() =>
      [...document.querySelectorAll<SVGSVGElement>('.chart svg')].map((svg) => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        const texts = [...svg.querySelectorAll('text')];
        const boxes = texts.map((text) => text.getBoundingClientRect());
        const overlaps = boxes.flatMap((a, i) =>
          boxes.flatMap((b, j) =>
            j > i && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
              ? [`${texts[i]!.textContent} / ${texts[j]!.textContent}`]
              : [],
          ),
        );
        const smallest = Math.min(...texts.map((text) => parseFloat(getComputedStyle(text).fontSize) * scale));
        const fills = svg.getBoundingClientRect().width / svg.parentElement!.getBoundingClientRect().width;
        return { smallest, overlaps, fills, today: texts.some((text) => text.textContent === 'Today') };
      }),
    );
    for (const chart of drawn) {
      expect(chart.smallest).toBeGreaterThanOrEqual(11);
      expect(chart.overlaps).toEqual([]);
      expect(chart.fills).toBeGreaterThan(0.95);
    }
    expect(drawn.some((chart) => chart.today)).toBe(true);
    await expectAccessible(owner, 'insights');
    await screenshotBoth(owner, 'insights-first-hour');
    await owner.goto(`${worker}/integrations/insights?ws=ws_demo&from=2026-03-02&to=2026-03-01`);
    await owner.locator('#f-range-error').waitFor();
    await screenshotBoth(owner, 'insights-bad-range');
  });

  it('provisioning: the owner asks for a key, the admin approves it, the owner sees it once', async () => {
    const owner = await newPage();
    await signInAsDemo(owner, worker, 'owner@demo.test');
    await owner.goto(`${worker}/integrations?ws=ws_demo`);
    const form = owner.locator('form', { has: owner.locator('#request-key-title') });
    await form.getByLabel('Key name').fill('Browser test key');
    await form.getByLabel('leads:write').check();
    await form.getByLabel('What it is for').fill('A key asked for from the browser test.');
    await expectAccessible(owner, 'integrations with the request forms');
    await screenshotBoth(owner, 'provisioning-request-forms');
    await form.getByRole('button', { name: 'Ask for the key' }).click();
    await owner.locator('.alert', { hasText: 'Asked: the platform team' }).waitFor();
    await owner.locator('#requests-title ~ div table', { hasText: 'Browser test key' }).waitFor();

    const admin = await newPage();
    await signInAsDemo(admin, worker, 'admin@demo.test');
    await admin.goto(`${worker}/admin/requests`);
    const row = admin.locator('tr', { hasText: 'Browser test key' });
    await row.waitFor();
    await expectAccessible(admin, 'admin requests');
    await screenshotBoth(admin, 'provisioning-admin-queue');
    await row.getByLabel('Note to the owners (optional)').fill('Approved for the test.');
    await row.getByRole('button', { name: 'Approve' }).click();
    await admin.locator('.alert', { hasText: 'Approved' }).waitFor();

    await owner.goto(`${worker}/integrations?ws=ws_demo`);
    await owner.getByRole('button', { name: 'Show the key once' }).first().click();
    const token = await owner.locator('#secret').innerText();
    expect(token).toMatch(/^egk_/);
    await expectAccessible(owner, 'the key shown once');
    await screenshotBoth(owner, 'provisioning-key-once');
  });
});
