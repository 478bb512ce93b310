/**
 * Email as it goes when all is well (docs/design/email.md): lead alerts in the lead's batch, sent
 * over real SMTP to a local sink (test/worker/mail-sink.global.mjs); the 30-an-hour cap and the
 * hourly digest; away and off; the visitor's continuation after 2 unread minutes, at most one per
 * 10 minutes, in the conversation's language; replies by email; preferences and the email log.
 * Faults are in email.error.cases.ts, what no input can bend in email.security.cases.ts.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { newId } from '../../worker/lib/ids';
import { sweepEmails } from '../../worker/platform/email';
import { newDomain } from './agent-helpers';
import { mailTo, until } from './mail-helpers';
import { getPage, signUpOwner } from './console-helpers';
import { call, createTenant, execute, executeBody, expectProblem, issueKey, json, workerDb } from './helpers';
import { createActiveExpert, createChannel, SITE, sessionCall, visitorSays } from './provider-helpers';
import { workerFetch } from './self';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { CONVERSATION_KEY_TTL_MS } from '../../worker/platform/conversations/keys';
import {
  rows,
  emailsOfLead,
  setPreferences,
  VISITOR,
  channelWithExpert,
  claimedLeadWithContact,
  reply,
  continuations,
  twoMinutesLater,
  deliverInbound,
  replyEmail,
} from './email-fixtures';
import { platformDb, type ViewStatement } from './platform-db';

describe('lead alerts', () => {
  it('are written in the lead’s batch, to available experts who want them, and sent within seconds', async () => {
    const log = vi.spyOn(console, 'log');
    const context = await channelWithExpert();
    const hourly = await createActiveExpert({ domains: [context.domain], alerts: true });
    const away = await createActiveExpert({ domains: [context.domain], alerts: true });
    const off = await createActiveExpert({ domains: [context.domain], alerts: true });
    expect((await setPreferences(hourly, { lead_alerts: 'hourly' })).status).toBe(200);
    expect((await setPreferences(away, { availability: 'away' })).status).toBe(200);
    expect((await setPreferences(off, { lead_alerts: 'off' })).status).toBe(200);

    const first = await visitorSays(context.channelKey, {
      message: { text: 'Call me at +44 20 7946 0958 or write to typed.address@example.net: our payroll is late.' },
    });
    const done = await visitorSays(context.channelKey, {
      session_id: first.session_id,
      trigger: 'lead_capture',
      contact: VISITOR,
    });
    const leadId = done.lead_id as string;
    const alerts = await emailsOfLead(leadId);
    const byProvider = Object.fromEntries(alerts.map((row) => [row.provider_id, row.status]));
    expect(byProvider[hourly.providerId]).toBe('held');
    expect(byProvider[away.providerId]).toBeUndefined();
    expect(byProvider[off.providerId]).toBeUndefined();
    expect(alerts).toHaveLength(2);

    const mail = await mailTo(context.expert.email, /^New lead D-/);
    expect(mail.subject).toContain(context.domain);
    expect(mail.text).toContain('our payroll is late');
    expect(mail.text).toContain(`/provider/workbench/leads/${leadId}`);
    expect(mail.html).toContain(`/provider/workbench/leads/${leadId}`);
    expect(mail.headers['list-unsubscribe']).toMatch(/^<http:\/\/gateway\.test\/email\/unsubscribe\/a\.prv_/);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(mail.headers['message-id']).toMatch(/^<eml_[0-9a-z]{26}@mail\.test>$/);
    // Never contact details: not in the alert (even the ones typed into the message), nor any event or log line.
    // The contact form's details are in no alert, event or log line; what the visitor typed into the
    // message is in the conversation's own events, but not in what experts read before claiming.
    const events = await rows('SELECT type, data FROM events WHERE workspace_id = ?', context.tenant.workspaceId);
    const logged = log.mock.calls.map((call) => call.join(' ')).join('\n');
    for (const text of [mail.raw, JSON.stringify(events), logged]) {
      expect(text).not.toContain(VISITOR.email);
      expect(text).not.toContain('555 0134');
      expect(text).not.toContain(VISITOR.name);
    }
    const created = events.find((event) => event.type === 'lead.created')!;
    for (const text of [mail.raw, created.data]) {
      expect(text).not.toContain('typed.address@example.net');
      expect(text).not.toContain('7946 0958');
    }
    expect(mail.text).toContain('[email removed]');
    await until(async () => (await emailsOfLead(leadId)).some((row) => row.status === 'sent'));
  });

  it('a refused batch writes no alert: the rows exist only with their lead', async () => {
    const domain = await newDomain('mail');
    const tenant = await createTenant({ scopes: ['execute', 'leads:write'], rate_limit_per_minute: 1 });
    await createActiveExpert({ domains: [domain], alerts: true });
    const body = executeBody({ domain, text: 'Please call me back about a contract.' });
    expect((await execute(tenant.token, body)).status).toBe(200);
    const before = await rows('SELECT COUNT(*) AS n FROM emails WHERE workspace_id = ?', tenant.workspaceId);
    expect(before[0]!.n).toBe(1);
    await expectProblem(await execute(tenant.token, body), 429, 'rate_limited');
    const after = await rows('SELECT COUNT(*) AS n FROM emails WHERE workspace_id = ?', tenant.workspaceId);
    expect(after[0]!.n).toBe(1);
  });

  it('past 30 instant alerts in an hour the rest wait; the hourly digest gathers what is still open', async () => {
    const context = await channelWithExpert();
    const db = workerDb();
    // 30 alerts already went to this expert in the last hour.
    const now = clock.now();
    const statements = Array.from({ length: 30 }, () =>
      platformDb
        .prepare(
          `INSERT INTO emails (id, workspace_id, kind, status, provider_id, subject, link_origin, next_attempt_at,
          created_at, updated_at) VALUES (?, ?, 'lead_alert', 'sent', ?, 'earlier', 'http://gateway.test', ?, ?, ?)`,
        )
        .bind(newId('eml', now), context.tenant.workspaceId, context.expert.providerId, now, now - 60_000, now),
    );
    await platformDb.batch(statements);
    const other = await createActiveExpert({ domains: [context.domain], alerts: true });
    const one = await visitorSays(context.channelKey, {
      message: { text: 'First question about VAT.' },
      trigger: 'handoff',
    });
    const two = await visitorSays(context.channelKey, { message: { text: 'Second: invoices.' }, trigger: 'handoff' });
    const mine = async () =>
      [...(await emailsOfLead(one.lead_id)), ...(await emailsOfLead(two.lead_id))].filter(
        (row) => row.provider_id === context.expert.providerId,
      );
    expect((await mine()).map((row) => row.status)).toEqual(['held', 'held']);
    // The second lead is claimed meanwhile (by someone else): the digest shows only the open one.
    await sessionCall(other.cookie, `/api/provider/workbench/leads/${two.lead_id}/claim`, { method: 'POST' });

    // Not before the hour is up; then one digest for both, sent, each alert pointing at it.
    expect(await sweepEmails(db, env.EVENTS, clock.now())).toBe(0);
    moveClockForTests(3_600_000);
    await Promise.all([sweepEmails(db, env.EVENTS, clock.now()), sweepEmails(db, env.EVENTS, clock.now())]);
    const digests = await rows(
      'SELECT * FROM emails WHERE provider_id = ? AND kind = ?',
      context.expert.providerId,
      'lead_digest',
    );
    expect(digests).toHaveLength(1);
    const mail = await mailTo(context.expert.email, /waiting for you/);
    expect(mail.subject).toBe('1 open lead waiting for you');
    expect(mail.text).toContain('First question about VAT.');
    expect(mail.text).not.toContain('Second: invoices.');
    expect((await mine()).map((row) => [row.status, row.digest_id])).toEqual([
      ['skipped', digests[0]!.id],
      ['skipped', digests[0]!.id],
    ]);
  });
});

describe('a large digest', () => {
  it('lists 50 of 150 held alerts and counts the rest: it goes out, and each alert follows its status', async () => {
    const context = await channelWithExpert();
    const db = workerDb();
    const long = clock.now() - 2 * 3_600_000;
    const statements: ViewStatement[] = [];
    for (let index = 0; index < 150; index++) {
      const demandId = newId('dem', long);
      const leadId = newId('lead', long);
      statements.push(
        platformDb
          .prepare(`INSERT INTO demands (id, workspace_id, domain, text, created_at) VALUES (?, ?, ?, ?, ?)`)
          .bind(demandId, context.tenant.workspaceId, context.domain, `Held question ${index}.`, long),
        platformDb
          .prepare(
            `INSERT INTO leads (id, workspace_id, demand_id, status, trigger, domain, created_at, updated_at)
            VALUES (?, ?, ?, 'open', 'consultation', ?, ?, ?)`,
          )
          .bind(leadId, context.tenant.workspaceId, demandId, context.domain, long, long),
        platformDb
          .prepare(
            `INSERT INTO emails (id, workspace_id, kind, status, provider_id, lead_id, subject, link_origin,
            next_attempt_at, created_at, updated_at)
            VALUES (?, ?, 'lead_alert', 'held', ?, ?, 'New lead', 'http://gateway.test', ?, ?, ?)`,
          )
          .bind(newId('eml', long), context.tenant.workspaceId, context.expert.providerId, leadId, long, long, long),
      );
    }
    await platformDb.batch(statements);
    await sweepEmails(db, env.EVENTS, clock.now());
    const mail = await mailTo(context.expert.email, /waiting for you/);
    expect(mail.subject).toBe('150 open leads waiting for you');
    expect(mail.text.match(/Held question \d+\./g)).toHaveLength(50);
    expect(mail.text).toContain('And 100 more in the workbench.');
    const [digest] = await rows(
      'SELECT * FROM emails WHERE provider_id = ? AND kind = ?',
      context.expert.providerId,
      'lead_digest',
    );
    await until(async () => (await rows('SELECT status FROM emails WHERE id = ?', digest!.id))[0]?.status === 'sent');
    const alerts = await rows(
      "SELECT DISTINCT status, last_error FROM emails WHERE provider_id = ? AND kind = 'lead_alert'",
      context.expert.providerId,
    );
    expect(alerts).toEqual([{ status: 'skipped', last_error: 'Gathered into the hourly digest.' }]);
  });
});

describe('the visitor’s continuation', () => {
  it('none when the visitor read the reply live; else one after 2 minutes, then at most one per 10', async () => {
    const context = await channelWithExpert();
    const read = await claimedLeadWithContact(context);
    const first = await json(await reply(context.expert, read.leadId, 'Seen live?'));
    expect((await continuations(read.conversationId)).map((row) => row.status)).toEqual(['held']);
    // The visitor reads it live: their socket's read mark reaches D1.
    const ticket = await json(
      await call(`/api/public/channels/${context.channelKey}/live-ticket`, {
        method: 'POST',
        headers: { Origin: SITE, Authorization: `Bearer ${read.session}` },
      }),
    );
    const upgrade = await workerFetch(ticket.url.replace(/^ws/, 'http'), { headers: { Upgrade: 'websocket' } });
    const socket = upgrade.webSocket!;
    socket.accept();
    // A read mark counts once the socket has resumed: wait for that, not for a while.
    let resumed = false;
    socket.addEventListener('message', (event) => {
      if (JSON.parse(String(event.data)).type === 'resumed') resumed = true;
    });
    socket.send(JSON.stringify({ type: 'resume', after: null }));
    await until(() => resumed);
    socket.send(JSON.stringify({ type: 'read', up_to: first.message_id }));
    await until(
      async () =>
        (await rows('SELECT visitor_read_up_to AS up FROM conversations WHERE id = ?', read.conversationId))[0]!.up ===
        first.message_id,
    );
    socket.close(1000, 'done');
    await twoMinutesLater();
    expect(await continuations(read.conversationId)).toMatchObject([
      { status: 'skipped', last_error: 'The visitor read the replies in time.' },
    ]);

    // Another visitor who left: the replies go by email after 2 minutes.
    const gone = await claimedLeadWithContact(context);
    await reply(context.expert, gone.leadId, 'Here is the answer you asked for.');
    await reply(context.expert, gone.leadId, 'And one more detail.');
    expect(await continuations(gone.conversationId)).toHaveLength(1);
    await sweepEmails(workerDb(), env.EVENTS, clock.now());
    expect((await continuations(gone.conversationId))[0]!.status).toBe('held');
    await twoMinutesLater();
    const mail = await mailTo(gone.email, /Test Expert replied/);
    expect(mail.text).toContain('Here is the answer you asked for.');
    expect(mail.text).toContain('And one more detail.');
    expect(mail.headers['reply-to']).toMatch(/^<reply\+[a-z2-7]{52}@reply\.mail\.test>$/);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const resume = mail.text.match(/\?resume=(egv_[1-9A-HJ-NP-Za-km-z]+)/)![1]!;
    await until(async () => (await continuations(gone.conversationId))[0]!.status === 'sent');

    // A third reply right after waits: at most one email per conversation per 10 minutes, so
    // 2 minutes on it is still held, for about 8 more.
    const firstSent = clock.now();
    await reply(context.expert, gone.leadId, 'Did that help?');
    await twoMinutesLater();
    const [, waiting] = await continuations(gone.conversationId);
    expect(waiting).toMatchObject({ status: 'held' });
    expect(waiting!.next_attempt_at).toBeGreaterThanOrEqual(firstSent + 10 * 60 * 1000 - 5_000);

    // The resume key opens this conversation only, on its channel only, for 30 days.
    const thread = (channelKey: string) =>
      call(`/api/public/widget/${channelKey}/messages`, {
        headers: { Origin: SITE, Authorization: `Bearer ${resume}` },
      });
    const opened = await json(await thread(context.channelKey));
    expect(opened.messages.map((message: any) => message.text)).toContain('Did that help?');
    const elsewhere = await channelWithExpert();
    await expectProblem(await thread(elsewhere.channelKey), 401, 'invalid_session');
    moveClockForTests(CONVERSATION_KEY_TTL_MS);
    await expectProblem(await thread(context.channelKey), 401, 'invalid_session');
  });
});

describe('the continuation in the conversation’s language', () => {
  it('speaks German to a German conversation: subject, plural, dates, links, the unsubscribe page', async () => {
    const context = await channelWithExpert();
    // The conversation starts in German (the widget sends the language it shows) and keeps it.
    const first = await visitorSays(context.channelKey, {
      message: { text: 'Ich brauche Hilfe bei der Lohnabrechnung.' },
      language: 'de-DE',
    });
    expect(first.reply).toMatch(/^Danke, Ihre Anfrage D-[0-9A-Z]+ ist eingegangen\./);
    const email = `greta.${crypto.randomUUID().slice(0, 8)}@example.org`;
    const done = await visitorSays(context.channelKey, {
      session_id: first.session_id,
      trigger: 'lead_capture',
      contact: { ...VISITOR, email },
    });
    expect(done.reply).toMatch(/^Danke! Ein Experte meldet sich zu Anfrage D-/);
    const leadId = done.lead_id as string;
    expect(
      (await sessionCall(context.expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' }))
        .status,
    ).toBe(200);
    await reply(context.expert, leadId, 'Gern, schicken Sie mir die Unterlagen.');
    await reply(context.expert, leadId, 'Und die Steuer-ID bitte.');
    await twoMinutesLater();
    const mail = await mailTo(email, /Test Expert hat geantwortet \(D-/);
    expect(mail.text).toContain('Sie haben 2 Antworten von');
    expect(mail.text).toContain('Unterhaltung fortsetzen: ');
    // Dates through Intl in German: "26. Nov. 2026, 11:47 UTC".
    expect(mail.text).toMatch(/Test Expert \(\d{1,2}\. [A-Z][a-zä]+\.? \d{4}, \d{2}:\d{2} UTC\)/);
    expect(mail.html).toContain('<html lang="de" dir="ltr">');
    expect(mail.text).toMatch(/\?resume=egv_[1-9A-HJ-NP-Za-km-z]+&lang=de/);
    const unsubscribe = mail.text.match(/(http:\/\/gateway\.test\/email\/unsubscribe\/\S+\?lang=de)/)![1]!;
    const page = await (await workerFetch(unsubscribe)).text();
    expect(page).toContain('lang="de"');
    expect(page).toContain('E-Mails zu dieser Unterhaltung abbestellen?');
  });
});

describe('a polling visitor’s read mark', () => {
  it('travels with the poll: a reply read that way is not emailed', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    const sent = await json(await reply(context.expert, lead.leadId, 'Read by polling?'));
    const poll = await call(`/api/public/widget/${context.channelKey}/messages?read_up_to=${sent.message_id}`, {
      headers: { Origin: SITE, Authorization: `Bearer ${lead.session}` },
    });
    expect(poll.status).toBe(200);
    await twoMinutesLater();
    expect(await continuations(lead.conversationId)).toMatchObject([
      { status: 'skipped', last_error: 'The visitor read the replies in time.' },
    ]);
  });
});

describe('replies by email', () => {
  it('a reply becomes the visitor’s message without quoted history; forged, huge, textless: refused', async () => {
    const context = await channelWithExpert();
    const lead = await claimedLeadWithContact(context);
    await reply(context.expert, lead.leadId, 'What is your company size?');
    await twoMinutesLater();
    const mail = await mailTo(lead.email, /Test Expert replied/);
    const address = mail.headers['reply-to']!.slice(1, -1);
    const body = [
      'We are 40 people, mostly in Lyon.',
      '',
      'On Tue, 24 Nov 2026 at 10:00, Test Expert <gateway@mail.test>',
      'wrote:',
      '> What is your company size?',
    ].join('\n');
    const fromVisitor = { from: lead.email.toUpperCase() };
    expect(await deliverInbound(address.toUpperCase(), replyEmail(address, body, '', lead.email), fromVisitor)).toEqual(
      [],
    );
    const detail = await json(await sessionCall(context.expert.cookie, `/api/provider/workbench/leads/${lead.leadId}`));
    expect(detail.messages.at(-1)).toMatchObject({ role: 'visitor', text: 'We are 40 people, mostly in Lyon.' });

    const forged = `reply+${'a'.repeat(52)}@reply.mail.test`;
    expect(await deliverInbound(forged, replyEmail(forged, 'Let me in'))).toEqual([
      'This reply address is not valid or has expired.',
    ]);
    expect(await deliverInbound('someone@reply.mail.test', replyEmail('someone@reply.mail.test', 'Hi'))).toEqual([
      'This address does not take messages.',
    ]);
    expect(await deliverInbound(address, replyEmail(address, 'x'), { rawSize: 5 * 1024 * 1024 })).toEqual([
      'The message is too large (512 KB at most).',
    ]);
    const imageOnly = [
      `To: ${address}`,
      `From: ${lead.email}`,
      `Message-ID: <${crypto.randomUUID()}@example.org>`,
      'Content-Type: image/png',
      'Content-Transfer-Encoding: base64',
      '',
      'iVBORw0KGgo=',
      '',
    ].join('\r\n');
    expect(await deliverInbound(address, imageOnly, fromVisitor)).toEqual([
      'The message has no text to add to the conversation.',
    ]);
    const vacation = replyEmail(address, 'I am out of office.', 'Auto-Submitted: auto-replied', lead.email);
    expect(await deliverInbound(address, vacation, fromVisitor)).toEqual([
      'Automatic replies are not added to conversations.',
    ]);
    // Only the visitor's own mailbox: a stranger, or a stranger's From: behind the visitor's envelope.
    const notTheVisitor = ['Replies to this address are taken only from the address the email was sent to.'];
    const stranger = 'stranger@attacker.test';
    expect(
      await deliverInbound(address, replyEmail(address, 'Wire the money', '', stranger), { from: stranger }),
    ).toEqual(notTheVisitor);
    expect(await deliverInbound(address, replyEmail(address, 'Wire the money', '', stranger), fromVisitor)).toEqual(
      notTheVisitor,
    );
    const after = await json(await sessionCall(context.expert.cookie, `/api/provider/workbench/leads/${lead.leadId}`));
    expect(after.messages.filter((message: any) => message.role === 'visitor')).toHaveLength(
      detail.messages.filter((message: any) => message.role === 'visitor').length,
    );

    // Once the lead is won, the conversation takes no more replies by email.
    for (const status of ['qualified', 'won']) {
      const moved = await sessionCall(context.expert.cookie, `/api/provider/workbench/leads/${lead.leadId}/status`, {
        body: { status },
      });
      expect(moved.status).toBe(200);
    }
    expect(await deliverInbound(address, replyEmail(address, 'One more thing', '', lead.email), fromVisitor)).toEqual([
      'This conversation is closed: its request was completed.',
    ]);
  });
});

describe('preferences, unsubscribing and the email log', () => {
  it('preferences: defaults, changes, bad values', async () => {
    const expert = await createActiveExpert({ alerts: true });
    const read = await json(await sessionCall(expert.cookie, '/api/provider/preferences'));
    expect(read).toEqual({ availability: 'available', lead_alerts: 'instant', max_open_claims: 20 });
    const saved = await json(await setPreferences(expert, { lead_alerts: 'hourly', max_open_claims: 5 }));
    expect(saved).toEqual({ availability: 'available', lead_alerts: 'hourly', max_open_claims: 5 });
    await expectProblem(await setPreferences(expert, { max_open_claims: 0 }), 422, 'validation_failed');
    await expectProblem(await setPreferences(expert, { lead_alerts: 'weekly' }), 422, 'validation_failed');
    await expectProblem(await setPreferences(expert, {}), 422, 'validation_failed');
    const page = await getPage('/provider/workbench', expert.cookie);
    expect(await page.text()).toContain('<option value="hourly" selected="">');
  });

  it('one-click unsubscribe turns alerts off; a GET only asks; a forged token does nothing', async () => {
    const context = await channelWithExpert();
    await visitorSays(context.channelKey, { message: { text: 'Unsubscribe test.' }, trigger: 'handoff' });
    const mail = await mailTo(context.expert.email, /^New lead/);
    const url = mail.headers['list-unsubscribe']!.slice(1, -1).replace('http://gateway.test', '');
    const asked = await workerFetch(`http://gateway.test${url}`);
    expect(await asked.text()).toContain('Unsubscribe</button>');
    expect((await json(await sessionCall(context.expert.cookie, '/api/provider/preferences'))).lead_alerts).toBe(
      'instant',
    );
    const forged = `${url.slice(0, -4)}0000`;
    const refused = await workerFetch(`http://gateway.test${forged}`, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
    });
    expect(refused.status).toBe(404);
    const done = await workerFetch(`http://gateway.test${url}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(done.status).toBe(200);
    expect((await json(await sessionCall(context.expert.cookie, '/api/provider/preferences'))).lead_alerts).toBe('off');
  });

  it('owners read the workspace’s email log, recipients masked', async () => {
    const owner = await signUpOwner();
    const domain = await newDomain('mail');
    const key = await issueKey(owner.workspaceId, { scopes: ['channels:write'] });
    const channelKey = await createChannel(key.token, { domain });
    const expert = await createActiveExpert({ domains: [domain], alerts: true });
    await visitorSays(channelKey, { message: { text: 'Log me.' }, trigger: 'handoff' });
    await mailTo(expert.email, /^New lead/);
    const page = await getPage('/integrations/email', owner.cookie);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('New lead D-');
    expect(html).not.toContain(expert.email);
    expect(html).toContain(`${expert.email[0]}***@`);
  });
});
