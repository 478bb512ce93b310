/**
 * The workspace owner's read-only webhook pages in Chromium: an endpoint provisioned for the demo
 * workspace, a receiver on loopback that fails the first attempt of every event, and the owner
 * reading the endpoint list and its delivery log (attempts, status codes, errors). axe-core
 * checks each page; screenshots at 375 px and 1440 px.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth, signInAsDemo } from './browser';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');
const adminToken = inject('adminToken');

const signIn = (page: Page, email: string) => signInAsDemo(page, worker, email);

describe.skipIf(!browserAvailable)('the webhook pages of the console in Chromium', () => {
  let browser: Browser;
  let receiver: Server;
  const attempts = new Map<string, number>();

  beforeAll(async () => {
    browser = await launchBrowser();
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const id = String(request.headers['webhook-id']);
        const attempt = (attempts.get(id) ?? 0) + 1;
        attempts.set(id, attempt);
        response.writeHead(attempt === 1 ? 503 : 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('the owner sees the endpoints and a delivery log with the failed first attempt and its retry', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/crm/hooks`;
    const created = await fetch(`${worker}/api/admin/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ workspace_id: 'ws_demo', url, event_types: ['execution.completed'] }),
    });
    expect(created.status).toBe(201);
    const hook = (await created.json()) as { webhook_id: string };
    const executed = await fetch(`${worker}/api/execute`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        domain: 'consultation',
        execution_mode: 'sync',
        required_scopes: [],
        text: 'A question for the delivery log.',
      }),
    });
    expect(executed.status).toBe(200);
    await vi.waitUntil(() => [...attempts.values()].some((count) => count >= 2), { timeout: 30_000, interval: 100 });

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, 'owner@demo.test');
    await page.goto(`${worker}/integrations/webhooks`);
    expect(await page.locator('main').textContent()).toContain(url);
    await expectAccessible(page, 'webhook endpoints');
    await screenshotBoth(page, 'console-webhooks');

    await page.goto(`${worker}/integrations/webhooks/${hook.webhook_id}`);
    const text = await page.locator('main').textContent();
    expect(text).toContain('503');
    expect(text).toContain('204');
    await expectAccessible(page, 'webhook delivery log');
    await screenshotBoth(page, 'console-webhook-deliveries');

    // Read only: the page offers no form that changes the endpoint.
    expect(await page.locator('main form[method="post" i]').count()).toBe(0);
    await context.close();
  });
});
