import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { axeSeriousViolations, browserAvailable, launchBrowser, saveScreenshot, serveSite, type Site } from './browser';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');
const XSS = '"><img src=x onerror=window.__x=1>';

async function api(path: string, init: RequestInit = {}) {
  const response = await fetch(`${worker}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...init.headers },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

function snippetPage(
  channelKey: string,
  { hostile = false, csp = true } = {},
): { body: string; headers: Record<string, string> } {
  const body = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Customer site</title>
  <link rel="icon" href="data:,">
  ${hostile ? '<link rel="stylesheet" href="/hostile.css">' : ''}
</head>
<body>
  <main>
    <h1>Acme Plumbing</h1>
    <p id="host-text">We fix pipes. Ask us anything.</p>
    <button id="host-button" type="button">A host button</button>
  </main>
  <script async src="${worker}/embed/widget.js" data-channel-id="${channelKey}"
    data-console-origin="${worker}"></script>
</body>
</html>`;
  // The strictest policy a customer could have: the console origin for script and connect, nothing inline.
  const policy = [
    `default-src 'none'`,
    `script-src ${worker}`,
    `connect-src ${worker} ${worker.replace(/^http/, 'ws')}`,
    `style-src 'self'`,
    `img-src 'self' data:`,
  ].join('; ');
  return { body, headers: csp ? { 'Content-Security-Policy': policy } : {} };
}

// Hostile global CSS: every host element reset, loud colours and fonts everywhere.
const HOSTILE_CSS = `* { all: unset !important; }
html, body, main, h1, p { display: block !important; }
* { color: rgb(255, 0, 0) !important; font-family: "Comic Sans MS", cursive !important; font-size: 30px !important; }
button { background: rgb(0, 255, 0) !important; }`;

async function launcher(page: Page) {
  const button = page.locator('div[data-egw] button.l');
  await button.waitFor();
  return button;
}

async function shadowActive(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const host = document.querySelector('div[data-egw]');
    const active = host?.shadowRoot?.activeElement;
    return active
      ? `${active.tagName.toLowerCase()}${active.className ? `.${active.className.split(' ').join('.')}` : ''}`
      : null;
  });
}

