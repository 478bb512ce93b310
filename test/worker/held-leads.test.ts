/**
 * A visitor is not the customer (docs/design/billing.md): past the workspace's allowance their
 * message is answered as usual and its lead held, offered to nobody; an API caller still gets
 * 402. The sweep offers a held lead once there is room (a new month, a credit for the overage),
 * charging it then, once, with the books balanced.
 */
import { env } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../worker/lib/db';
import { releaseHeldLeads } from '../../worker/platform/leads';
import { newDomain } from './agent-helpers';
import { balanceOf, credit, expectBalancedBooks, recordContract } from './billing-helpers';
import { call, createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';
import { createActiveExpert, createChannel, type TestProvider, visitorSays } from './provider-helpers';
import { clock } from '../../worker/lib/clock';

const db = () => createDatabase(env.DB);
let ip = 0;
const nextIp = () => `198.18.77.${++ip}`;

const leadRow = (leadId: string) =>
  env.DB.prepare('SELECT held_at, wave, widen_at FROM leads WHERE id = ?')
    .bind(leadId)
    .first<{ held_at: number | null; wave: number; widen_at: number | null }>();
const offersOf = async (leadId: string) =>
  (await env.DB.prepare('SELECT provider_id FROM lead_offers WHERE lead_id = ?').bind(leadId).all()).results;
const historyOf = async (leadId: string) =>
  (
    await env.DB.prepare('SELECT note FROM lead_events WHERE lead_id = ? ORDER BY id')
      .bind(leadId)
      .all<{ note: string | null }>()
  ).results.map((row) => row.note);

describe('a visitor past the allowance', () => {
  let tenant: Tenant;
  let channel: string;
  let domain: string;
  let expert: TestProvider;
  beforeEach(async () => {
    domain = await newDomain('held');
    tenant = await createTenant({ scopes: ['execute', 'leads:write', 'channels:write', 'channels:read'] });
    channel = await createChannel(tenant.token, { domain });
    expert = await createActiveExpert({ domains: [domain] });
  });

  it('is answered as usual; the lead is held, and offered once a new month makes room', async () => {
    await recordContract(tenant.workspaceId, { allowances: { leads: 1 } });
    const first = await visitorSays(channel, { message: { text: 'First visitor, within the allowance.' } }, nextIp());
    expect((await leadRow(first.lead_id))?.held_at).toBeNull();
    expect(await offersOf(first.lead_id)).toHaveLength(1);

    const second = await visitorSays(channel, { message: { text: 'Second visitor, past it.' } }, nextIp());
    expect(second.reply).toBe(first.reply.replace(/D-[A-Z0-9]+/, second.reply.match(/D-[A-Z0-9]+/)![0]));
    expect(second.lead_id).toMatch(/^lead_/);
    const held = await leadRow(second.lead_id);
    expect(held).toMatchObject({ wave: 0, widen_at: null });
    expect(held?.held_at).toBeGreaterThan(0);
    expect(await offersOf(second.lead_id)).toEqual([]);
    expect((await historyOf(second.lead_id))[0]).toContain('allowance is used up');
    // The owner sees it held in the channel's recent intake.
    const intake = await json(await call(`/api/integrations/channels/${channel}/intake`, { token: tenant.token }));
    const entry = intake.data.find((row: { lead: { lead_id: string } | null }) => row.lead?.lead_id === second.lead_id);
    expect(entry.lead).toMatchObject({ held: true, wave: 0 });
    // The visitor goes on talking: the turn is recorded, nothing refused.
    const more = await visitorSays(
      channel,
      { session_id: second.session_id, message: { text: 'Any news?' }, contact: { email: 'v@example.com' } },
      nextIp(),
    );
    expect(more.lead_id).toBe(second.lead_id);
    // An API caller is the customer: still 402.
    await expectProblem(
      await execute(tenant.token, executeBody({ domain, text: 'From the API.' })),
      402,
      'entitlement_exceeded',
    );

    // No room this month: the sweep leaves it held.
    expect(await releaseHeldLeads(db(), clock.now())).toBe(0);
    expect((await leadRow(second.lead_id))?.held_at).not.toBeNull();
    // Next month there is: offered, charged once, and a second sweep does nothing more.
    const nextMonth = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 2);
    expect(await releaseHeldLeads(db(), nextMonth)).toBe(1);
    expect(await releaseHeldLeads(db(), nextMonth)).toBe(0);
    const released = await leadRow(second.lead_id);
    expect(released).toMatchObject({ held_at: null, wave: 1 });
    expect(await offersOf(second.lead_id)).toEqual([{ provider_id: expert.providerId }]);
    expect((await historyOf(second.lead_id)).at(-1)).toContain('offered to the');
    const month = new Date(nextMonth).toISOString().slice(0, 7);
    const used = await env.DB.prepare(
      "SELECT used FROM usage_meters WHERE meter = 'leads' AND period = ? AND key_id = ?",
    )
      .bind(
        month,
        (await env.DB.prepare('SELECT id FROM contracts WHERE workspace_id = ?')
          .bind(tenant.workspaceId)
          .first<{ id: string }>())!.id,
      )
      .first<{ used: number }>();
    expect(used?.used).toBe(1);
  });

  it('with a priced overage and an empty escrow, a credit makes room: charged once, the books balance', async () => {
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { leads: 0 },
      overage: { leads: { unit_price_minor: 250 } },
    });
    const visitor = await visitorSays(channel, { message: { text: 'Past a priced allowance.' } }, nextIp());
    expect((await leadRow(visitor.lead_id))?.held_at).not.toBeNull();
    expect(await releaseHeldLeads(db(), clock.now())).toBe(0);
    await credit(contract.escrow_id, 300);
    expect(await releaseHeldLeads(db(), clock.now())).toBe(1);
    expect(await offersOf(visitor.lead_id)).toHaveLength(1);
    expect(await balanceOf(contract.escrow_id)).toBe(50);
    await expectBalancedBooks();
  });
});
