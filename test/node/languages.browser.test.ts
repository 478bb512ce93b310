/**
 * The widget in the visitor's language (docs/design/languages.md), in Chromium on a customer's page:
 * German set by the channel, Polish plural forms, Arabic right to left (looked at 375 and 1440 px),
 * `auto` following the browser's language, and the owner's own copy winning; axe clean in each.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  axeSeriousViolations,
  browserAvailable,
  expectAccessible,
  launchBrowser,
  screenshotBoth,
  saveScreenshot,
  serveSite,
  signInAsDemo,
  type Site,
} from './browser';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');

async function createChannel(origin: string, extra: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${worker}/api/integrations/channels`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Language site', domain: 'consultation', allowed_origins: [origin], ...extra }),
  });
  if (response.status !== 201) throw new Error(`channel: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { channel_key: string }).channel_key;
}

const snippet = (channelKey: string) => ({
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Customer site</title>
<link rel="icon" href="data:,"></head><body><main><h1>Kanzlei am Markt</h1><p>Steuern, Löhne, Verträge.</p></main>
<script async src="${worker}/embed/widget.js" data-channel-id="${channelKey}" data-console-origin="${worker}"></script>
</body></html>`,
});

const inWidget = (page: Page, selector: string) => page.locator(`div[data-egw] ${selector}`);

async function openWidget(page: Page, url: string) {
  await page.goto(url);
  const launcher = inWidget(page, 'button.l');
  await launcher.waitFor();
  // The launcher's label arrives with the configuration, in the visitor's language.
  await expect.poll(() => launcher.getAttribute('aria-label')).not.toBe('Open chat');
  await launcher.click();
  await inWidget(page, '.panel').waitFor();
}

describe.skipIf(!browserAvailable)('the widget in the visitor’s language, in Chromium', () => {
  let browser: Browser;
  let site: Site;
  const pages: Record<string, { body: string }> = {};
  const keys: Record<string, string> = {};
  const contexts: BrowserContext[] = [];
  const newPage = async (options: Parameters<Browser['newContext']>[0] = {}) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', ...options });
    contexts.push(context);
    return context.newPage();
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    site = await serveSite(pages);
    keys.de = await createChannel(site.origin, { language: 'de', widget: { brand: { name: 'Kanzlei am Markt' } } });
    keys.pl = await createChannel(site.origin, { language: 'pl', widget: { brand: { name: 'Biuro Rachunkowe' } } });
    keys.ar = await createChannel(site.origin, { language: 'ar', widget: { brand: { name: 'مكتب المحاسبة' } } });
    keys.auto = await createChannel(site.origin, { widget: { brand: { name: 'Asesoría' } } });
    keys.owner = await createChannel(site.origin, {
      widget: {
        brand: { name: 'Kanzlei am Markt' },
        copy: { placeholder: 'Frag uns einfach…' },
        copy_language: 'de',
        copy_by_language: { de: { greeting: 'Moin! Womit können wir Ihnen helfen?' } },
      },
    });
    for (const [name, key] of Object.entries(keys)) pages[`/${name}.html`] = snippet(key);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await site?.close();
  });

  it('German, set by the channel: the panel, the validation, the core’s reply', async () => {
    const page = await newPage();
    await openWidget(page, `${site.origin}/de.html`);
    const panel = inWidget(page, '.panel');
    expect(await panel.getAttribute('lang')).toBe('de');
    expect(await inWidget(page, 'button.close').getAttribute('aria-label')).toBe('Chat schließen');
    expect(await inWidget(page, '.actions').innerText()).toContain('Mit einem Experten sprechen');
    await inWidget(page, 'textarea').fill('Wir brauchen Hilfe bei der Lohnabrechnung.');
    await page.keyboard.press('Enter');
    await inWidget(page, '.bubble.assistant').filter({ hasText: 'Danke, Ihre Anfrage' }).waitFor();
    await inWidget(page, 'form.card').waitFor();
    expect(await inWidget(page, 'form.card').innerText()).toContain('Hinterlassen Sie Ihre Kontaktdaten');
    await inWidget(page, 'form.card button[type="submit"]').click();
    await inWidget(page, '.field-error').filter({ hasText: 'Bitte geben Sie Ihre E-Mail-Adresse ein.' }).waitFor();
    await saveScreenshot(page, 'widget-de-1440');
    expect(await axeSeriousViolations(page, 'div[data-egw]')).toEqual([]);
  });

  it('a request’s reference never breaks at its hyphen, in Polish at 375 px', async () => {
    const page = await newPage({ viewport: { width: 375, height: 740 } });
    const reference = 'D-1D2Z3K';
    const text =
      `Przekazaliśmy Twoje zgłoszenie ekspertowi; numer referencyjny Twojego zgłoszenia to ${reference}, ` +
      `zachowaj go na później (${reference}).`;
    await page.addInitScript(([key, stored]) => localStorage.setItem(`egw:${key}:thread`, stored), [
      keys.pl!,
      JSON.stringify([{ id: 'msg_0000000000000000000000009', role: 'system', text }]),
    ] as const);
    await openWidget(page, `${site.origin}/pl.html`);
    const references = page.locator('div[data-egw] .bubble .ref');
    await expect.poll(() => references.count()).toBe(2);
    // Each reference is one box on one line: a break at its hyphen would make two.
    for (const lines of await references.evaluateAll((nodes) => nodes.map((node) => node.getClientRects().length)))
      expect(lines).toBe(1);
    await saveScreenshot(page, 'widget-pl-reference-375');
  });

  it('Polish plural forms: 1 nowa, 2 nowe, 5 nowych odpowiedzi since the visitor last looked', async () => {
    const thread = (replies: number) => [
      { id: 'msg_0000000000000000000000001', role: 'visitor', text: 'Dzień dobry' },
      ...Array.from({ length: replies }, (_, index) => ({
        id: `msg_00000000000000000000000${index + 2}`,
        role: 'provider',
        text: `Odpowiedź ${index + 1}`,
        author: 'Anna',
      })),
    ];
    for (const [replies, expected] of [
      [1, '1 nowa odpowiedź'],
      [2, '2 nowe odpowiedzi'],
      [5, '5 nowych odpowiedzi'],
    ] as const) {
      const page = await newPage();
      // What a returning visitor's browser holds: the thread, and the last message they saw.
      await page.addInitScript(
        ([key, stored]) => {
          localStorage.setItem(`egw:${key}:thread`, stored);
          localStorage.setItem(`egw:${key}:seen`, 'msg_0000000000000000000000001');
        },
        [keys.pl!, JSON.stringify(thread(replies))] as const,
      );
      await openWidget(page, `${site.origin}/pl.html`);
      await expect.poll(() => inWidget(page, '.note.unread').innerText()).toBe(expected);
      if (replies === 5) {
        expect(await inWidget(page, '.bubble.assistant .by').first().innerText()).toBe('Anna · Ekspert');
        await saveScreenshot(page, 'widget-pl-plural-1440');
        expect(await axeSeriousViolations(page, 'div[data-egw]')).toEqual([]);
      }
    }
  });

  it('Arabic lays the panel and the hosted inbox out right to left', async () => {
    for (const width of [375, 1440]) {
      const page = await newPage({ viewport: { width, height: width === 375 ? 740 : 900 } });
      await openWidget(page, `${site.origin}/ar.html`);
      const panel = inWidget(page, '.panel');
      expect(await panel.getAttribute('dir')).toBe('rtl');
      expect(await panel.evaluate((element) => getComputedStyle(element).direction)).toBe('rtl');
      await inWidget(page, 'textarea').fill('أحتاج إلى مساعدة في الضرائب.');
      await page.keyboard.press('Enter');
      const reply = inWidget(page, '.bubble.assistant').filter({ hasText: 'شكرًا، تم تسجيل طلبك' });
      await reply.waitFor();
      // Right to left: the visitor's bubble sits on the left, the answers on the right.
      const visitorBox = (await inWidget(page, '.bubble.visitor').first().boundingBox())!;
      const replyBox = (await reply.boundingBox())!;
      expect(visitorBox.x).toBeLessThan(replyBox.x);
      // The send arrow points the way the text runs.
      expect(await inWidget(page, '.send svg').evaluate((element) => getComputedStyle(element).transform)).toBe(
        'matrix(-1, 0, 0, 1, 0, 0)',
      );
      await saveScreenshot(page, `widget-ar-${width}`);
      expect(await axeSeriousViolations(page, 'div[data-egw]')).toEqual([]);
    }
    const inbox = await newPage();
    await inbox.goto(`${worker}/widget/${keys.ar}`);
    await inbox.locator('.panel.page').waitFor();
    expect(await inbox.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([
      'ar',
      'rtl',
    ]);
    expect(await inbox.locator('.panel textarea').getAttribute('placeholder')).toBe('اكتب رسالتك…');
    await saveScreenshot(inbox, 'hosted-inbox-ar-1440');
    expect(await axeSeriousViolations(inbox, null)).toEqual([]);
  });

  it('auto follows the browser’s language (Spanish here), and the reply speaks it too', async () => {
    const page = await newPage({ locale: 'es-ES' });
    await openWidget(page, `${site.origin}/auto.html`);
    expect(await inWidget(page, '.panel').getAttribute('lang')).toBe('es');
    expect(await inWidget(page, '.bubble.assistant').first().innerText()).toBe(
      '¡Hola! Cuéntanos qué necesitas y un experto te ayudará.',
    );
    await inWidget(page, 'textarea').fill('Necesito ayuda con mi declaración.');
    await page.keyboard.press('Enter');
    await inWidget(page, '.bubble.assistant').filter({ hasText: 'Gracias, tu solicitud' }).waitFor();
    expect(await axeSeriousViolations(page, 'div[data-egw]')).toEqual([]);
  });

  it('the owner’s own copy wins over the catalog, per language first', async () => {
    const page = await newPage({ locale: 'de-DE' });
    await openWidget(page, `${site.origin}/owner.html`);
    // Given for German: shown in German.
    expect(await inWidget(page, '.bubble.assistant').first().innerText()).toBe('Moin! Womit können wir Ihnen helfen?');
    // Changed in the base copy, written in German: the owner's words.
    expect(await inWidget(page, 'textarea').getAttribute('placeholder')).toBe('Frag uns einfach…');
    // Untouched: the catalog's German.
    expect(await inWidget(page, 'h2').innerText()).toBe('Chat mit Kanzlei am Markt');
    await saveScreenshot(page, 'widget-owner-copy-1440');
    expect(await axeSeriousViolations(page, 'div[data-egw]')).toEqual([]);
  });

  it('the owner sets the channel’s language in the console, and sees that every catalog is complete', async () => {
    const key = await createChannel(site.origin, {});
    const owner = await newPage();
    await signInAsDemo(owner, worker, 'owner@demo.test');
    await owner.goto(`${worker}/integrations/channels/${key}`);
    const choice = owner.getByLabel('Language of the widget, replies and emails');
    expect(await choice.inputValue()).toBe('auto');
    expect(await owner.locator('#language-status').innerText()).toContain('All 10 languages are complete.');
    await choice.selectOption('pl');
    await owner.getByRole('button', { name: 'Save settings' }).click();
    await owner.getByText('Saved.').waitFor();
    expect(await owner.getByLabel('Language of the widget, replies and emails').inputValue()).toBe('pl');
    const config = await fetch(`${worker}/api/public/widget/${key}/config`, { headers: { 'Accept-Language': 'de' } });
    expect(((await config.json()) as { language: string }).language).toBe('pl');
    await owner.goto(`${worker}/integrations/channels/${key}#settings-title`);
    await expectAccessible(owner, 'channel language setting');
    await screenshotBoth(owner, 'console-channel-language');
    await owner.setViewportSize({ width: 375, height: 812 });
    await owner.locator('#language-status').scrollIntoViewIfNeeded();
    await saveScreenshot(owner, 'console-channel-language-field-375');

    // The copy in Arabic: written right to left, saved, and what an Arabic visitor reads.
    await owner.setViewportSize({ width: 1440, height: 900 });
    await owner.goto(`${worker}/integrations/channels/${key}?copy=ar#copy-languages-title`);
    const greeting = owner.locator('#f-copy-ar-greeting');
    expect(await greeting.getAttribute('placeholder')).toBe('مرحبًا! أخبرنا بما تحتاج وسيساعدك خبير.');
    await greeting.fill('أهلًا بك في مكتبنا!');
    await owner.getByRole('button', { name: /^Save the copy in/ }).click();
    await owner.getByText('Saved.').waitFor();
    const arabic = await fetch(`${worker}/api/public/widget/${key}/config?lang=ar`);
    expect(((await arabic.json()) as { copy: { greeting: string } }).copy.greeting).toBe('أهلًا بك في مكتبنا!');
    await expectAccessible(owner, 'channel copy per language');
    await owner.setViewportSize({ width: 375, height: 812 });
    await owner.locator('#copy-languages-title').scrollIntoViewIfNeeded();
    await saveScreenshot(owner, 'console-copy-ar-375');
    await owner.setViewportSize({ width: 1440, height: 900 });
    await owner.locator('#copy-languages-title').scrollIntoViewIfNeeded();
    await saveScreenshot(owner, 'console-copy-ar-1440');
  });
});
