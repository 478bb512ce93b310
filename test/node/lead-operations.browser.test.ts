/**
 * Lead operations as people see them (docs/design/lead-operations.md), against a real local Worker whose
 * timer minutes last a second (LEAD_MINUTE_SECONDS=1, test/node/global-setup.ts): the owner sets
 * a channel's routing in the console; a lead offered first to one expert widens to the other when
 * the cron fires, and its history shows both waves on the lead's page. Screenshots at 375 px and
 * 1440 px, and axe, for both pages.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth, signInAsDemo } from './browser';
import { advanceWorkerClock } from './worker-clock';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');

describe.skipIf(!browserAvailable)('lead operations in the console and the workbench', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the owner sets the routing of a channel; a lead’s history shows its waves', async () => {
    const created = await fetch(`${worker}/api/integrations/channels`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Waves', domain: 'consultation', allowed_origins: ['https://waves.example'] }),
    });
    expect(created.status).toBe(201);
    const { channel_key: channelKey } = (await created.json()) as { channel_key: string };

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const owner = await context.newPage();
    await signInAsDemo(owner, worker, 'owner@demo.test');
    await owner.goto(`${worker}/integrations/channels/${channelKey}`);
    await owner.getByLabel('Offer a new lead first to this many experts').fill('1');
    await owner.getByLabel('Then to every matching expert after (minutes)').fill('1');
    await owner.getByRole('button', { name: 'Save settings' }).click();
    await owner.getByText('Saved.').waitFor();
    expect(await owner.getByLabel('Offer a new lead first to this many experts').inputValue()).toBe('1');
    await owner.getByLabel('Offer a new lead first to this many experts').fill('0');
    await owner.getByRole('button', { name: 'Save settings' }).click();
    await owner.getByText('Please check the settings.').waitFor();
    await owner.goto(`${worker}/integrations/channels/${channelKey}#settings-title`);
    await expectAccessible(owner, 'channel routing settings');
    await screenshotBoth(owner, 'console-channel-routing');
    await context.close();

    // A visitor asks about payroll: both demo experts match; the first wave is one of them.
    const intake = await fetch(`${worker}/api/public/channels/${channelKey}/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://waves.example' },
      body: JSON.stringify({ message: { text: 'Our payroll run failed, please help.' }, trigger: 'handoff' }),
    });
    const { lead_id: leadId } = (await intake.json()) as { lead_id: string };
    await advanceWorkerClock(worker, 1_500);
    expect((await fetch(`${worker}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);

    const expertContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const expert = await expertContext.newPage();
    await signInAsDemo(expert, worker, 'expert@demo.test');
    await expert.goto(`${worker}/provider/workbench/leads/${leadId}`);
    const history = expert.locator('ol.history');
    await history.getByText('Offered to the best matching expert.').waitFor();
    await history.getByText('Nobody claimed it within 1 minute: offered to every matching expert.').waitFor();
    await expectAccessible(expert, 'lead history with waves');
    await screenshotBoth(expert, 'lead-history-waves');
    await expertContext.close();
  });
});
