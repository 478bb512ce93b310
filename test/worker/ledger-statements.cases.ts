import { describe, expect, it } from 'vitest';
import { sweepBilling } from '../../worker/platform/billing';
import { rollUp } from '../../worker/platform/rollups';
import { credit, recordContract } from './billing-helpers';
import { signUpOwner } from './console-helpers';
import { ADMIN_TOKEN, call, execute, executeBody, expectProblem, issueKey, json, workerDb } from './helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';
import { moveOrganization } from './move-helpers';

const db = () => workerDb();
const nextMonth = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 1);
};
const eventsOf = async (workspaceId: string, type: string) =>
  (
    await platformDb
      .prepare('SELECT data FROM events WHERE workspace_id = ? AND type = ? ORDER BY rowid')
      .bind(workspaceId, type)
      .all<{ data: string }>()
  ).results.map((row) => JSON.parse(row.data));
const noticesTo = async (workspaceId: string) =>
  (
    await platformDb
      .prepare("SELECT subject FROM emails WHERE workspace_id = ? AND kind = 'billing_notice' ORDER BY rowid")
      .bind(workspaceId)
      .all<{ subject: string }>()
  ).results.map((row) => row.subject);

/** An owner's workspace with a contract and a key that executes. */
async function ownedWorkspace(terms: Parameters<typeof recordContract>[1]) {
  const owner = await signUpOwner();
  const key = await issueKey(owner.workspaceId, { scopes: ['execute', 'leads:write'] });
  const contract = await recordContract(owner.workspaceId, terms);
  return { owner, key, contract };
}