describe.skipIf(!browserAvailable)('the embeddable widget in Chromium', () => {
  let browser: Browser;
  let site: Site;
  let channelKey: string;
  /** The site's pages; tests add their own (served by a real loopback server, like a customer's). */
  const pages: Record<string, { body: string; type?: string; headers?: Record<string, string> }> = {
    '/hostile.css': { body: HOSTILE_CSS, type: 'text/css' },
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    // The site's origin is only known once it listens, so the channel is created after, then the pages are filled in.
    site = await serveSite(pages);
    const channel = await api('/api/integrations/channels', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Acme site',
        domain: 'consultation',
        allowed_origins: [site.origin],
        widget: {
          brand: { name: 'Acme Plumbing' },
          colors: { primary: '#0b6e4f' },
          copy: { greeting: 'Hi! How can we help with your plumbing?' },
        },
      }),
    });
    channelKey = channel.channel_key;
    pages['/landing.html'] = snippetPage(channelKey, { hostile: true });
    pages['/plain.html'] = snippetPage(channelKey);
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it(
    'on a cross-origin page with a strict CSP and hostile CSS: chat, lead form, lead and attribution ' + 'stored',
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));

      const configLoaded = page.waitForResponse(
        (response) => response.url().includes('/config') && response.status() === 200,
      );
      await page.goto(`${site.origin}/landing.html?utm_source=newsletter&utm_medium=email&utm_campaign=spring`);
      await configLoaded;
      const button = await launcher(page);
      const hostButtonBefore = await page.evaluate(
        () => getComputedStyle(document.getElementById('host-button')!).backgroundColor,
      );

      // Before opening: the loader and one config request, nothing else from the console.
      const fromWorker = requests.filter((url) => url.startsWith(worker)).map((url) => new URL(url).pathname);
      expect(fromWorker).toEqual(['/embed/widget.js', `/api/public/widget/${channelKey}/config`]);
      expect(requests.some((url) => url.includes('/embed/panel'))).toBe(false);

      // The launcher is drawn in the configured colour despite the hostile stylesheet.
      const launcherStyle = await button.evaluate((element) => {
        const style = getComputedStyle(element);
        return { background: style.backgroundColor, position: style.position, width: style.width };
      });
      expect(launcherStyle).toEqual({ background: 'rgb(11, 110, 79)', position: 'fixed', width: '56px' });
      await saveScreenshot(page, 'widget-launcher');

      await button.click();
      const dialog = page.locator('div[data-egw] [role="dialog"]');
      await dialog.waitFor();
      expect(requests.some((url) => url.includes('/embed/panel.en.js?v='))).toBe(true);
      await expect(dialog.getAttribute('aria-labelledby')).resolves.toBeTruthy();
      // Host styles do not leak in: the greeting is not red Comic Sans.
      const bubbleStyle = await page
        .locator('div[data-egw] .bubble.assistant')
        .first()
        .evaluate((element) => {
          const style = getComputedStyle(element);
          return { color: style.color, font: style.fontFamily };
        });
      expect(bubbleStyle.color).toBe('rgb(29, 35, 48)');
      expect(bubbleStyle.font).not.toContain('Comic Sans');

      await page.locator('div[data-egw] textarea').fill('Our boiler leaks. Can someone come this week?');
      await page.keyboard.press('Enter');
      await page.locator('div[data-egw] .bubble.assistant', { hasText: 'Thanks, your request' }).waitFor();
      await page.locator('div[data-egw] form.card').waitFor();
      await saveScreenshot(page, 'widget-open-desktop');

      // Validation: the required email is asked for before anything is sent.
      await page.locator('div[data-egw] form.card button[type="submit"]').click();
      await page.locator('div[data-egw] .field-error', { hasText: 'email' }).waitFor();
      await page.locator('div[data-egw] input[name="name"]').fill('Ada Lovelace');
      await page.locator('div[data-egw] input[name="email"]').fill('ada@example.com');
      await page.locator('div[data-egw] form.card button[type="submit"]').click();
      await page.locator('div[data-egw] .card.success').waitFor();
      await saveScreenshot(page, 'widget-success');
      // Thanked once: the card stands in for the reply's bubble and carries the request's reference.
      expect(await page.locator('div[data-egw] .bubble', { hasText: 'will follow up on request' }).count()).toBe(0);
      expect(await page.locator('div[data-egw] .card.success').innerText()).toMatch(/reference is D-[0-9A-Z]+/);

      // The widget's styles do not leak out either.
      const hostButtonAfter = await page.evaluate(
        () => getComputedStyle(document.getElementById('host-button')!).backgroundColor,
      );
      expect(hostButtonAfter).toBe(hostButtonBefore);
      expect(consoleErrors.filter((text) => /Content Security Policy|Refused/.test(text))).toEqual([]);

      const intake = await api(`/api/integrations/channels/${channelKey}/intake`);
      const lead = intake.data.find((entry: { lead: unknown }) => entry.lead);
      expect(lead.lead).toMatchObject({ status: 'open', contact_fields: ['name', 'email'] });
      expect(lead.attribution).toMatchObject({
        source_site: site.origin,
        page_url: `${site.origin}/landing.html?utm_source=newsletter&utm_medium=email&utm_campaign=spring`,
        campaign: { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring' },
      });
      // One conversation: its first message, its lead (with the strongest trigger it saw).
      expect(intake.data.filter((entry: { text: string | null }) => entry.text?.includes('boiler'))).toHaveLength(1);
      expect(lead.text).toContain('boiler');
      expect(lead.trigger).toBe('lead_capture');
      await context.close();
    },
  );

  it('keeps the session across page loads on the same site', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.origin}/plain.html`);
    await (await launcher(page)).click();
    await page.locator('div[data-egw] textarea').fill('First visit question');
    await page.keyboard.press('Enter');
    await page.locator('div[data-egw] .bubble.assistant', { hasText: 'Thanks, your request' }).waitFor();
    const session = await page.evaluate((key) => localStorage.getItem(`egw:${key}:session`), channelKey);
    expect(session).toMatch(/^"egv_/);
    await page.reload();
    await (await launcher(page)).click();
    await page.locator('div[data-egw] .bubble.visitor', { hasText: 'First visit question' }).waitFor();
    // The whole thread is back from the server (the reply too) before the visitor writes again.
    await page.locator('div[data-egw] .bubble.assistant', { hasText: 'Thanks, your request' }).waitFor();
    await page.locator('div[data-egw] textarea').fill('Second visit');
    await page.keyboard.press('Enter');
    await page.locator('div[data-egw] .bubble.visitor', { hasText: 'Second visit' }).waitFor();
    // Sent (the server has it), and not answered by the same reply again: it was said once.
    await page.locator('div[data-egw] .mark').waitFor();
    expect(await page.locator('div[data-egw] .bubble.assistant', { hasText: 'Thanks, your request' }).count()).toBe(1);
    expect(await page.evaluate((key) => localStorage.getItem(`egw:${key}:session`), channelKey)).toBe(session);
    await context.close();
  });

  it('works from the keyboard alone: Tab to the launcher, Enter, type, Enter, Esc', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.origin}/plain.html`);
    await launcher(page);
    for (let i = 0; i < 5 && (await shadowActive(page)) !== 'button.l'; i++) await page.keyboard.press('Tab');
    expect(await shadowActive(page)).toBe('button.l');
    await page.keyboard.press('Enter');
    await page.locator('div[data-egw] [role="dialog"]').waitFor();
    await expect.poll(() => shadowActive(page)).toBe('textarea');
    await page.keyboard.type('Typed without a mouse');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    await page.keyboard.press('Enter');
    await page.locator('div[data-egw] .bubble.visitor', { hasText: 'second line' }).waitFor();
    expect(await page.locator('div[data-egw] .bubble.visitor').last().textContent()).toContain(
      'Typed without a mouse\nsecond line',
    );
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('div[data-egw] [role="dialog"]').isVisible()).toBe(false);
    expect(await shadowActive(page)).toBe('button.l');
    expect(await page.locator('div[data-egw] button.l').getAttribute('aria-expanded')).toBe('false');
    await context.close();
  });

  it('shows visitor text literally and never runs it, in the widget and in the hosted inbox', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.origin}/plain.html`);
    await (await launcher(page)).click();
    await page.locator('div[data-egw] textarea').fill(XSS);
    await page.keyboard.press('Enter');
    const bubble = page.locator('div[data-egw] .bubble.visitor').last();
    await bubble.waitFor();
    expect(await bubble.textContent()).toContain(XSS);
    expect(await page.evaluate(() => (window as { __x?: number }).__x)).toBeUndefined();
    expect(await page.locator('div[data-egw] img[src="x"]').count()).toBe(0);

    const inbox = await context.newPage();
    await inbox.goto(`${worker}/widget/${channelKey}`);
    await inbox.locator('textarea').fill(XSS);
    await inbox.keyboard.press('Enter');
    await inbox.locator('.bubble.visitor').last().waitFor();
    expect(await inbox.locator('.bubble.visitor').last().textContent()).toContain(XSS);
    await inbox.locator('.bubble.assistant', { hasText: 'Thanks, your request' }).waitFor();
    expect(await inbox.evaluate(() => (window as { __x?: number }).__x)).toBeUndefined();
    expect(await inbox.locator('img[src="x"]').count()).toBe(0);
    await context.close();
  });

  it('falls back to the hosted inbox in a new tab when the config request fails', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route('**/api/public/widget/*/config', (route) => route.abort('failed'));
    await page.goto(`${site.origin}/plain.html`);
    const button = await launcher(page);
    await expect.poll(() => button.getAttribute('aria-label')).toBe('Open chat (opens in a new tab)');
    const [popup] = await Promise.all([context.waitForEvent('page'), button.click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe(`${worker}/widget/${channelKey}`);
    await popup.locator('.panel.page').waitFor();
    await context.close();
  });

  it('goes full screen on a narrow screen', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${site.origin}/plain.html`);
    await (await launcher(page)).click();
    const panel = page.locator('div[data-egw] .panel');
    await panel.waitFor();
    const box = await panel.boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 375, height: 740 });
    await saveScreenshot(page, 'widget-open-375');
    await context.close();
  });

  it('axe-core finds no serious or critical violation in the open widget or the hosted inbox', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.origin}/plain.html`);
    await (await launcher(page)).click();
    await page.locator('div[data-egw] textarea').fill('Accessibility check');
    await page.keyboard.press('Enter');
    await page.locator('div[data-egw] form.card').waitFor();
    expect(await axeSeriousViolations(page, 'div[data-egw]')).toEqual([]);

    const inbox = await context.newPage();
    await inbox.goto(`${worker}/widget/${channelKey}`);
    await inbox.locator('.panel.page').waitFor();
    await saveScreenshot(inbox, 'hosted-inbox');
    expect(await axeSeriousViolations(inbox, null)).toEqual([]);
    await context.close();
  });

  it('queued calls work: egw("open") before the loader arrives, then egw("close")', async () => {
    // This page has no CSP because the queue stub is an inline script, as customers paste it.
    pages['/queue.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Queue</title></head><body>
<script>window.egw = window.egw || function () { (egw.q = egw.q || []).push(arguments) }; egw('open');</script>
<script async src="${worker}/embed/widget.js" data-channel-id="${channelKey}"
  data-console-origin="${worker}"></script></body></html>`,
    };
    const page = await browser.newPage();
    await page.goto(`${site.origin}/queue.html`);
    await page.locator('div[data-egw] [role="dialog"]').waitFor();
    await page.evaluate(() => (window as unknown as { egw: (command: string) => void }).egw('close'));
    await expect.poll(() => page.locator('div[data-egw] [role="dialog"]').isVisible()).toBe(false);
    await page.close();
  });

  it('falls back to a readable text colour when the configured pair is hard to read', async () => {
    const channel = await api('/api/integrations/channels', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Yellow',
        domain: 'consultation',
        allowed_origins: [site.origin],
        widget: { colors: { primary: '#ffd500', on_primary: '#ffffff' } },
      }),
    });
    pages['/yellow.html'] = snippetPage(channel.channel_key);
    const page = await browser.newPage();
    await page.goto(`${site.origin}/yellow.html`);
    const button = await launcher(page);
    await expect.poll(() => button.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(0, 0, 0)');
    await button.click();
    const header = page.locator('div[data-egw] .head');
    await header.waitFor();
    expect(await header.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(0, 0, 0)');
    await page.close();
  });

  it('shows the provider entry on the platform’s own pages, in a new tab; not on an owner’s site', async () => {
    const page = await browser.newPage();
    await page.goto(`${worker}/demo`);
    await (await launcher(page)).click();
    const link = page.locator('div[data-egw] a.provider');
    await link.waitFor();
    expect(await link.textContent()).toBe('Become an expert');
    expect(await link.getAttribute('href')).toBe(`${worker}/auth/sign-up?role=provider&ref=ch_demo`);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await page.locator('div[data-egw] input[type="password"]').count()).toBe(0);

    const embed = await browser.newPage();
    await embed.goto(`${site.origin}/plain.html`);
    await (await launcher(embed)).click();
    await embed.locator('div[data-egw] [role="dialog"]').waitFor();
    expect(await embed.locator('div[data-egw] a.provider').count()).toBe(0);
    // An owner's own site (a first-party origin) recruits no experts unless the owner says `on`.
    const own = await api('/api/integrations/channels', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Own site',
        domain: 'consultation',
        allowed_origins: [],
        first_party_origins: [site.origin],
      }),
    });
    pages['/own.html'] = snippetPage(own.channel_key);
    const ownPage = await browser.newPage();
    await ownPage.goto(`${site.origin}/own.html`);
    await (await launcher(ownPage)).click();
    await ownPage.locator('div[data-egw] [role="dialog"]').waitFor();
    expect(await ownPage.locator('div[data-egw] a.provider').count()).toBe(0);
    await page.close();
    await embed.close();
    await ownPage.close();
  });

  it('the hosted inbox of an unknown channel is a real 404 page', async () => {
    const response = await fetch(`${worker}/widget/ch_unknown`);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('This chat is not available');
  });
});
