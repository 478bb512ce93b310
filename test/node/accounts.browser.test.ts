/**
 * Accounts people can trust, in Chromium (docs/design/identity-and-access.md): a person who
 * forgot their password asks for a link from the sign-in page, follows it from the email the
 * local mail sink kept, sets a new password, and signs in with it; the old one no longer works.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth } from './browser';

const worker = inject('workerUrl');
const mailDir = inject('mailDir');

/** The text of the newest email to `address` whose subject matches, once the sink has it. */
async function mailText(address: string, subject: RegExp): Promise<string> {
  let found = '';
  await expect
    .poll(
      async () => {
        for (const file of readdirSync(mailDir).filter((name) => name.endsWith('.eml'))) {
          const raw = readFileSync(join(mailDir, file), 'utf8');
          if (!raw.includes(address)) continue;
          const mail = await simpleParser(raw);
          if (subject.test(mail.subject ?? '')) found = mail.text ?? '';
        }
        return found;
      },
      { timeout: 15_000 },
    )
    .not.toBe('');
  return found;
}

describe.skipIf(!browserAvailable)('password reset in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('asks for a link from sign-in, follows it from the email, and signs in with the new password', async () => {
    const email = `forgetful.${Date.now().toString(36)}@example.com`;
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${worker}/auth/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('the first long passphrase 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    await page.goto(`${worker}/auth/sign-out`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/signed_out=1/);

    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').filter({ hasText: 'a link to set a new password is on its way' }).waitFor();
    await expectAccessible(page, 'forgot password', 'main');
    await screenshotBoth(page, 'auth-forgot');

    const text = await mailText(email, /Reset your password/);
    const link = /https?:\/\/\S+\/auth\/reset\/\S+/.exec(text)![0];
    await page.goto(new URL(new URL(link).pathname, worker).href);
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    await expectAccessible(page, 'reset password', 'main');
    await screenshotBoth(page, 'auth-reset');
    await page.getByLabel('New password', { exact: true }).fill('the second long passphrase 2');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.waitForURL(/password_reset=1/);
    await page.getByRole('status').filter({ hasText: 'Sign in with the new password' }).waitFor();

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('the first long passphrase 1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Email or password is incorrect.').first().waitFor();
    await page.getByLabel('Password').fill('the second long passphrase 2');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    await mailText(email, /Your password was changed/);
    await page.close();
  });
});
