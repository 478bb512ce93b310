/**
 * What no input can bend in an email (docs/design/email.md): the sender's name, the headers, and
 * links that come from CONSOLE_URL, never from the Host of the request that caused the email.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../worker/index';
import { emailSendDeps } from '../../worker/jobs/email';
import { sendEmail } from '../../worker/platform/email';
import { mailTo } from './mail-helpers';
import { call, json, servicesIn } from './helpers';
import {
  rows,
  emailsOfLead,
  channelWithExpert,
  claimedLeadWithContact,
  reply,
  twoMinutesLater,
} from './email-fixtures';
import { platformDb } from './platform-db';

describe('headers and links that no input can bend', () => {
  it('a brand with quotes, commas, an address and accents stays one name of the platform’s mailbox', async () => {
    const context = await channelWithExpert();
    const brand = 'Acme" <ceo@bank.example>, "Café Zoë';
    const patched = await call(`/api/integrations/channels/${context.channelKey}`, {
      token: context.tenant.token,
      method: 'PATCH',
      body: { widget: { brand: { name: brand } } },
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const lead = await claimedLeadWithContact(context);
    await reply(context.expert, lead.leadId, 'Here is what I suggest.');
    await twoMinutesLater();
    const mail = await mailTo(lead.email, /Test Expert replied/);
    expect(mail.fromMailboxes).toEqual([{ name: brand, address: 'gateway@mail.test' }]);
    expect(mail.headers.from).not.toContain('bank.example');
    expect(mail.to).toEqual([lead.email]);
  });

  it('links come from CONSOLE_URL, never from the Host of the request that caused the email', async () => {
    const context = await channelWithExpert();
    // A deployment without CONSOLE_URL, reached with a forged Host and a matching (first-party) Origin.
    const bare = { ...env, CONSOLE_URL: '', BASE_URL: '' };
    const forged = 'http://attacker.example';
    const execution = createExecutionContext();
    const response = await worker.fetch(
      new Request(`${forged}/api/public/widget/${context.channelKey}/intake`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: forged, 'CF-Connecting-IP': '203.0.113.77' },
        body: JSON.stringify({ message: { text: 'Our payroll run failed, please help.' } }),
      }) as Parameters<typeof worker.fetch>[0],
      bare,
      execution,
    );
    await waitOnExecutionContext(execution);
    expect(response.status, await response.clone().text()).toBe(200);
    const { lead_id: leadId } = await json(response);
    // Sent by the queue of this deployment (CONSOLE_URL set): every link is the configured origin's.
    const mail = await mailTo(context.expert.email, /^New lead D-/);
    expect(mail.raw).not.toContain('attacker.example');
    expect(mail.text).toContain(`http://gateway.test/provider/workbench/leads/${leadId}`);
    // Where no public URL is configured, the email is not sent at all, and says why.
    const [alert] = await emailsOfLead(leadId);
    await platformDb
      .prepare("UPDATE emails SET status = 'queued', next_attempt_at = 0 WHERE id = ?")
      .bind(alert!.id)
      .run();
    const services = await servicesIn(context.tenant.workspaceId, bare);
    expect(await sendEmail(emailSendDeps(services), alert!.id)).toBe('skipped');
    expect((await rows('SELECT status, last_error FROM emails WHERE id = ?', alert!.id))[0]).toEqual({
      status: 'skipped',
      last_error: 'No public URL is configured (CONSOLE_URL or BASE_URL) for the links of this email.',
    });
  });
});
