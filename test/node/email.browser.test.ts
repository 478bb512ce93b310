/**
 * Email against a real local Worker (wrangler dev) and a real SMTP server (the npm smtp-server
 * package, scripts/mail-sink.mjs) that keeps every message as an .eml file: the demo expert's
 * alert within a minute of a lead; the visitor's continuation after an unread reply, fired by the
 * cron route `npm run dev` calls; its `?resume=` link opening the conversation in the hosted inbox
 * (Chromium, 375 px and 1440 px, axe); both emails' HTML rendered as a mail client would; and a
 * reply through wrangler's local email handler reaching the claimer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { DEMO_TEST_PASSWORD } from '../../scripts/local-worker.mjs';
import { browserAvailable, expectAccessible, launchBrowser, screenshotBoth, signInAsDemo } from './browser';
import { advanceWorkerClock } from './worker-clock';

const worker = inject('workerUrl');
const apiKey = inject('demoApiKey');
const mailDir = inject('mailDir');

interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Map<string, unknown>;
  replyTo: string;
  /** The mailboxes of `From:`, as a mail program reads them. */
  from: Array<{ name: string; address: string }>;
  raw: string;
}

const parsed = new Map<string, Mail>();

/** Every email the sink kept so far, parsed. */
async function mails(): Promise<Mail[]> {
  let files: string[] = [];
  try {
    files = readdirSync(mailDir).filter((name) => name.endsWith('.eml'));
  } catch {}
  for (const file of files) {
    if (parsed.has(file)) continue;
    const raw = readFileSync(join(mailDir, file), 'utf8');
    const mail = await simpleParser(raw);
    parsed.set(file, {
      to: mail.to && !Array.isArray(mail.to) ? mail.to.text : '',
      subject: mail.subject ?? '',
      text: mail.text ?? '',
      html: typeof mail.html === 'string' ? mail.html : '',
      headers: mail.headers,
      replyTo: mail.replyTo?.value[0]?.address ?? '',
      from: (mail.from?.value ?? []).map(({ name, address }) => ({ name, address: address ?? '' })),
      raw,
    });
  }
  return [...parsed.values()];
}

/** The first email that matches, within `timeoutMs`. */
async function waitForMail(matches: (mail: Mail) => boolean, timeoutMs = 60_000): Promise<Mail> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = (await mails()).find(matches);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 200)); // A poll's interval.
  }
  throw new Error(`No matching email within ${timeoutMs} ms in ${mailDir}`);
}

