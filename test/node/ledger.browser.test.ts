/**
 * The ledger's pages in Chromium (docs/design/billing.md): the demo owner's Usage page, the demo
 * expert's credits card after claiming a priced lead, and the admin's billing page. axe-core
 * checks each; screenshots at 375 px and 1440 px, neither scrolling sideways.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mailText } from './account-helpers';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth, signInAsDemo } from './browser';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');

describe.skipIf(!browserAvailable)('the ledger’s pages in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the owner’s Usage page: the month against the contract, the balance, the daily chart', async () => {
    // An execution of the demo key, so the month has something in it.
    const executed = await fetch(`${worker}/api/execute`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ domain: 'consultation', execution_mode: 'sync', required_scopes: [], text: 'Usage page' }),
    });
    expect(executed.status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signInAsDemo(page, worker, 'owner@demo.test');
    await page.goto(`${worker}/integrations/usage?ws=ws_demo`);
    await expect(page.getByRole('heading', { name: 'Usage', level: 1 })).toBeTruthy();
    expect(await page.locator('.meters li').first().textContent()).toContain('of 5');
    expect(await page.locator('#balance-title + .balance').textContent()).toMatch(/^€\d/);
    expect(await page.locator('figure.chart svg[role=img]').count()).toBe(1);
    await page.locator('details.chart-numbers summary').click();
    await expectAccessible(page, 'usage page');
    await screenshotBoth(page, 'usage');
    await context.close();
  });

  it('the expert’s credits card: the balance, the fee of a claimed lead, the refund form', async () => {
    const executed = await fetch(`${worker}/api/execute`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        domain: 'consultation',
        execution_mode: 'sync',
        required_scopes: ['execute', 'leads:write'],
        text: `A priced lead for the credits card (${Date.now()})`,
      }),
    });
    const { output } = (await executed.json()) as { output: { result: { lead_id?: string } } };
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signInAsDemo(page, worker, 'expert@demo.test');
    if (output.result.lead_id) {
      await page.goto(`${worker}/provider/workbench/leads/${output.result.lead_id}`);
      await page.getByRole('button', { name: 'Claim this lead' }).click();
      await page.waitForLoadState('load');
    }
    await page.goto(`${worker}/provider/workbench#credits`);
    const card = page.locator('#credits');
    expect(await card.locator('.balance').textContent()).toMatch(/^€\d/);
    expect(await card.textContent()).toContain('Lead fee');
    expect(await card.getByRole('button', { name: 'Ask for it back' }).count()).toBeGreaterThan(0);
    await expectAccessible(page, 'workbench with credits');
    await card.scrollIntoViewIfNeeded();
    await screenshotBoth(page, 'credits');
    await context.close();
  });

  it('the owner tops up 50.00 EUR by card through the local Checkout: one credit, listed, a receipt', async () => {
    const adminToken = inject('adminToken');
    const escrow = async () => {
      const response = await fetch(`${worker}/api/admin/escrows/esc_demo`, {
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      return (await response.json()) as {
        balance_minor: number;
        entries: Array<{ kind: string; ref: string; amount_minor: number }>;
      };
    };
    const before = await escrow();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signInAsDemo(page, worker, 'owner@demo.test');
    await page.goto(`${worker}/integrations/usage?ws=ws_demo`);
    await page.getByLabel('Top up by card (EUR)').fill('50.00');
    await page.getByRole('button', { name: 'Pay by card' }).click();
    // The stand-in's page, where Stripe's hosted Checkout would be.
    await page.getByRole('heading', { name: 'Pay 50.00 EUR' }).waitFor();
    await screenshotBoth(page, 'checkout-stand-in');
    await page.getByRole('button', { name: 'Pay 50.00 EUR' }).click();
    await page.waitForURL(/\/integrations\/usage\?ws=ws_demo&payment=pay_/);
    const paymentId = new URL(page.url()).searchParams.get('payment')!;
    // The stand-in sends the webhook before it sends the payer back: the credit is there.
    await page.getByText(`Payment ${paymentId} received`).waitFor({ timeout: 15_000 });
    const after = await escrow();
    // One credit of 50.00 from the card (other tests' executions may charge the demo escrow meanwhile).
    const cardCredits = (entries: typeof after.entries) =>
      entries.filter((entry) => entry.kind === 'credit' && entry.ref.startsWith('stripe:'));
    expect(cardCredits(after.entries).length - cardCredits(before.entries).length).toBe(1);
    expect(cardCredits(after.entries)[0]!.amount_minor).toBe(5000);
    expect(after.balance_minor).toBeGreaterThan(before.balance_minor + 4900);
    expect(await page.locator('#balance-title').locator('..').textContent()).toContain(paymentId);
    const receipt = await page.getByRole('link', { name: 'Stripe’s receipt' }).first().getAttribute('href');
    expect((await fetch(receipt!)).status).toBe(200);
    expect(await mailText('owner@demo.test', new RegExp(`^Receipt: 50.00 EUR .*${paymentId}`))).toBeTruthy();
    await expectAccessible(page, 'usage page with a card payment');
    await screenshotBoth(page, 'usage-top-up');
    await context.close();
  });

  it('the admin’s billing page', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signInAsDemo(page, worker, 'admin@demo.test');
    await page.goto(`${worker}/admin/billing?workspace=ws_demo`);
    expect(await page.locator('#contracts-title').textContent()).toContain('ws_demo');
    expect(await page.content()).toContain('5 executions, then €0.02 each');
    // The card payments and their reconciliation against the ledger (after the top-up above).
    expect(await page.locator('#payments-title').locator('..').textContent()).toContain('Reconciliation, last 14 days');
    await expectAccessible(page, 'admin billing page');
    await screenshotBoth(page, 'admin-billing');
    await context.close();
  });
});