describe('usage', () => {
  it('shows this month against the allowance, the balance, and the rollups by day, meter and key', async () => {
    const { owner, key, contract } = await ownedWorkspace({
      allowances: { executions: 2 },
      overage: { executions: { unit_price_minor: 5 } },
    });
    await credit(contract.escrow_id, 100);
    for (let index = 0; index < 3; index++) expect((await execute(key.token, executeBody())).status).toBe(200);
    await rollUp(db());
    await rollUp(db());

    const usage = await json(
      await call(`/api/usage?group_by=key&workspace_id=${owner.workspaceId}`, {
        headers: { Cookie: `egw_session=${owner.cookie}` },
      }),
    );
    expect(usage).toMatchObject({
      workspace_id: owner.workspaceId,
      contract_id: contract.contract_id,
      currency: 'EUR',
      balance_minor: 95,
      meters: [{ meter: 'executions', used: 3, included: 2, overage: 1, charged_minor: 5 }],
      group_by: 'key',
    });
    // Counted once, however often the rollup runs.
    expect(usage.rows).toEqual([{ group: key.keyId, executions: 3, leads: 3, agent_calls: 0, charged_minor: 5 }]);

    const byDay = await json(await call(`/api/usage?workspace_id=${owner.workspaceId}`, { token: ADMIN_TOKEN }));
    const today = new Date().toISOString().slice(0, 10);
    expect(byDay.rows.at(-1)).toEqual({ group: today, executions: 3, leads: 3, agent_calls: 0, charged_minor: 5 });
    expect(byDay.rows[0].group).toBe(`${today.slice(0, 7)}-01`);

    const byMeter = await json(
      await call(`/api/usage?group_by=meter&workspace_id=${owner.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    expect(byMeter.rows).toEqual(
      expect.arrayContaining([{ group: 'executions', executions: 3, leads: 0, agent_calls: 0, charged_minor: 5 }]),
    );
  });

  it('refuses a range past 366 days, an inverted one, and an administrator who names no workspace', async () => {
    const owner = await signUpOwner();
    const cookie = { Cookie: `egw_session=${owner.cookie}` };
    await expectProblem(
      await call(`/api/usage?from=2024-01-01&to=2025-06-01&workspace_id=${owner.workspaceId}`, { headers: cookie }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await call(`/api/usage?from=2026-02-01&to=2026-01-01&workspace_id=${owner.workspaceId}`, { headers: cookie }),
      422,
      'validation_failed',
    );
    await expectProblem(await call('/api/usage', { token: ADMIN_TOKEN }), 422, 'validation_failed');
    await expectProblem(await call('/api/usage?workspace_id=ws_nothere', { token: ADMIN_TOKEN }), 404, 'not_found');
    // Without a contract: the counts, no meters and no balance.
    const empty = await json(await call(`/api/usage?workspace_id=${owner.workspaceId}`, { headers: cookie }));
    expect(empty).toMatchObject({ contract_id: null, balance_minor: null, meters: [] });
  });
});

describe('the month close', () => {
  it('issues one statement per escrow, however often it runs, with its event and emails', async () => {
    const { owner, key, contract } = await ownedWorkspace({
      allowances: { executions: 1 },
      overage: { executions: { unit_price_minor: 4 } },
    });
    await credit(contract.escrow_id, 50, 'INV-50');
    for (let index = 0; index < 3; index++) expect((await execute(key.token, executeBody())).status).toBe(200);
    const closeAt = nextMonth();
    await sweepBilling(db(), closeAt);
    await sweepBilling(db(), closeAt);
    await sweepBilling(db(), closeAt + 60_000);

    const statements = await json(
      await call(`/api/usage/statements?workspace_id=${owner.workspaceId}`, {
        headers: { Cookie: `egw_session=${owner.cookie}` },
      }),
    );
    expect(statements.data).toHaveLength(1);
    const period = new Date().toISOString().slice(0, 7);
    expect(statements.data[0]).toMatchObject({
      escrow_id: contract.escrow_id,
      contract_id: contract.contract_id,
      period,
      currency: 'EUR',
      opening_minor: 0,
      credits_minor: 50,
      charges_minor: 8,
      fees_minor: 0,
      refunds_minor: 0,
      closing_minor: 42,
      meters: [{ meter: 'executions', used: 3, included: 1, overage: 2, charged_minor: 8 }],
    });
    const issued = await eventsOf(owner.workspaceId, 'statement.issued');
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ statement_id: statements.data[0].statement_id, closing_minor: 42, period });
    expect(await noticesTo(owner.workspaceId)).toContain(`Your statement for ${period} is ready`);

    const csv = await call(`/api/usage/statements?workspace_id=${owner.workspaceId}`, {
      headers: { Cookie: `egw_session=${owner.cookie}`, Accept: 'text/csv' },
    });
    expect(csv.headers.get('Content-Type')).toContain('text/csv');
    expect(csv.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'statement_id,period,currency,opening_minor,credits_minor,charges_minor,fees_minor,refunds_minor,closing_minor,' +
        'meter,used,included,overage,meter_charged_minor',
    );
    expect(lines[1]).toBe(`${statements.data[0].statement_id},${period},EUR,0,50,8,0,0,42,executions,3,1,2,8`);
  });
});

describe('notices', () => {
  it('adds up in the month its organisation moved shards: it opens with the balance carried over', async () => {
    const { owner, key, contract } = await ownedWorkspace({
      allowances: { executions: 1 },
      overage: { executions: { unit_price_minor: 4 } },
    });
    await credit(contract.escrow_id, 50, 'INV-MOVE');
    for (let index = 0; index < 3; index++) expect((await execute(key.token, executeBody())).status).toBe(200);
    const organizationId = await platformDb
      .prepare('SELECT organization_id FROM workspaces WHERE id = ?')
      .bind(owner.workspaceId)
      .first<string>('organization_id');
    await moveOrganization(organizationId!);
    expect((await execute(key.token, executeBody())).status).toBe(200);
    await sweepBilling(db(), nextMonth());
    const [statement] = (
      await json(
        await call(`/api/usage/statements?workspace_id=${owner.workspaceId}`, {
          headers: { Cookie: `egw_session=${owner.cookie}` },
        }),
      )
    ).data;
    expect(statement).toMatchObject({ opening_minor: 42, credits_minor: 0, charges_minor: 4, closing_minor: 38 });
    const { opening_minor, credits_minor, charges_minor, fees_minor, refunds_minor } = statement;
    expect(opening_minor + credits_minor - charges_minor - fees_minor + refunds_minor).toBe(statement.closing_minor);
  });

  it('tells the owners once at 80% and once at 100% of an allowance', async () => {
    const { owner, key } = await ownedWorkspace({ allowances: { executions: 5 } });
    for (let index = 0; index < 4; index++) await execute(key.token, executeBody());
    await sweepBilling(db(), clock.now());
    await sweepBilling(db(), clock.now());
    let reached = await eventsOf(owner.workspaceId, 'usage.threshold_reached');
    expect(reached.map((data) => [data.meter, data.percent, data.used])).toEqual([['executions', 80, 4]]);
    await execute(key.token, executeBody());
    await sweepBilling(db(), clock.now());
    reached = await eventsOf(owner.workspaceId, 'usage.threshold_reached');
    expect(reached.map((data) => data.percent)).toEqual([80, 100]);
    expect(await noticesTo(owner.workspaceId)).toEqual([
      'You have used 80% of the 5 executions included this month',
      'You have used 100% of the 5 executions included this month',
    ]);
  });

  it('tells of a low balance once, until a credit lifts it again', async () => {
    const { owner, key, contract } = await ownedWorkspace({
      overage: { executions: { unit_price_minor: 10 } },
      low_balance_minor: 15,
    });
    await credit(contract.escrow_id, 20);
    await execute(key.token, executeBody());
    await sweepBilling(db(), clock.now());
    await sweepBilling(db(), clock.now());
    expect(await eventsOf(owner.workspaceId, 'escrow.low_balance')).toMatchObject([
      { escrow_id: contract.escrow_id, balance_minor: 10, low_balance_minor: 15, currency: 'EUR' },
    ]);
    await credit(contract.escrow_id, 100);
    await execute(key.token, executeBody());
    await sweepBilling(db(), clock.now());
    expect(await eventsOf(owner.workspaceId, 'escrow.low_balance')).toHaveLength(1);
    expect(await noticesTo(owner.workspaceId)).toEqual(['Your balance is low: 0.10 EUR']);
  });
});

describe('meter events', () => {
  it('print each overage charge once, in the shape billing systems take, page by page', async () => {
    const since = new Date(clock.now() - 1000).toISOString();
    const { key, contract } = await ownedWorkspace({
      overage: { executions: { unit_price_minor: 3 } },
      reference: 'cus_meter_test',
    });
    await credit(contract.escrow_id, 30);
    for (let index = 0; index < 3; index++) await execute(key.token, executeBody());
    const all: Array<Record<string, any>> = [];
    let after: string | null = null;
    do {
      const page: { data: Array<Record<string, any>>; next_after: string | null } = await json(
        await call(`/api/admin/meter-events?since=${since}&limit=2${after ? `&after=${after}` : ''}`, {
          token: ADMIN_TOKEN,
        }),
      );
      all.push(...page.data);
      after = page.next_after;
    } while (after);
    const ours = all.filter((event) => event.payload.customer === 'cus_meter_test');
    expect(ours).toHaveLength(3);
    expect(ours[0]).toMatchObject({
      event_name: 'executions.overage',
      payload: { customer: 'cus_meter_test', value: '1', amount_minor: '3', currency: 'EUR' },
    });
    expect(new Set(ours.map((event) => event.identifier)).size).toBe(3);
  });
});
