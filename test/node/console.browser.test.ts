import type { Browser, Page } from 'playwright-core';
import { confirmEmail } from './account-helpers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  axeSeriousViolations,
  browserAvailable,
  launchBrowser,
  saveScreenshot,
  screenshotBoth,
  serveSite,
  type Site,
} from './browser';

const worker = inject('workerUrl');
const PASSWORD = 'a long and unusual passphrase 42';
const uniqueEmail = (prefix: string) =>
  `${prefix}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}@example.com`;

async function signUp(page: Page, role: 'business' | 'provider', email: string) {
  await page.goto(`${worker}/auth/sign-up${role === 'provider' ? '?role=provider' : ''}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForLoadState('load');
  await confirmEmail(page, email);
  await page.goto(`${worker}/console`);
}

describe.skipIf(!browserAvailable)('the console in Chromium', () => {
  let browser: Browser;
  let site: Site;
  const pages: Record<string, { body: string; headers?: Record<string, string> }> = {};

  beforeAll(async () => {
    browser = await launchBrowser();
    site = await serveSite(pages);
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it(
    'a site owner signs up, creates an organisation and a channel, restyles the widget, and the pasted snippet ' +
      'shows it',
    async () => {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: worker });
      const page = await context.newPage();

      await signUp(page, 'business', uniqueEmail('owner'));
      await page.waitForURL(`${worker}/onboarding/workspace`);
      await page.getByLabel('Organisation name').fill('Brightline Dental');
      await page.getByRole('button', { name: 'Create organisation' }).click();
      await page.waitForURL(/\/integrations\?ws=ws_/);
      await saveScreenshot(page, 'console-integrations-empty', { fullPage: true });

      await page.getByLabel('Name', { exact: true }).fill('Clinic website');
      await page.getByLabel('Sites that may embed the widget').fill(site.origin);
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.waitForURL(/\/integrations\/channels\/ch_/);
      expect(await page.getByRole('status').first().textContent()).toContain('Channel created');

      await page.getByLabel('Main colour', { exact: true }).fill('#7a1fa2');
      await page.getByLabel('Greeting', { exact: true }).fill('Welcome to Brightline! Ask about appointments.');
      // The live preview is the real panel, and follows the form before saving.
      const previewGreeting = page.locator('#widget-preview .bubble.assistant').first();
      await expect.poll(() => previewGreeting.textContent()).toBe('Welcome to Brightline! Ask about appointments.');
      await saveScreenshot(page, 'console-channel-editor', { fullPage: true });
      await page.getByRole('button', { name: 'Save widget' }).click();
      await page.waitForURL(/notice=saved/);

      await page.getByRole('button', { name: 'Copy snippet' }).click();
      await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
      const snippet = await page.evaluate(() => navigator.clipboard.readText());
      const snippetShape =
        String.raw`^<script async src="[^"]+/embed/widget\.js" data-channel-id="ch_[0-9a-z]+" ` +
        'data-console-origin="[^"]+"></script>$';
      expect(snippet).toMatch(new RegExp(snippetShape));
      await page.getByRole('button', { name: 'Copy link' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/\/widget\/ch_/);

      // Paste it into the owner's site, another origin.
      pages['/clinic.html'] = {
        body:
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
          `content="width=device-width, initial-scale=1"><title>Brightline Dental</title></head><body><h1>Brightline ` +
          `Dental</h1>${snippet}</body></html>`,
      };
      const visitor = await browser.newPage();
      await visitor.goto(`${site.origin}/clinic.html`);
      const launcher = visitor.locator('div[data-egw] button.l');
      await launcher.waitFor();
      await expect
        .poll(() => launcher.evaluate((element) => getComputedStyle(element).backgroundColor))
        .toBe('rgb(122, 31, 162)');
      await launcher.click();
      await visitor
        .locator('div[data-egw] .bubble.assistant', { hasText: 'Welcome to Brightline! Ask about appointments.' })
        .waitFor();
      expect(
        await visitor.locator('div[data-egw] .head').evaluate((element) => getComputedStyle(element).backgroundColor),
      ).toBe('rgb(122, 31, 162)');
      await saveScreenshot(visitor, 'console-snippet-on-site');
      await visitor.close();

      const narrow = await context.newPage();
      await narrow.setViewportSize({ width: 375, height: 812 });
      await narrow.goto(page.url());
      await saveScreenshot(narrow, 'console-channel-375', { fullPage: true });
      const overflow = await narrow.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await context.close();
    },
  );

  it('the widget’s provider link leads to sign-up with the role preselected, then to provider onboarding', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${worker}/demo`);
    await page.locator('div[data-egw] button.l').click();
    const link = page.locator('div[data-egw] a.provider');
    const [signUpPage] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await signUpPage.waitForLoadState();
    expect(new URL(signUpPage.url()).pathname).toBe('/auth/sign-up');
    expect(new URL(signUpPage.url()).searchParams.get('role')).toBe('provider');
    expect(new URL(signUpPage.url()).searchParams.get('ref')).toBe('ch_demo');
    await expect(signUpPage.getByRole('radio', { name: /An expert or agent/ }).isChecked()).resolves.toBe(true);
    await saveScreenshot(signUpPage, 'auth-sign-up-provider');
    await signUpPage.getByLabel('Email').fill(uniqueEmail('expert'));
    await signUpPage.getByLabel('Password').fill(PASSWORD);
    await signUpPage.getByRole('button', { name: 'Create account' }).click();
    await signUpPage.waitForURL(`${worker}/provider/onboarding`);
    expect(await signUpPage.textContent('main')).toContain('registered');
    expect(await signUpPage.textContent('main')).toContain('ch_demo');
    await context.close();
  });

  it('axe-core finds no serious or critical violation on the auth pages and /integrations', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    for (const path of ['/auth/sign-up', '/auth/sign-in', '/auth/sign-out']) {
      await page.goto(`${worker}${path}`);
      expect({ path, violations: await axeSeriousViolations(page) }).toEqual({ path, violations: [] });
    }
    await page.goto(`${worker}/auth/sign-in`);
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await axeSeriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'auth-sign-in-error');

    await signUp(page, 'business', uniqueEmail('axe'));
    await page.waitForURL(`${worker}/onboarding/workspace`);
    expect(await axeSeriousViolations(page)).toEqual([]);
    await page.getByLabel('Organisation name').fill('Axe Checks Inc');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.waitForURL(/\/integrations\?ws=/);
    await page.getByLabel('Name', { exact: true }).fill('Checked site');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.waitForURL(/\/integrations\/channels\//);
    expect(await axeSeriousViolations(page)).toEqual([]);
    await page.goto(page.url().replace(/\/channels\/[^?]+/, ''));
    expect(await axeSeriousViolations(page)).toEqual([]);
    await saveScreenshot(page, 'console-integrations', { fullPage: true });
    await page.getByRole('link', { name: 'Team' }).click();
    await page.waitForURL(/\/integrations\/team/);
    expect(await axeSeriousViolations(page)).toEqual([]);
    // Privacy: an export runs and is listed with its download; a bad erasure form shows its errors.
    await page.getByRole('link', { name: 'Privacy' }).click();
    await page.waitForURL(/\/integrations\/privacy/);
    expect(await axeSeriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Export this workspace' }).click();
    await page.waitForURL(/notice=export_requested/);
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByRole('link', { name: 'Download' }).count();
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(await axeSeriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'console-privacy');
    await page.getByLabel('The visitor’s email address').fill('not an address');
    await page.getByRole('button', { name: 'Erase this visitor’s data' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#f-contact-email-error').textContent()).toContain('Enter the address');
    expect(await axeSeriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'console-privacy-errors');
    await context.close();
  });

  it(
    'an owner invites a colleague, who accepts at /invitations after signing up (axe on both pages, 375 and 1440 ' +
      'px)',
    async () => {
      const ownerContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const owner = await ownerContext.newPage();
      await signUp(owner, 'business', uniqueEmail('inviter'));
      await owner.getByLabel('Organisation name').fill('Invite & Co');
      await owner.getByRole('button', { name: 'Create organisation' }).click();
      await owner.waitForURL(/\/integrations\?ws=/);
      await owner.getByRole('link', { name: 'Team' }).click();
      const inviteeEmail = uniqueEmail('invitee');
      await owner.getByLabel('Email', { exact: true }).fill(inviteeEmail);
      await owner.getByLabel('Role', { exact: true }).selectOption('admin');
      await owner.getByRole('button', { name: 'Send invitation' }).click();
      await owner.waitForURL(/notice=invited/);
      expect(await owner.textContent('main')).toContain(inviteeEmail);
      expect(await axeSeriousViolations(owner)).toEqual([]);
      await saveScreenshot(owner, 'console-team-invitation', { fullPage: true });

      const inviteeContext = await browser.newContext({ viewport: { width: 375, height: 812 } });
      const invitee = await inviteeContext.newPage();
      await signUp(invitee, 'business', inviteeEmail);
      await invitee.waitForURL(`${worker}/onboarding/workspace`);
      await invitee.getByRole('link', { name: 'Review it' }).click();
      await invitee.waitForURL(`${worker}/invitations`);
      expect(await axeSeriousViolations(invitee)).toEqual([]);
      await saveScreenshot(invitee, 'console-invitations-375', { fullPage: true });
      await invitee.getByRole('button', { name: 'Accept' }).click();
      await invitee.waitForURL(/\/integrations\?ws=ws_.*notice=accepted/);
      expect(await invitee.textContent('main')).toContain('Invite & Co');
      await ownerContext.close();
      await inviteeContext.close();
    },
  );

  it('the console can be used from the keyboard: skip link, then the create-channel form', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUp(page, 'business', uniqueEmail('keys'));
    await page.getByLabel('Organisation name').fill('Keyboard Co');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/integrations\?ws=/);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.type('Typed channel');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/integrations\/channels\//);
    expect(await page.textContent('h1')).toBe('Typed channel');
    await context.close();
  });
});
