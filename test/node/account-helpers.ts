/**
 * Accounts in the Node suite: the emails the local mail sink kept, the Worker's clock for
 * authenticator codes, and a sign-up in Chromium that confirms its address from its email.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { expect, inject, vi } from 'vitest';

/** The text of the newest email to `address` whose subject matches, once the sink has it. */
export async function mailText(address: string, subject: RegExp): Promise<string> {
  const mailDir = inject('mailDir');
  // vi.waitUntil, not expect.poll: set-up hooks sign accounts up too.
  return vi.waitUntil(
    async () => {
      let found = '';
      for (const file of readdirSync(mailDir).filter((name) => name.endsWith('.eml'))) {
        const raw = readFileSync(join(mailDir, file), 'utf8');
        if (!raw.includes(address)) continue;
        const mail = await simpleParser(raw);
        if (subject.test(mail.subject ?? '')) found = mail.text ?? '';
      }
      return found;
    },
    { timeout: 15_000, interval: 100 },
  );
}

/**
 * An authenticator app's code for `key` at the Worker's clock, `steps` time steps on. `advanceMs`
 * first moves that clock on (a code's time step is taken once: a second sign-in within one step
 * needs the next step's code).
 */
export async function workerTotpCode(key: string, options: { steps?: number; advanceMs?: number } = {}) {
  const worker = inject('workerUrl');
  const response = await fetch(`${worker}/__test/clock?advance_ms=${options.advanceMs ?? 0}`, { method: 'POST' });
  const { now } = (await response.json()) as { now: number };
  return generateHOTP(decodeBase32IgnorePadding(key), BigInt(Math.floor(now / 30_000) + (options.steps ?? 0)), 6);
}

/** Follows the confirmation link that sign-up emailed to `email`, in this page. */
export async function confirmEmail(page: Page, email: string): Promise<void> {
  const text = await mailText(email, /Confirm your email address/);
  const link = /https?:\/\/\S+\/auth\/verify\/\S+/.exec(text)![0];
  await page.goto(new URL(new URL(link).pathname, inject('workerUrl')).href);
  await page.getByRole('button', { name: 'Confirm my email' }).click();
  await page.getByRole('heading', { name: 'Your email is confirmed' }).waitFor();
}

/** Sets up an authenticator app on the account security page (the code computed at the Worker's clock). */
export async function enrolAuthenticatorInBrowser(page: Page): Promise<string> {
  await page.goto(`${inject('workerUrl')}/account/security`);
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const key = (await page.locator('#totp-key').innerText()).trim();
  await page.getByLabel('Code from the app').fill(await workerTotpCode(key));
  await page.getByRole('button', { name: 'Turn two-step sign-in on' }).click();
  await expect.poll(() => page.locator('.recovery-codes li').count()).toBe(10);
  return key;
}

/** Follows the confirmation link emailed to `email` over HTTP, as its page's button would. */
export async function confirmEmailOverHttp(email: string): Promise<void> {
  const worker = inject('workerUrl');
  const text = await mailText(email, /Confirm your email address/);
  const path = new URL(/https?:\/\/\S+\/auth\/verify\/\S+/.exec(text)![0]).pathname;
  const response = await fetch(`${worker}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker },
    body: '',
  });
  expect(response.status).toBe(200);
}
