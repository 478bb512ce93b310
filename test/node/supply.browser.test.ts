/**
 * The supply side in Chromium, end to end: a provider onboards and submits, a platform admin
 * approves, a visitor writes through the widget on a customer's site, the lead appears in the
 * workbench without a reload, the expert claims it and works it to won, and a second expert
 * sees it leave Available. Visitor and provider text stays text; axe-core checks every page.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { confirmEmail, enrolAuthenticatorInBrowser } from './account-helpers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth, serveSite, type Site } from './browser';

const worker = inject('workerUrl');
const adminToken = inject('adminToken');
const apiKey = inject('demoApiKey');
const PASSWORD = 'a long and unusual passphrase 42';
const XSS = '<img src=x onerror="window.__pwned=1">';
const unique = (prefix: string) =>
  `${prefix}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 7)}@example.com`;

async function adminApi(path: string, init: RequestInit = {}) {
  const response = await fetch(`${worker}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json', ...init.headers },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function signUp(page: Page, role: 'business' | 'provider', email: string) {
  await page.goto(`${worker}/auth/sign-up${role === 'provider' ? '?role=provider' : ''}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForLoadState('load');
  await confirmEmail(page, email);
  await page.goto(`${worker}/console`);
}

describe.skipIf(!browserAvailable)('the supply side in Chromium', () => {
  let browser: Browser;
  let site: Site;
  let domain: string;
  let channelKey: string;
  const pages: Record<string, { body: string; headers?: Record<string, string> }> = {};
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    site = await serveSite(pages);
    domain = `browser-${Date.now().toString(36)}`;
    await adminApi('/api/admin/domains', {
      method: 'POST',
      body: JSON.stringify({ domain, name: 'Browser test domain', description: 'Made by the supply browser test.' }),
    });
    const channel = await fetch(`${worker}/api/integrations/channels`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'Garden shop',
        domain,
        allowed_origins: [site.origin],
        widget: { brand: { name: 'Garden Shop' } },
      }),
    });
    channelKey = ((await channel.json()) as { channel_key: string }).channel_key;
    pages['/shop.html'] = {
      body:
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
        `content="width=device-width, initial-scale=1"><title>Garden Shop</title></head><body><main><h1>Garden ` +
        `Shop</h1></main><script async src="${worker}/embed/widget.js" data-channel-id="${channelKey}" ` +
        `data-console-origin="${worker}"></script></body></html>`,
      headers: {
        'Content-Security-Policy':
          `default-src 'none'; script-src ${worker}; connect-src ${worker} ${worker.replace(/^http/, 'ws')}; ` +
          `style-src 'self'`,
      },
    };
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await site?.close();
  });

  const newContext = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    return context;
  };

  /** A provider who signs up and goes through the five onboarding steps in the browser. */
  async function onboard(page: Page, email: string, displayName: string, screenshots = false) {
    await signUp(page, 'provider', email);
    await page.waitForURL(`${worker}/provider/onboarding`);
    if (screenshots) {
      await expectAccessible(page, 'onboarding: kind');
      await screenshotBoth(page, 'provider-onboarding-kind');
    }
    await page.getByRole('radio', { name: /An expert/ }).check();
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.waitForURL(/step=profile/);
    await page.getByLabel('Display name').fill(displayName);
    await page.getByLabel('Headline').fill('Lawns, hedges and garden design');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.waitForURL(/step=scope/);
    if (screenshots) {
      await expectAccessible(page, 'onboarding: scope');
      await screenshotBoth(page, 'provider-onboarding-scope');
    }
    await page.getByRole('checkbox', { name: /Browser test domain/ }).check();
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.waitForURL(/step=reach/);
    await page.getByLabel('Languages', { exact: true }).fill('en');
    // The searchable choice adds a code to the field (picking "German (de)" types its value).
    expect(await page.locator('#choose-languages-list option[value="de"]').getAttribute('label')).toBe('German (de)');
    expect(await page.locator('#choose-regions-list option[value="DE"]').getAttribute('label')).toBe('Germany (DE)');
    await page.getByLabel('Add a language').fill('de');
    expect(await page.getByLabel('Languages', { exact: true }).inputValue()).toBe('en, de');
    await page.getByLabel('Regions', { exact: true }).fill('global');
    if (screenshots) {
      await expectAccessible(page, 'onboarding: languages and regions');
      await screenshotBoth(page, 'provider-onboarding-reach');
    }
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.waitForURL(/step=review/);
    if (screenshots) {
      await expectAccessible(page, 'onboarding: review');
      await screenshotBoth(page, 'provider-onboarding-review');
    }
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.waitForURL(/notice=submitted/);
    expect(await page.textContent('main')).toContain('pending review');
  }

  it(
    'onboarding, approval, a widget message, the live workbench, the claim, won, and a second expert ' + 'watching',
    async () => {
      // 1. A provider signs up and completes onboarding (their name carries an XSS payload).
      const expertPage = await (await newContext()).newPage();
      const expertEmail = unique('expert');
      await onboard(expertPage, expertEmail, `Robin ${XSS}`, true);
      await screenshotBoth(expertPage, 'provider-onboarding-submitted');

      // A second provider, for the "sees it leave Available" part.
      const secondPage = await (await newContext()).newPage();
      await onboard(secondPage, unique('second'), 'Sky Gardner');

      // 2. A platform admin approves both in /admin/providers.
      const adminPage = await (await newContext()).newPage();
      const adminEmail = unique('admin');
      await signUp(adminPage, 'business', adminEmail);
      const found = await adminApi(`/api/admin/users?email=${encodeURIComponent(adminEmail)}`);
      await adminApi(`/api/admin/users/${found.user_id}`, {
        method: 'PATCH',
        body: JSON.stringify({ platform_admin: true }),
      });
      // Administrators set up a second factor before any admin page opens.
      await adminPage.goto(`${worker}/admin/providers`);
      await adminPage.waitForURL(/\/account\/security\?notice=admin_factor/);
      await enrolAuthenticatorInBrowser(adminPage);
      await adminPage.goto(`${worker}/admin/providers`);
      await expectAccessible(adminPage, 'admin providers');
      // The payload in the provider's name is text in the queue.
      expect(await adminPage.locator('main').textContent()).toContain(`Robin ${XSS}`);
      expect(await adminPage.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      await screenshotBoth(adminPage, 'admin-providers-queue');
      for (const name of [`Robin ${XSS}`, 'Sky Gardner']) {
        await adminPage.goto(`${worker}/admin/providers`);
        await adminPage.getByRole('link', { name }).click();
        if (name === 'Sky Gardner') {
          await expectAccessible(adminPage, 'admin provider review');
          await screenshotBoth(adminPage, 'admin-provider-review');
        }
        await adminPage.getByRole('button', { name: 'Approve' }).click();
        await adminPage.waitForURL(/notice=approved/);
        expect(await adminPage.textContent('main')).toContain('active');
      }

      // The experts open their workbench before anything arrives.
      await expertPage.goto(`${worker}/provider/workbench`);
      await secondPage.goto(`${worker}/provider/workbench`);
      await expectAccessible(expertPage, 'workbench (empty)');
      const expertList = expertPage.locator('ul.lead-list li.lead-card');
      expect(await expertList.count()).toBe(0);

      // 3. A visitor writes through the widget on the customer's site, with a payload in the message and the name.
      const visitor = await (await newContext()).newPage();
      await visitor.goto(`${site.origin}/shop.html`);
      await visitor.locator('div[data-egw] button.l').click();
      await visitor.locator('div[data-egw] textarea').fill(`My hedge needs trimming today ${XSS}`);
      await visitor.keyboard.press('Enter');
      await visitor.locator('div[data-egw] .bubble.assistant', { hasText: 'Leave your email' }).waitFor();
      await visitor.locator('div[data-egw] input[name="name"]').fill(`Pat ${XSS}`);
      await visitor.locator('div[data-egw] input[name="email"]').fill('pat.gardens@example.com');
      await visitor.locator('div[data-egw] form.card button[type="submit"]').click();
      await visitor.locator('div[data-egw] .card.success').waitFor();

      // 4. The lead appears in both workbenches without a reload.
      const card = expertPage.locator('ul.lead-list li.lead-card', { hasText: 'My hedge needs trimming' });
      await card.waitFor({ timeout: 15_000 });
      await secondPage
        .locator('ul.lead-list li.lead-card', { hasText: 'My hedge needs trimming' })
        .waitFor({ timeout: 15_000 });
      expect(await card.textContent()).toContain(XSS);
      expect(await expertPage.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await expertPage.locator('[data-count="available"]').textContent()).toBe('1');
      await expectAccessible(expertPage, 'workbench (one lead)');
      await screenshotBoth(expertPage, 'workbench-available');

      // 5. The expert opens it, claims it, sees the contact details, and works it to won.
      await card.locator('a').click();
      await expertPage.waitForURL(/\/provider\/workbench\/leads\/lead_/);
      expect(await expertPage.locator('main').textContent()).not.toContain('pat.gardens@example.com');
      await expectAccessible(expertPage, 'lead (open)');
      await expertPage.getByRole('button', { name: 'Claim this lead' }).click();
      await expertPage.waitForURL(/notice=claimed/);
      const main = expertPage.locator('main');
      expect(await main.textContent()).toContain('pat.gardens@example.com');
      expect(await main.textContent()).toContain(`Pat ${XSS}`);
      expect(await main.textContent()).toContain(`My hedge needs trimming today ${XSS}`);
      expect(await expertPage.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      await expectAccessible(expertPage, 'lead (claimed)');
      await screenshotBoth(expertPage, 'workbench-lead-claimed');
      for (const status of ['contacted', 'qualified', 'won']) {
        await expertPage.getByLabel('Next status').selectOption(status);
        await expertPage.getByLabel('Note (optional)').fill(`Moved to ${status}.`);
        await expertPage.getByRole('button', { name: 'Update status' }).click();
        await expertPage.waitForURL(/notice=status/);
        expect(await expertPage.locator('.title-row .pill').first().textContent()).toBe(status);
      }
      expect(await expertPage.locator('.history').textContent()).toContain('Moved to won.');
      await screenshotBoth(expertPage, 'workbench-lead-won');

      // 6. The second expert watched it leave Available, without a reload.
      await expect
        .poll(() => secondPage.locator('ul.lead-list li.lead-card', { hasText: 'My hedge needs trimming' }).count(), {
          timeout: 15_000,
        })
        .toBe(0);
      expect(await secondPage.locator('[data-count="available"]').textContent()).toBe('0');
      await screenshotBoth(secondPage, 'workbench-second-expert');

      // The expert's Mine tab has it, won.
      await expertPage.goto(`${worker}/provider/workbench?tab=mine`);
      expect(await expertPage.locator('ul.lead-list li.lead-card').first().textContent()).toContain('won');

      // 7. A lead from a one-off API call (no session, so no chat) shows the request it made.
      const executed = await fetch(`${worker}/api/execute`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          domain,
          execution_mode: 'sync',
          required_scopes: [],
          text: `Quote for a new lawn, about 80 m² ${XSS}`,
        }),
      });
      const leadId = ((await executed.json()) as { output: { result: { lead_id: string } } }).output.result.lead_id;
      await expertPage.goto(`${worker}/provider/workbench/leads/${leadId}`);
      const conversation = expertPage.locator('section[aria-labelledby="conversation-title"]');
      expect(await conversation.textContent()).toContain('Sent through the API as one request');
      expect(await conversation.textContent()).toContain(`Quote for a new lawn, about 80 m² ${XSS}`);
      expect(await expertPage.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      await expectAccessible(expertPage, 'lead (API request)');
      await screenshotBoth(expertPage, 'workbench-lead-api');
    },
  );

  it('a provider not yet active sees why, and what to do next', async () => {
    const page = await (await newContext()).newPage();
    await signUp(page, 'provider', unique('waiting'));
    await page.goto(`${worker}/provider/workbench`);
    expect(await page.textContent('main')).toContain('not open to you yet');
    expect(await page.textContent('main')).toContain('five short steps');
    await expectAccessible(page, 'workbench closed');
    await screenshotBoth(page, 'workbench-closed');
  });

  it('a rejected provider reads the note on the onboarding page', async () => {
    const page = await (await newContext()).newPage();
    await onboard(page, unique('rejected'), 'Rejected Rita');
    const queue = await adminApi('/api/admin/providers?status=pending_review');
    const mine = queue.data.find((entry: { display_name: string }) => entry.display_name === 'Rejected Rita');
    await adminApi(`/api/admin/providers/${mine.provider_id}/reject`, {
      method: 'POST',
      body: JSON.stringify({ note: 'Tell us which regions you cover.' }),
    });
    await page.goto(`${worker}/provider/onboarding`);
    expect(await page.textContent('main')).toContain('Tell us which regions you cover.');
    expect(await page.textContent('main')).toContain('came back from review');
    await expectAccessible(page, 'onboarding after rejection');
    await screenshotBoth(page, 'provider-onboarding-rejected');
  });
});
