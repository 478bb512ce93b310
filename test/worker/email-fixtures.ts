/**
 * Fixtures of the email tests (email.*.test.ts): a channel with an expert, a visitor with contact
 * details, replies, the continuation's clock, an inbound email.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import worker from '../../worker/index';
import { sweepEmails } from '../../worker/platform/email';
import { newDomain } from './agent-helpers';
import { createTenant, workerDb } from './helpers';
import { createActiveExpert, createChannel, sessionCall, type TestProvider, visitorSays } from './provider-helpers';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

/** Waits up to 15 s (the queue, then an SMTP conversation, on a loaded 2-core machine). */
export const rows = (sql: string, ...params: unknown[]) =>
  platformDb
    .prepare(sql)
    .bind(...params)
    .all<Record<string, any>>()
    .then((result) => result.results);
export const emailsOfLead = (leadId: string) =>
  rows('SELECT * FROM emails WHERE lead_id = ? AND kind = ? ORDER BY id', leadId, 'lead_alert');

export const setPreferences = (expert: TestProvider, body: Record<string, unknown>) =>
  sessionCall(expert.cookie, '/api/provider/preferences', { body });

export const VISITOR = { name: 'Vera Visitor', email: 'vera.visitor@example.org', phone: '+1 415 555 0134' };

/** A channel of its own domain that asks for an email, and an expert for it. */
export async function channelWithExpert() {
  const domain = await newDomain('mail');
  const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
  const channelKey = await createChannel(tenant.token, { domain, leadCapture: { email: 'required' } });
  const expert = await createActiveExpert({ domains: [domain], alerts: true });
  return { domain, tenant, channelKey, expert };
}

/** A visitor who left their contact details (an address of their own); the lead the expert claimed. */
export async function claimedLeadWithContact(context: Awaited<ReturnType<typeof channelWithExpert>>) {
  const first = await visitorSays(context.channelKey, { message: { text: 'I need help with my payroll.' } });
  const session = first.session_id as string;
  const email = `vera.${crypto.randomUUID().slice(0, 8)}@example.org`;
  const contact = { ...VISITOR, email };
  const done = await visitorSays(context.channelKey, { session_id: session, trigger: 'lead_capture', contact });
  const leadId = done.lead_id as string;
  const claimed = await sessionCall(context.expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, {
    method: 'POST',
  });
  expect(claimed.status).toBe(200);
  const conversation = await rows('SELECT conversation_id FROM leads WHERE id = ?', leadId);
  return { session, leadId, email, conversationId: conversation[0]!.conversation_id as string };
}

export const reply = (expert: TestProvider, leadId: string, text: string) =>
  sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/messages`, { body: { text } });

export const continuations = (conversationId: string) =>
  rows(
    'SELECT * FROM emails WHERE conversation_id = ? AND kind = ? ORDER BY id',
    conversationId,
    'visitor_continuation',
  );

/** Lets 2 minutes pass, so a held continuation is due, and runs the sweep. */
export async function twoMinutesLater() {
  moveClockForTests(2 * 60_000 + 1);
  await sweepEmails(workerDb(), env.EVENTS, clock.now());
}

/** An incoming email through the Worker's `email` entry point, as Email Routing hands it over. */
export async function deliverInbound(to: string, raw: string, options: { from?: string; rawSize?: number } = {}) {
  const { from = VISITOR.email, rawSize } = options;
  const rejected: string[] = [];
  const bytes = new TextEncoder().encode(raw);
  const message = {
    from,
    to,
    headers: new Headers(),
    raw: new Response(bytes).body!,
    rawSize: rawSize ?? bytes.length,
    setReject: async (reason: string) => void rejected.push(reason),
    forward: async () => undefined,
    reply: async () => undefined,
  } as unknown as ForwardableEmailMessage;
  const context = createExecutionContext();
  await worker.email(message, env, context);
  await waitOnExecutionContext(context);
  return rejected;
}

export const replyEmail = (to: string, body: string, extraHeaders = '', from = VISITOR.email) =>
  [
    `From: Vera Visitor <${from}>`,
    `To: ${to}`,
    'Subject: Re: Test Expert replied',
    `Message-ID: <${crypto.randomUUID()}@example.org>`,
    'MIME-Version: 1.0',
    extraHeaders,
    'Content-Type: multipart/alternative; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '--b1',
    'Content-Type: text/html; charset=utf-8',
    '',
    `<p>${body.split('\n')[0]}</p>`,
    '--b1--',
    '',
  ]
    .filter((line, index) => index !== 5 || line !== '')
    .join('\r\n');
