/**
 * Accounts people can trust, in Chromium (docs/design/identity-and-access.md): a person who
 * forgot their password asks for a link from the sign-in page, follows it from the email the
 * local mail sink kept, sets a new password, and signs in with it; the old one no longer works.
 * An account sets up an authenticator app (the test computes its codes at the Worker's clock),
 * keeps its recovery codes, and signs in with a code. A newcomer meets the "confirm your email"
 * banner, follows the link from the email, and then creates an organisation. A passkey is added
 * with Chromium's virtual authenticator (the DevTools protocol) and signs in alone.
 */
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mailText } from './account-helpers';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth } from './browser';

const worker = inject('workerUrl');

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

  it('sets up an authenticator app, keeps the recovery codes, and signs in with a code', async () => {
    const email = `careful.${Date.now().toString(36)}@example.com`;
    const password = 'a careful long passphrase 3';
    /** The app's code for `key`, `steps` time steps after the Worker's clock. */
    const code = async (key: string, steps = 0) => {
      const { now } = await (await fetch(`${worker}/__test/clock?advance_ms=0`, { method: 'POST' })).json();
      return generateHOTP(decodeBase32IgnorePadding(key), BigInt(Math.floor(now / 30_000) + steps), 6);
    };
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${worker}/auth/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    await page.getByRole('link', { name: email }).click();
    await page.getByRole('heading', { name: 'Account security', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const key = (await page.locator('#totp-key').innerText()).trim();
    await expectAccessible(page, 'account security, setting up', 'main');
    // A typo: the reason stands beside the field, and the key the phone already holds stays.
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn two-step sign-in on' }).click();
    await page
      .locator('#totp-code-error, .field-error')
      .filter({ hasText: 'not the one the app shows' })
      .first()
      .waitFor();
    expect((await page.locator('#totp-key').innerText()).trim()).toBe(key);
    await page.getByLabel('Code from the app').fill(await code(key));
    await page.getByRole('button', { name: 'Turn two-step sign-in on' }).click();
    await expect.poll(() => page.locator('.recovery-codes li').count()).toBe(10);
    // The post ended on the page itself: a reload sends nothing again, and the codes are not shown twice.
    expect(new URL(page.url()).pathname).toBe('/account/security');
    await expectAccessible(page, 'account security, on', 'main');
    await screenshotBoth(page, 'account-security');
    await page.reload();
    expect(await page.locator('.recovery-codes li').count()).toBe(0);

    await page.goto(`${worker}/auth/sign-out`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/signed_out=1/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/auth\/second-factor/);
    await expectAccessible(page, 'second factor', 'main');
    await screenshotBoth(page, 'auth-second-factor');
    // The next time step's code (the one the set-up took is spent).
    await page.getByLabel('Code from your authenticator app').fill(await code(key, 1));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    await page.close();
  });

  it('lists where the account is signed in and signs every other session out', async () => {
    const email = `travelling.${Date.now().toString(36)}@example.com`;
    const password = 'a travelling long passphrase 4';
    const laptop = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await laptop.goto(`${worker}/auth/sign-up`);
    await laptop.getByLabel('Email').fill(email);
    await laptop.getByLabel('Password').fill(password);
    await laptop.getByRole('button', { name: 'Create account' }).click();
    await laptop.waitForURL(/\/onboarding\/workspace/);
    const phoneContext = await browser.newContext({ viewport: { width: 375, height: 812 } });
    const phone = await phoneContext.newPage();
    await phone.goto(`${worker}/auth/sign-in`);
    await phone.getByLabel('Email').fill(email);
    await phone.getByLabel('Password').fill(password);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.waitForURL(/\/onboarding\/workspace/);

    await laptop.goto(`${worker}/account/security`);
    await expect
      .poll(() => laptop.locator('#sessions-title ~ * tbody tr, #sessions-title + * tr').count())
      .toBeGreaterThan(1);
    await laptop.getByText('this device').waitFor();
    await expectAccessible(laptop, 'account security, sessions', 'main');
    await screenshotBoth(laptop, 'account-sessions');
    await laptop.getByRole('button', { name: /Sign out every other session/ }).click();
    await laptop.getByRole('status').filter({ hasText: 'Every other session is signed out.' }).waitFor();
    // The post ended on the page itself: a reload sends nothing again.
    expect(new URL(laptop.url()).pathname).toBe('/account/security');
    await phone.goto(`${worker}/account/security`);
    await phone.waitForURL(/\/auth\/sign-in/);
    await phoneContext.close();
    await laptop.close();
  });

  it('signs up, meets the banner, follows the link from the email, and creates an organisation', async () => {
    const email = `newcomer.${Date.now().toString(36)}@example.com`;
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${worker}/auth/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a newcomer long passphrase 5');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    await page.locator('.verify-banner').waitFor();
    await expectAccessible(page, 'onboarding with the banner', 'main');
    await screenshotBoth(page, 'verify-banner');
    await page.getByLabel('Organisation name').fill('Too Early Ltd');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.getByText('Confirm your email address first').first().waitFor();
    // The form stays as typed, with the link's button beside it.
    expect(await page.getByLabel('Organisation name').inputValue()).toBe('Too Early Ltd');
    await page.locator('main').getByRole('button', { name: 'Send the link again' }).last().waitFor();
    await expectAccessible(page, 'onboarding before the email is confirmed', 'main');
    await screenshotBoth(page, 'onboarding-unconfirmed');

    const text = await mailText(email, /Confirm your email address/);
    const link = /https?:\/\/\S+\/auth\/verify\/\S+/.exec(text)![0];
    await page.goto(new URL(new URL(link).pathname, worker).href);
    await expectAccessible(page, 'confirm email', 'main');
    await screenshotBoth(page, 'auth-verify');
    await page.getByRole('button', { name: 'Confirm my email' }).click();
    await page.getByRole('heading', { name: 'Your email is confirmed' }).waitFor();
    await page.getByRole('link', { name: 'Open the console' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    expect(await page.locator('.verify-banner').count()).toBe(0);
    await page.getByLabel('Organisation name').fill('Confirmed Ltd');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.waitForURL(/\/integrations\?ws=ws_/);
    await page.close();
  });

  it('at an IP address the pages say why passkeys cannot work, and point at the name that works', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(`${worker}/auth/sign-in`);
    const note = page.locator('.passkey-unavailable');
    await note.waitFor();
    expect(await note.innerText()).toContain(`${worker.replace('127.0.0.1', 'localhost')}/auth/sign-in`);
    expect(await page.getByRole('button', { name: 'Use a passkey' }).count()).toBe(0);
    await expectAccessible(page, 'sign-in at an IP address', 'main');
    await screenshotBoth(page, 'sign-in-ip-address');
    // At the name, the button is offered (the browser supports passkeys).
    await page.goto(`${worker.replace('127.0.0.1', 'localhost')}/auth/sign-in`);
    await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
    expect(await page.locator('.passkey-unavailable').count()).toBe(0);
    await page.close();
  });

  it('adds a passkey with Chromium’s virtual authenticator, and signs in with it alone', async () => {
    // A passkey's relying party is a domain name: the same Worker, as localhost.
    const local = worker.replace('127.0.0.1', 'localhost');
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    const email = `passkey.${Date.now().toString(36)}@example.com`;
    await page.goto(`${local}/auth/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a passkey long passphrase 6');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    await page.goto(`${local}/account/security`);
    await page.getByLabel('A name for it').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(/notice=passkey_added/);
    await page.getByRole('rowheader', { name: 'Test laptop' }).waitFor();
    await expectAccessible(page, 'account security, passkeys', 'main');
    await screenshotBoth(page, 'account-passkeys');

    await page.goto(`${local}/auth/sign-out`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/signed_out=1/);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(/\/onboarding\/workspace/);
    await page.getByRole('link', { name: email }).waitFor();
    await context.close();
  });
});