async function signIn(email: string): Promise<string> {
  const response = await fetch(`${worker}/auth/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker },
    body: new URLSearchParams({ email, password: DEMO_TEST_PASSWORD }).toString(),
  });
  expect(response.status).toBe(303);
  return response.headers.get('Set-Cookie')!.split(';')[0]!;
}

const asExpert = (cookie: string, path: string, body?: unknown) =>
  fetch(`${worker}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Cookie: cookie, Origin: worker, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const fireMinuteCron = async () => {
  const response = await fetch(`${worker}/__scheduled?cron=*+*+*+*+*`);
  expect(response.status).toBe(200);
};

describe('email through a real SMTP server', () => {
  let browser: Browser | undefined;
  let expertCookie: string;

  beforeAll(async () => {
    expertCookie = await signIn('expert@demo.test');
    if (browserAvailable) browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the demo expert gets an alert within a minute of a lead, with no contact details', async () => {
    // Letters only: a long run of digits would read as a phone number, which alerts leave out.
    const tag = `alert-${Math.random()
      .toString(36)
      .replace(/[^a-z]/g, '')}`;
    const response = await fetch(`${worker}/api/execute`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        domain: 'consultation',
        execution_mode: 'sync',
        required_scopes: ['execute', 'leads:write'],
        text: `We need a CRM for 12 sales people (${tag}). Mail me at buyer@example.com.`,
      }),
    });
    expect(response.status).toBe(200);
    const envelope = (await response.json()) as { output: { result: { lead_id: string } } };
    const started = Date.now();
    const alert = await waitForMail((mail) => mail.to === 'expert@demo.test' && mail.text.includes(tag));
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(alert.subject).toMatch(/^New lead D-[0-9A-Z]{6}: consultation/);
    expect(alert.text).toContain(`${worker}/provider/workbench/leads/`);
    expect(alert.raw).not.toContain('buyer@example.com');
    expect(alert.raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(alert.raw).toMatch(/List-Unsubscribe: <http:\/\/127\.0\.0\.1:\d+\/email\/unsubscribe\/a\.prv_/);
    expect(alert.text).toContain(`/provider/workbench/leads/${envelope.output.result.lead_id}`);

    if (browser) {
      const page = await browser.newPage();
      await page.setContent(alert.html);
      await screenshotBoth(page, 'email-lead-alert');
      await page.close();
    }
  });

  it('an unread reply is emailed, its link opens the conversation, an email reply reaches the claimer', async () => {
    const created = await fetch(`${worker}/api/integrations/channels`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'Northwind help',
        domain: 'consultation',
        allowed_origins: ['https://northwind.example'],
        widget: { brand: { name: 'Northwind Bookkeeping' }, lead_capture: { email: 'required' } },
      }),
    });
    expect(created.status).toBe(201);
    const { channel_key: channelKey } = (await created.json()) as { channel_key: string };
    const visitorEmail = `vera.${Date.now()}@example.org`;
    const intake = (body: Record<string, unknown>) =>
      fetch(`${worker}/api/public/channels/${channelKey}/intake`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: 'https://northwind.example' },
        body: JSON.stringify(body),
      }).then((response) => response.json() as Promise<Record<string, any>>);
    const first = await intake({ message: { text: 'Can you review our payroll setup?' } });
    const done = await intake({
      session_id: first.session_id,
      trigger: 'lead_capture',
      contact: { name: 'Vera', email: visitorEmail },
    });
    const leadId = done.lead_id as string;
    expect((await asExpert(expertCookie, `/api/provider/workbench/leads/${leadId}/claim`, {})).status).toBe(200);
    const replied = await asExpert(expertCookie, `/api/provider/workbench/leads/${leadId}/messages`, {
      text: 'Yes: send me your last payslip run and I will check it today.',
    });
    expect(replied.status).toBe(201);

    // The visitor has left: once the unread wait (2 s for these tests) has passed on the Worker's
    // clock, the minute's cron sends it.
    await advanceWorkerClock(worker, 2_500);
    await fireMinuteCron();
    const mail = await waitForMail((candidate) => candidate.to === visitorEmail);
    expect(mail.subject).toMatch(/^Dana Reyes replied \(D-[0-9A-Z]{6}\)$/);
    expect(mail.from).toEqual([{ name: 'Northwind Bookkeeping', address: 'gateway@mail.test' }]);
    expect(mail.text).toContain('You have a reply from Northwind Bookkeeping');
    expect(mail.text).toContain('send me your last payslip run');
    expect(mail.replyTo).toMatch(/^reply\+[a-z2-7]{52}@reply\.mail\.test$/);
    const resumeUrl = mail.text.match(/http:\/\/127\.0\.0\.1:\d+\/widget\/ch_[0-9a-z]+\?resume=egv_\w+/)![0];

    if (browser) {
      const page = await browser.newPage();
      await page.setContent(mail.html);
      await screenshotBoth(page, 'email-visitor-continuation');
      await page.close();

      // The link opens the hosted inbox on this conversation, and the key leaves the address bar.
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const inbox = await context.newPage();
      await inbox.goto(resumeUrl);
      await inbox.getByText('send me your last payslip run').waitFor({ timeout: 15_000 });
      expect(inbox.url()).toBe(`${worker}/widget/${channelKey}`);
      await expectAccessible(inbox, 'hosted inbox resumed from an email');
      await screenshotBoth(inbox, 'hosted-inbox-resumed');
      await context.close();
    }

    // The visitor answers by email: wrangler's local Email Routing handler hands it to the Worker.
    const raw = [
      `From: Vera <${visitorEmail}>`,
      `To: ${mail.replyTo}`,
      'Subject: Re: your reply',
      `Message-ID: <${Date.now()}@example.org>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Attached is nothing, but the run was on the 25th.',
      '',
      'On Tue, 24 Nov 2026, Test Expert wrote:',
      '> Yes: send me your last payslip run',
      '',
    ].join('\r\n');
    const addresses = new URLSearchParams({ from: visitorEmail, to: mail.replyTo });
    const handler = `${worker}/cdn-cgi/handler/email?${addresses}`;
    const delivered = await fetch(handler, { method: 'POST', body: raw });
    expect(delivered.status, await delivered.clone().text()).toBe(200);
    const detail = (await (await asExpert(expertCookie, `/api/provider/workbench/leads/${leadId}`)).json()) as {
      messages: Array<{ role: string; text: string }>;
    };
    expect(detail.messages.at(-1)).toMatchObject({
      role: 'visitor',
      text: 'Attached is nothing, but the run was on the 25th.',
    });
  });

  it.skipIf(!browserAvailable)(
    'the owner reads the email log; the expert sets alert preferences on the workbench',
    async () => {
      const context = await browser!.newContext({ viewport: { width: 1440, height: 900 } });
      const owner = await context.newPage();
      await signInAsDemo(owner, worker, 'owner@demo.test');
      await owner.goto(`${worker}/integrations/email`);
      await owner.getByRole('heading', { name: 'Email log' }).waitFor();
      expect(await owner.content()).not.toContain('expert@demo.test');
      await expectAccessible(owner, 'email log');
      await screenshotBoth(owner, 'console-email-log');
      await context.close();

      const expertContext = await browser!.newContext({ viewport: { width: 1440, height: 900 } });
      const expert = await expertContext.newPage();
      await signInAsDemo(expert, worker, 'expert@demo.test');
      await expert.goto(`${worker}/provider/workbench#preferences`);
      await expert.getByLabel('Lead alerts by email').selectOption('hourly');
      await expert.getByRole('button', { name: 'Save preferences' }).click();
      await expert.getByText('Preferences saved.').waitFor();
      expect(await expert.getByLabel('Lead alerts by email').inputValue()).toBe('hourly');
      await expectAccessible(expert, 'workbench preferences', '#preferences');
      await screenshotBoth(expert, 'workbench-preferences');
      // Back to instant, for the other tests of this Worker.
      await expert.getByLabel('Lead alerts by email').selectOption('instant');
      await expert.getByRole('button', { name: 'Save preferences' }).click();
      await expert.getByText('Preferences saved.').waitFor();
      await expertContext.close();
    },
  );
});
