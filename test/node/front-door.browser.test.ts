/**
 * The front page `/` as a newcomer sees it (issue 22): at 375 px and 1440 px, with the platform's
 * own widget (FRONT_DOOR_CHANNEL is the demo channel here), axe-clean, and its entries leading
 * where they say.
 */
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth, signInAsDemo } from './browser';

const worker = inject('workerUrl');

describe.skipIf(!browserAvailable)('the front page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the four ways in, the consultation entry with its widget, and the provider sign-up', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${worker}/`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    for (const heading of ['Site owners', 'Visitors', 'API callers', 'Experts, robots and agents'])
      await page.getByRole('heading', { name: heading }).waitFor();
    // The platform's own widget draws its launcher (the loader's host element carries data-egw).
    await page.locator('div[data-egw]').waitFor({ state: 'attached', timeout: 15_000 });
    await page.locator('div[data-egw] button.l').waitFor({ state: 'visible' });
    await page.waitForLoadState('networkidle'); // The channel's look has arrived.
    await expectAccessible(page, 'front page', 'main');
    await screenshotBoth(page, 'front-page');
    await page.getByRole('link', { name: 'Become an expert, connect a robot, register an agent' }).click();
    await page.waitForURL(/\/auth\/sign-up\?role=provider/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBeTruthy();
    await page.close();
  });
});

describe.skipIf(!browserAvailable)('the front door answers from its own docs', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
    // Help written in German, as an owner adds it: the German visitor's answer comes from it.
    const added = await fetch(`${worker}/api/knowledge/sources`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${inject('demoApiKey')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        kind: 'document',
        title: 'Hilfe',
        url: 'https://hilfe.example.com/konto',
        content_type: 'text/markdown',
        language: 'de',
        content:
          '# Hilfe\n\n## Rechnungen\n\nIhre Rechnungen erhalten Sie jeden Monat als PDF per E-Mail. ' +
          'Sie finden sie auch in der Konsole unter Nutzung.\n',
      }),
    });
    expect(added.status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the front page's widget in a browser language, asks, and answers the answer's bubble. */
  async function ask(locale: string, question: string) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale });
    await page.goto(`${worker}/`);
    await page.locator('div[data-egw] button.l').click();
    await page.locator('div[data-egw] textarea').fill(question);
    await page.keyboard.press('Enter');
    const answer = page.locator('div[data-egw] .bubble.assistant', { has: page.locator('.sources') });
    await answer.waitFor({ timeout: 15_000 });
    return { page, answer };
  }

  it('a newcomer asking how to verify a webhook gets the docs’ answer, its link and a person on offer', async () => {
    const { page, answer } = await ask('en-US', 'How do I verify a webhook?');
    expect(await answer.locator('.by').innerText()).toMatch(/^Answer from .+’s help$/);
    expect(await answer.locator('.text').innerText()).toMatch(/^From “Webhooks”: .*signature/);
    expect(await answer.locator('.sources a').first().getAttribute('href')).toBe(`${worker}/docs/webhooks#verify`);
    await answer.locator('button.person', { hasText: 'Talk to a person' }).waitFor();
    await expectAccessible(page, 'front page widget with a knowledge answer', 'div[data-egw]');
    await screenshotBoth(page, 'front-page-knowledge-answer');
    // "Talk to a person" hands the conversation to the experts.
    await answer.locator('button.person').click();
    await page.locator('div[data-egw] .bubble.visitor').nth(1).waitFor();
    await page.close();
  });

  /** Asks in an open panel (the widget's, or the hosted inbox page) and answers its reply's bubble. */
  async function askIn(panel: Locator, question: string) {
    const replies = panel.locator('.bubble.assistant:not(.thinking)');
    const before = await replies.count();
    await panel.locator('textarea').fill(question);
    await panel.locator('textarea').press('Enter');
    await expect.poll(() => replies.count(), { timeout: 15_000 }).toBeGreaterThan(before);
    await panel.locator('.bubble.thinking').waitFor({ state: 'detached' });
    return replies.nth(before);
  }

  /** The panel's last `count` replies each look like a knowledge answer: label, sources, a person on offer. */
  async function expectKnowledgeAnswers(panel: Locator, count: number) {
    const replies = panel.locator('.bubble.assistant:not(.thinking)');
    const total = await replies.count();
    for (let index = total - count; index < total; index++) {
      const answer = replies.nth(index);
      expect(await answer.locator('.by').innerText({ timeout: 5_000 })).toMatch(/^Answer from .+’s help$/);
      expect(await answer.locator('.sources a').first().getAttribute('href')).toMatch(new RegExp(`^${worker}/docs/`));
      await answer.locator('button.person').waitFor();
    }
  }

  it('three answers in one session each say where they come from, in the widget and on the hosted inbox', async () => {
    const questions = [
      'How do I verify a webhook signature?',
      'Can webhook events arrive out of order?',
      'Which origins does CORS allow on public routes?',
    ];
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${worker}/`);
    await page.locator('div[data-egw] button.l').click();
    const widget = page.locator('div[data-egw]');
    for (const question of questions) await askIn(widget, question);
    await expectKnowledgeAnswers(widget, 3);
    // And after a reload, read back from the thread.
    await page.reload();
    await page.locator('div[data-egw] button.l').click();
    await expectKnowledgeAnswers(page.locator('div[data-egw]'), 3);
    await page.close();

    const inbox = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await inbox.goto(`${worker}/widget/ch_demo`);
    const panel = inbox.locator('body');
    const more = [
      'What happens when the escrow lacks the funds for an overage?',
      'How do I make several executions one conversation?',
      'What happens if the widget configuration cannot load?',
    ];
    for (const question of more) await askIn(panel, question);
    await expectKnowledgeAnswers(panel, 3);
    // A person, then a question the knowledge declines: the visitor still reads a reply.
    const replies = panel.locator('.bubble.assistant:not(.thinking)');
    const before = await replies.count();
    await replies.last().locator('button.person').click();
    await expect.poll(() => replies.count(), { timeout: 15_000 }).toBeGreaterThan(before);
    const declined = await askIn(panel, 'Is there bicycle parking at the Porto office?');
    await expect.poll(() => declined.innerText()).toMatch(/An expert has your question and will answer here\./);
    await screenshotBoth(inbox, 'hosted-inbox-knowledge-session');
    await inbox.close();
  });

  it('a German visitor reads the answer, its sources and the way to a person in German', async () => {
    const { page, answer } = await ask('de-DE', 'Wie erhalte ich meine Rechnungen?');
    expect(await answer.locator('.by').innerText()).toMatch(/^Antwort aus der Hilfe von /);
    expect(await answer.locator('.text').innerText()).toMatch(/^Aus „Hilfe“: .*PDF/);
    expect(await answer.locator('.sources a').getAttribute('href')).toBe('https://hilfe.example.com/konto#rechnungen');
    await answer.locator('button.person', { hasText: 'Mit einem Menschen sprechen' }).waitFor();
    await screenshotBoth(page, 'front-page-knowledge-answer-de');
    await page.close();
  });

  it('the owner answers a question the knowledge declined in one step, adds a source, and tries both', async () => {
    const question = 'Is there bicycle parking at the Lisbon office?';
    // A visitor asks it on the hosted inbox: the knowledge declines, and the question is a gap.
    const visitor = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await visitor.goto(`${worker}/widget/ch_demo`);
    await visitor.locator('textarea').fill(question);
    await visitor.keyboard.press('Enter');
    const headers = { Authorization: `Bearer ${inject('demoApiKey')}` };
    await expect
      .poll(async () => {
        const gaps = await (await fetch(`${worker}/api/knowledge/gaps`, { headers })).json();
        return gaps.data.some((gap: { question: string }) => gap.question === question);
      })
      .toBe(true);
    await visitor.close();

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signInAsDemo(page, worker, 'owner@demo.test');
    await page.goto(`${worker}/integrations/knowledge?ws=ws_demo`);
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
    // The docs are its sources, indexed.
    expect(await page.locator('#sources-title + * tbody tr, #sources-title ~ * tbody tr').count()).toBeGreaterThan(5);
    const gap = page.locator('.gaps > li', { hasText: question });
    await gap.getByLabel('Your answer').fill('Yes: bicycle racks by the entrance, free for visitors.');
    await gap.getByRole('button', { name: 'Add as a question and answer' }).click();
    await page.waitForURL(/notice=/);
    await page.getByLabel('Question', { exact: true }).fill(question);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.locator('.tried', { hasText: 'bicycle racks by the entrance' }).waitFor();
    // A source of the owner's own, from the form: listed, indexed, and answering.
    await page.getByLabel('Question or title').fill('Do you validate tram tickets at the Lisbon office?');
    await page.getByLabel('Answer or text').fill('Yes: the front desk validates tram tickets for visitors.');
    await page.getByRole('button', { name: 'Add source' }).click();
    await page.waitForURL(/notice=source_added/);
    await page.getByRole('rowheader', { name: 'Do you validate tram tickets at the Lisbon office?' }).waitFor();
    await page.getByLabel('Question', { exact: true }).fill('Are tram tickets validated at the Lisbon office?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.locator('.tried', { hasText: 'the front desk validates tram tickets' }).waitFor();
    await expectAccessible(page, 'knowledge page', 'main');
    await screenshotBoth(page, 'console-knowledge');
    await page.close();
  });
});
