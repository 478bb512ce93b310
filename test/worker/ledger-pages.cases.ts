import { describe, expect, it } from 'vitest';
import { sweepBilling } from '../../worker/platform/billing';
import { rollUp } from '../../worker/platform/rollups';
import { balanceOf, credit, recordContract } from './billing-helpers';
import { getPage, postForm, signUpOwner, signUpPlatformAdmin } from './console-helpers';
import { ADMIN_TOKEN, call, execute, executeBody, expectStrictPageHeaders, issueKey, json, workerDb } from './helpers';
import { createActiveExpert, createChannel, sessionCall, visitorSays } from './provider-helpers';
import { clock } from '../../worker/lib/clock';

const db = () => workerDb();

const platformAdmin = () => signUpPlatformAdmin();

describe('the owner’s Usage page', () => {
  it('shows this month against the allowances, the balance, the daily chart and the statements', async () => {
    const owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, { scopes: ['execute', 'leads:write'] });
    const contract = await recordContract(owner.workspaceId, {
      allowances: { executions: 1000, leads: 100 },
      overage: { executions: { unit_price_minor: 2 } },
    });
    await credit(contract.escrow_id, 10_000);
    for (let index = 0; index < 2; index++) await execute(key.token, executeBody());
    await rollUp(db());
    const page = await getPage(`/integrations/usage?ws=${owner.workspaceId}`, owner.cookie);
    expect(page.status).toBe(200);
    expectStrictPageHeaders(page);
    const html = await page.text();
    expect(html).toContain('€100.00');
    expect(html).toMatch(/2 <small class="muted">of 1,000<\/small>/);
    expect(html).toContain('<svg');
    expect(html).toContain('role="img"');
    expect(html).toContain('The first statement is issued when this month closes.');
    expect(html).toContain(`href="/integrations/usage${'?'}ws=${owner.workspaceId}" aria-current="page"`);

    const daily = await getPage(`/integrations/usage/daily.csv?ws=${owner.workspaceId}`, owner.cookie);
    expect(daily.headers.get('Content-Type')).toContain('text/csv');
    const lines = (await daily.text()).trim().split('\r\n');
    expect(lines[0]).toBe('day,Executions,Leads,Agent answers');
    expect(lines.at(-1)).toBe(`${new Date().toISOString().slice(0, 10)},2,2,0`);

    // A month later, its statement is on the page and in the CSV.
    const now = new Date();
    await sweepBilling(db(), Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 5));
    const after = await (await getPage(`/integrations/usage?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(after).toContain(now.toISOString().slice(0, 7));
    const csv = await (
      await getPage(`/integrations/usage/statements.csv?ws=${owner.workspaceId}`, owner.cookie)
    ).text();
    expect(csv.split('\r\n')[1]).toContain(',EUR,0,10000,0,0,0,10000,executions,2,1000,0,0');
  });

  it('says so when the workspace has no contract', async () => {
    const owner = await signUpOwner();
    const html = await (await getPage(`/integrations/usage?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(html).toContain('This workspace has no contract');
  });
});

describe('the expert’s credits card', () => {
  it('shows the balance and the fee, and asks for the fee back from the card', async () => {
    const domain = `cards-${Math.random().toString(36).slice(2, 9)}`;
    await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain, lead_price_minor: 250 } });
    const tenant = await signUpOwner();
    const key = await issueKey(tenant.workspaceId, { scopes: ['execute', 'leads:write', 'channels:write'] });
    const channel = await createChannel(key.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    const credits = await json(await sessionCall(expert.cookie, '/api/provider/credits'));
    await credit(credits.escrow_id, 1000);
    const lead = await visitorSays(channel, { message: { text: 'A lead for the card' } }, '198.51.100.77');
    expect(
      (await postForm(`/provider/workbench/leads/${lead.lead_id}/claim`, {}, { cookie: expert.cookie })).status,
    ).toBe(303);
    const html = await (await getPage('/provider/workbench', expert.cookie)).text();
    expect(html).toContain('id="credits"');
    expect(html).toContain('€7.50');
    expect(html).toContain('Ask for it back');
    const asked = await postForm(
      `/provider/workbench/leads/${lead.lead_id}/refund-request`,
      { reason: 'unreachable' },
      { cookie: expert.cookie },
    );
    expect(asked.status).toBe(303);
    expect(asked.headers.get('Location')).toBe('/provider/workbench?notice=refund_requested#credits');
    const after = await (await getPage('/provider/workbench', expert.cookie)).text();
    expect(after).not.toContain('Ask for it back');
    expect(after).toContain('pending');
  });
});

describe('the admin’s billing page', () => {
  it('records a contract, credits its escrow and ends it', async () => {
    const admin = await platformAdmin();
    const owner = await signUpOwner();
    const page = await getPage(`/admin/billing?workspace=${owner.workspaceId}`, admin.cookie);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('No contract');

    const bad = await postForm(
      `/admin/billing/contracts?workspace=${owner.workspaceId}`,
      { plan: 'Pro', currency: 'euro', starts_at: '2026-01-01T00:00' },
      { cookie: admin.cookie },
    );
    expect(bad.status).toBe(422);
    const recorded = await postForm(
      `/admin/billing/contracts?workspace=${owner.workspaceId}`,
      {
        plan: 'Pro',
        currency: 'EUR',
        starts_at: new Date(clock.now() - 60_000).toISOString().slice(0, 16),
        allowance_executions: '500',
        price_executions: '3',
        reference: 'cus_pro',
      },
      { cookie: admin.cookie },
    );
    expect(recorded.status, await recorded.clone().text()).toBe(303);
    const listed = await json(
      await call(`/api/admin/contracts?workspace_id=${owner.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    const contract = listed.data[0];
    expect(contract).toMatchObject({ plan: 'Pro', allowances: { executions: 500 }, reference: 'cus_pro' });

    const credited = await postForm(
      '/admin/billing/credits',
      { escrow_id: contract.escrow_id, amount_minor: '2500', reference: 'INV-PAGE' },
      { cookie: admin.cookie },
    );
    expect(credited.status).toBe(303);
    expect(credited.headers.get('Location')).toBe('/admin/billing?notice=credited');
    expect(await balanceOf(contract.escrow_id)).toBe(2500);
    // The same payment again: nothing added, and the page says so rather than "Credit recorded."
    const again = await postForm(
      '/admin/billing/credits',
      { escrow_id: contract.escrow_id, amount_minor: '2500', reference: 'INV-PAGE' },
      { cookie: admin.cookie },
    );
    expect(again.headers.get('Location')).toBe('/admin/billing?notice=credit_already_recorded');
    expect(await balanceOf(contract.escrow_id)).toBe(2500);
    expect(await (await getPage('/admin/billing?notice=credit_already_recorded', admin.cookie)).text()).toContain(
      'already recorded under this reference',
    );
    const html = await (await getPage(`/admin/billing?workspace=${owner.workspaceId}`, admin.cookie)).text();
    expect(html).toContain('€25.00');
    expect(html).toContain('500 executions, then €0.03 each');

    const ended = await postForm(`/admin/billing/contracts/${contract.contract_id}/end`, {}, { cookie: admin.cookie });
    expect(ended.status).toBe(303);
    const after = await json(
      await call(`/api/admin/contracts?workspace_id=${owner.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    expect(after.data[0].status).toBe('ended');
  });
});
