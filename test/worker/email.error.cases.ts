/**
 * Email when sending fails (docs/design/email.md): retries with backoff, addresses scrubbed from
 * errors, given up after 24 hours, never sent twice (two consumers racing), and nothing sent
 * without an SMTP server.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { emailSendDeps } from '../../worker/jobs/email';
import { newId } from '../../worker/lib/ids';
import { sendEmail } from '../../worker/platform/email';
import { until } from './mail-helpers';
import { servicesIn } from './helpers';
import { visitorSays } from './provider-helpers';
import { clock } from '../../worker/lib/clock';
import { rows, emailsOfLead, channelWithExpert } from './email-fixtures';
import { platformDb } from './platform-db';

describe('sending', () => {
  /** A queued digest of its own, written at `createdAt`, that no queue message knows about, and an open lead. */
  async function queuedRow(createdAt: number) {
    const { tenant, expert, channelKey } = await channelWithExpert();
    await visitorSays(channelKey, { message: { text: 'An open lead for the digest.' }, trigger: 'handoff' });
    const id = newId('eml', createdAt);
    await platformDb
      .prepare(
        `INSERT INTO emails (id, workspace_id, kind, status, provider_id, lead_id, subject, link_origin,
        next_attempt_at, created_at, updated_at)
       VALUES (?, ?, 'lead_digest', 'queued', ?, NULL, 'digest', 'http://gateway.test', ?, ?, ?)`,
      )
      .bind(id, tenant.workspaceId, expert.providerId, createdAt, createdAt, createdAt)
      .run();
    return { id, expert, workspaceId: tenant.workspaceId };
  }
  const row = async (id: string) => (await rows('SELECT * FROM emails WHERE id = ?', id))[0]!;

  it('retries with backoff, scrubs addresses from errors, gives up after 24 hours, and never sends twice', async () => {
    const start = clock.now() - 60 * 60 * 1000;
    const { id, workspaceId } = await queuedRow(start);
    const failing = { send: vi.fn(async () => Promise.reject(new Error('550 <someone@example.net> mailbox full'))) };
    let now = clock.now();
    const deps = { ...emailSendDeps(await servicesIn(workspaceId)), transport: failing, now: () => now };
    // The digest gathers an alert of an open lead, so it has something to send.
    await platformDb
      .prepare(
        `INSERT INTO emails (id, workspace_id, kind, status, provider_id, lead_id, digest_id, subject, link_origin,
        next_attempt_at, created_at, updated_at)
       SELECT ?, workspace_id, 'lead_alert', 'skipped', provider_id, id, ?, 'x', link_origin, 0, 0, 0
       FROM (SELECT e.workspace_id, e.provider_id, e.link_origin, l.id FROM emails e, leads l
         WHERE e.id = ? AND l.status = 'open' LIMIT 1)`,
      )
      .bind(newId('eml'), id, id)
      .run();
    expect(await sendEmail(deps, id)).toBe('retrying');
    let state = await row(id);
    expect(state).toMatchObject({ status: 'queued', attempts: 1 });
    expect(state.last_error).toContain('s***@e***.net');
    expect(state.last_error).not.toContain('someone@example.net');
    expect(state.next_attempt_at).toBeGreaterThan(now);
    // Not again before it is due.
    expect(await sendEmail(deps, id)).toBeUndefined();
    now = state.next_attempt_at;
    expect(await sendEmail(deps, id)).toBe('retrying');
    state = await row(id);
    expect(state.attempts).toBe(2);
    // A day after it was written, the next failure gives up.
    now = start + 24 * 60 * 60 * 1000 - 1000;
    expect(await sendEmail(deps, id)).toBe('failed');
    expect((await row(id)).last_error).toMatch(/^Given up after 3 attempts/);
    expect(failing.send).toHaveBeenCalledTimes(3);
  });

  it('two consumers racing for one row: one sends it, once', async () => {
    const sent: string[] = [];
    // The send is held open until one consumer has given up, so the two overlap; were both to
    // send, neither would return and the test would time out.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transport = {
      send: async (email: { to: string }) => {
        await held;
        sent.push(email.to);
      },
    };
    // A real alert, sent once already, made due again.
    const context = await channelWithExpert();
    const lead = await visitorSays(context.channelKey, { message: { text: 'Race me.' }, trigger: 'handoff' });
    const [alert] = await emailsOfLead(lead.lead_id);
    await until(async () => (await row(alert!.id)).status === 'sent');
    await platformDb
      .prepare("UPDATE emails SET status = 'queued', next_attempt_at = 0 WHERE id = ?")
      .bind(alert!.id)
      .run();
    const deps = { ...emailSendDeps(await servicesIn(context.tenant.workspaceId)), transport };
    const racing = [sendEmail(deps, alert!.id), sendEmail(deps, alert!.id)];
    await Promise.race(racing);
    release();
    const outcomes = await Promise.all(racing);
    expect(outcomes.filter((outcome) => outcome === 'sent')).toHaveLength(1);
    expect(sent).toEqual([context.expert.email]);
    expect(await sendEmail(deps, alert!.id)).toBeUndefined();
  });

  it('without SMTP_HOST, emails are recorded as skipped and nothing is sent', async () => {
    const { id, workspaceId } = await queuedRow(clock.now() - 1000);
    const deps = { ...emailSendDeps(await servicesIn(workspaceId, { ...env, SMTP_HOST: '' })) };
    expect(await sendEmail(deps, id)).toBe('skipped');
    expect((await row(id)).last_error).toBe('No SMTP server is configured (SMTP_HOST).');
  });
});
