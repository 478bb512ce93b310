import { describe, expect, it, beforeEach } from 'vitest';
import { balanceOf, credit, expectBalancedBooks, recordContract } from './billing-helpers';
import {
  ADMIN_TOKEN,
  call,
  createTenant,
  execute,
  executeBody,
  expectProblem,
  json,
  writeFootprint,
  type Tenant,
  workerDb,
} from './helpers';
import { clock } from '../../worker/lib/clock';
import { releaseHeldLeads } from '../../worker/platform/leads';
import { newDomain } from './agent-helpers';
import { createActiveExpert, createChannel, type TestProvider, visitorSays } from './provider-helpers';
import { platformDb } from './platform-db';

const contractLine = (body: Record<string, any>, meter = 'executions') =>
  body.usage_applications.find((line: Record<string, any>) => line.source === 'contract' && line.meter === meter);

describe('contracts', () => {
  it('records a contract with its escrow, lists it, and ends it', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 1000, leads: 100 },
      overage: { executions: { unit_price_minor: 2 } },
      reference: 'cus_demo',
    });
    expect(contract.contract_id).toMatch(/^ctr_/);
    expect(contract.escrow_id).toMatch(/^esc_/);
    expect(contract.status).toBe('in_force');

    const listed = await json(
      await call(`/api/admin/contracts?workspace_id=${tenant.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    expect(listed.data.map((row: { contract_id: string }) => row.contract_id)).toEqual([contract.contract_id]);

    const escrow = await json(await call(`/api/admin/escrows/${contract.escrow_id}`, { token: ADMIN_TOKEN }));
    expect(escrow).toMatchObject({
      owner: { kind: 'workspace', id: tenant.workspaceId },
      contract_id: contract.contract_id,
      currency: 'EUR',
      balance_minor: 0,
    });

    const ended = await call(`/api/admin/contracts/${contract.contract_id}/end`, {
      token: ADMIN_TOKEN,
      method: 'POST',
    });
    expect((await json(ended)).status).toBe('ended');
    await expectProblem(
      await call(`/api/admin/contracts/${contract.contract_id}/end`, { token: ADMIN_TOKEN, method: 'POST' }),
      409,
      'invalid_transition',
    );
    // Without a contract in force, the execution runs as before, carrying the request's values.
    const body = await json(
      await execute(tenant.token, executeBody({ exact_bridge: { contract_id: 'theirs', escrow_id: 'also_theirs' } })),
    );
    expect(body.exact_bridge).toMatchObject({ contract_id: 'theirs', escrow_id: 'also_theirs' });
    expect(contractLine(body)).toBeUndefined();
  });

  it('lets a later contract take over at its start, and refuses one that does not start later', async () => {
    const tenant = await createTenant();
    const first = await recordContract(tenant.workspaceId, { allowances: { executions: 10 } });
    await expectProblem(
      await call('/api/admin/contracts', {
        token: ADMIN_TOKEN,
        body: {
          workspace_id: tenant.workspaceId,
          plan: 'Earlier',
          currency: 'EUR',
          starts_at: new Date(clock.now() - 3_600_000).toISOString(),
        },
      }),
      409,
      'contract_overlap',
    );
    const second = await recordContract(tenant.workspaceId, {
      allowances: { executions: 20 },
      starts_at: new Date(clock.now() - 1_000).toISOString(),
    });
    const listed = await json(
      await call(`/api/admin/contracts?workspace_id=${tenant.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    expect(listed.data.map((row: Record<string, string>) => [row.contract_id, row.status])).toEqual([
      [second.contract_id, 'in_force'],
      [first.contract_id, 'ended'],
    ]);
    const body = await json(await execute(tenant.token, executeBody()));
    expect(body.exact_bridge.contract_id).toBe(second.contract_id);
    expect(contractLine(body)).toMatchObject({ limit: 20, remaining: 19 });
  });

  it('refuses bad contracts with field errors', async () => {
    const tenant = await createTenant();
    for (const body of [
      { plan: 'x', currency: 'eur', starts_at: new Date().toISOString() },
      { plan: 'x', currency: 'EUR', starts_at: 'tomorrow' },
      { plan: 'x', currency: 'EUR', starts_at: new Date().toISOString(), allowances: { minutes: 5 } },
      { plan: 'x', currency: 'EUR', starts_at: new Date().toISOString(), allowances: { executions: -1 } },
      {
        plan: 'x',
        currency: 'EUR',
        starts_at: '2026-02-01T00:00:00Z',
        ends_at: '2026-01-01T00:00:00Z',
      },
    ]) {
      await expectProblem(
        await call('/api/admin/contracts', { token: ADMIN_TOKEN, body: { workspace_id: tenant.workspaceId, ...body } }),
        422,
        'validation_failed',
      );
    }
    await expectProblem(
      await call('/api/admin/contracts', {
        token: ADMIN_TOKEN,
        body: { workspace_id: 'ws_nothere', plan: 'x', currency: 'EUR', starts_at: new Date().toISOString() },
      }),
      404,
      'not_found',
    );
  });
});

describe('escrow credits', () => {
  it('are idempotent per reference, and refuse a reused reference with another amount', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId);
    const first = await credit(contract.escrow_id, 5000, 'INV-1');
    expect(first.balance_minor).toBe(5000);
    const again = await credit(contract.escrow_id, 5000, 'INV-1');
    expect(again).toEqual({ ...first, already_recorded: true });
    expect(first.already_recorded).toBe(false);
    expect(await balanceOf(contract.escrow_id)).toBe(5000);
    await expectProblem(
      await call(`/api/admin/escrows/${contract.escrow_id}/credits`, {
        token: ADMIN_TOKEN,
        body: { amount_minor: 7000, reference: 'INV-1' },
      }),
      409,
      'credit_reference_reused',
    );
    await expectProblem(
      await call(`/api/admin/escrows/${contract.escrow_id}/credits`, {
        token: ADMIN_TOKEN,
        body: { amount_minor: 0, reference: 'INV-2' },
      }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await call('/api/admin/escrows/esc_unknown/credits', {
        token: ADMIN_TOKEN,
        body: { amount_minor: 1, reference: 'x' },
      }),
      404,
      'not_found',
    );
    await expectBalancedBooks();
  });
});

describe('what an execution is charged', () => {
  it('within the allowance: free, and the envelope says what is left', async () => {
    const tenant = await createTenant({ monthly_quota: 50 });
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 3 },
      overage: { executions: { unit_price_minor: 2 } },
    });
    const body = await json(await execute(tenant.token, executeBody()));
    // The key's own quota line first, as before; then the contract's.
    expect(body.usage_applications[0]).toMatchObject({
      meter: 'executions',
      source: 'platform',
      limit: 50,
      remaining: 49,
    });
    expect(contractLine(body)).toEqual({
      meter: 'executions',
      quantity: 1,
      unit: 'execution',
      source: 'contract',
      limit: 3,
      remaining: 2,
      charged_minor: 0,
      currency: 'EUR',
    });
    expect(body.exact_bridge).toMatchObject({ contract_id: contract.contract_id, escrow_id: contract.escrow_id });
  });

  it('past the allowance: debits the escrow at the overage price, in the execution’s batch', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 1 },
      overage: { executions: { unit_price_minor: 7 } },
    });
    await credit(contract.escrow_id, 100);
    const free = await json(await execute(tenant.token, executeBody()));
    expect(contractLine(free)).toMatchObject({ remaining: 0, charged_minor: 0 });
    const paid = await json(await execute(tenant.token, executeBody()));
    expect(contractLine(paid)).toMatchObject({ remaining: 0, charged_minor: 7, currency: 'EUR' });
    expect(await balanceOf(contract.escrow_id)).toBe(93);
    const entries = await platformDb
      .prepare(
        'SELECT account, amount_minor, kind, meter, quantity, ref FROM ' +
          "ledger_entries WHERE kind = 'charge' AND ref = ?",
      )
      .bind(paid.output.execution_id)
      .all();
    expect(entries.results).toEqual([
      {
        account: contract.escrow_id,
        amount_minor: -7,
        kind: 'charge',
        meter: 'executions',
        quantity: 1,
        ref: paid.output.execution_id,
      },
      {
        account: 'platform:revenue:EUR',
        amount_minor: 7,
        kind: 'charge',
        meter: 'executions',
        quantity: 1,
        ref: paid.output.execution_id,
      },
    ]);
    await expectBalancedBooks();
  });

  it('a blocked meter past its allowance: 402 naming the meter, and nothing written', async () => {
    const tenant = await createTenant();
    await recordContract(tenant.workspaceId, { allowances: { executions: 1 } });
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
    const before = await writeFootprint(tenant.workspaceId, tenant.keyId);
    const problem = await expectProblem(await execute(tenant.token, executeBody()), 402, 'entitlement_exceeded');
    expect(problem.meter).toBe('executions');
    const after = await writeFootprint(tenant.workspaceId, tenant.keyId);
    expect(after).toEqual(before);
  });

  it('an overage the escrow cannot pay: 402, and nothing written', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId, { overage: { executions: { unit_price_minor: 5 } } });
    await credit(contract.escrow_id, 4);
    const before = await writeFootprint(tenant.workspaceId, tenant.keyId);
    const problem = await expectProblem(await execute(tenant.token, executeBody()), 402, 'entitlement_exceeded');
    expect(problem).toMatchObject({ meter: 'executions', contract_id: contract.contract_id });
    expect(await writeFootprint(tenant.workspaceId, tenant.keyId)).toEqual(before);
    expect(await balanceOf(contract.escrow_id)).toBe(4);
  });

  it('charges the lead an execution creates on the leads meter', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 10, leads: 0 },
      overage: { leads: { unit_price_minor: 50 } },
    });
    await credit(contract.escrow_id, 60);
    const body = await json(await execute(tenant.token, executeBody()));
    expect(body.output.result.lead_id ?? body.output.result.lead).toBeTruthy();
    expect(contractLine(body, 'leads')).toMatchObject({ quantity: 1, unit: 'lead', limit: 0, charged_minor: 50 });
    expect(await balanceOf(contract.escrow_id)).toBe(10);
    // A second lead cannot be paid for: refused, and its execution is not written either.
    await expectProblem(
      await execute(tenant.token, executeBody({ session_id: 'another' })),
      402,
      'entitlement_exceeded',
    );
  });

  it('charges two meters in one transfer, each balance after the one before', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId, {
      overage: { executions: { unit_price_minor: 2 }, leads: { unit_price_minor: 30 } },
    });
    await credit(contract.escrow_id, 100);
    const body = await json(await execute(tenant.token, executeBody()));
    expect(contractLine(body)).toMatchObject({ charged_minor: 2 });
    expect(contractLine(body, 'leads')).toMatchObject({ charged_minor: 30 });
    const escrowLegs = await platformDb
      .prepare(
        'SELECT meter, amount_minor, balance_after FROM ledger_entries WHERE account = ? AND kind = ? ORDER BY seq',
      )
      .bind(contract.escrow_id, 'charge')
      .all();
    expect(escrowLegs.results).toEqual([
      { meter: 'executions', amount_minor: -2, balance_after: 98 },
      { meter: 'leads', amount_minor: -30, balance_after: 68 },
    ]);
    await expectBalancedBooks();
  });

  it('without a contract in force, another tenant’s contract or escrow is refused, not carried', async () => {
    const owner = await createTenant();
    const theirs = await recordContract(owner.workspaceId);
    const tenant = await createTenant();
    const before = await writeFootprint(tenant.workspaceId, tenant.keyId);
    for (const exact_bridge of [
      { contract_id: theirs.contract_id, escrow_id: theirs.escrow_id },
      { contract_id: theirs.contract_id },
      { escrow_id: theirs.escrow_id },
    ]) {
      const problem = await expectProblem(
        await execute(tenant.token, executeBody({ exact_bridge })),
        422,
        'contract_mismatch',
      );
      expect(problem.errors[0].pointer).toMatch(/^\/exact_bridge\//);
    }
    expect(await writeFootprint(tenant.workspaceId, tenant.keyId)).toEqual(before);
  });

  it('refuses a request naming another contract or escrow with 422 contract_mismatch', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId);
    const problem = await expectProblem(
      await execute(tenant.token, executeBody({ exact_bridge: { contract_id: 'ctr_other' } })),
      422,
      'contract_mismatch',
    );
    expect(problem.errors[0].pointer).toBe('/exact_bridge/contract_id');
    await expectProblem(
      await execute(tenant.token, executeBody({ exact_bridge: { escrow_id: 'esc_other' } })),
      422,
      'contract_mismatch',
    );
    const named = await execute(
      tenant.token,
      executeBody({ exact_bridge: { contract_id: contract.contract_id, escrow_id: contract.escrow_id } }),
    );
    expect(named.status).toBe(200);
  });

  it('an idempotent replay answers the same charge', async () => {
    const tenant = await createTenant();
    const contract = await recordContract(tenant.workspaceId, { overage: { executions: { unit_price_minor: 3 } } });
    await credit(contract.escrow_id, 30);
    const body = executeBody({ idempotency_key: 'charge-once' });
    const first = await json(await execute(tenant.token, body));
    const replay = await json(await execute(tenant.token, body));
    expect(contractLine(first)).toMatchObject({ charged_minor: 3, remaining: 0, currency: 'EUR' });
    expect(replay).toEqual(first);
    expect(await balanceOf(contract.escrow_id)).toBe(27);
  });

  it('a retry of an answered request replays it after the allowance is used up (no 402 for a paid one)', async () => {
    const tenant = await createTenant();
    await recordContract(tenant.workspaceId, { allowances: { executions: 1 } });
    const body = executeBody({ idempotency_key: 'paid-once' });
    const first = await execute(tenant.token, body);
    expect(first.status).toBe(200);
    const firstText = await first.text();
    const retry = await execute(tenant.token, body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await retry.text()).toBe(firstText);
    // Another body under the same key is still told so, and a new request is refused as before.
    await expectProblem(
      await execute(tenant.token, { ...body, text: 'Something else.' }),
      422,
      'idempotency_key_reused',
    );
    await expectProblem(await execute(tenant.token, executeBody()), 402, 'entitlement_exceeded');
    await expectProblem(
      await execute(tenant.token, executeBody({ idempotency_key: 'never-answered' })),
      402,
      'entitlement_exceeded',
    );
  });

  it("a retry replays after the escrow ran dry, and after the key's monthly quota is used up", async () => {
    const tenant = await createTenant({ monthly_quota: 1 });
    const contract = await recordContract(tenant.workspaceId, { overage: { executions: { unit_price_minor: 5 } } });
    await credit(contract.escrow_id, 5);
    const body = executeBody({ idempotency_key: 'quota-and-funds' });
    const firstText = await (await execute(tenant.token, body)).text();
    expect(await balanceOf(contract.escrow_id)).toBe(0);
    const retry = await execute(tenant.token, body);
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(firstText);
    await expectProblem(await execute(tenant.token, executeBody()), 429, 'quota_exceeded');
    expect(await balanceOf(contract.escrow_id)).toBe(0);
  });

  it('50 concurrent charges against a small escrow: what it can pay succeed, and the books balance', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 1000 });
    const contract = await recordContract(tenant.workspaceId, { overage: { executions: { unit_price_minor: 10 } } });
    await credit(contract.escrow_id, 125);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => execute(tenant.token, executeBody({ text: `Charge number ${index}.` }))),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(12);
    expect(statuses.filter((status) => status === 402)).toHaveLength(38);
    expect(await balanceOf(contract.escrow_id)).toBe(5);
    const executions = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM executions WHERE workspace_id = ?')
      .bind(tenant.workspaceId)
      .first<{ n: number }>();
    expect(executions?.n).toBe(12);
    await expectBalancedBooks();
  });
});

describe('held leads', () => {
  // A visitor is not the customer (docs/design/billing.md): past the workspace's allowance their
  // message is answered as usual and its lead held, offered to nobody; an API caller still gets
  // 402. The sweep offers a held lead once there is room (a new month, a credit for the overage),
  // charging it then, once, with the books balanced.
  const db = () => workerDb();
  let ip = 0;
  const nextIp = () => `198.18.77.${++ip}`;

  const leadRow = (leadId: string) =>
    platformDb
      .prepare('SELECT held_at, wave, widen_at FROM leads WHERE id = ?')
      .bind(leadId)
      .first<{ held_at: number | null; wave: number; widen_at: number | null }>();
  const offersOf = async (leadId: string) =>
    (await platformDb.prepare('SELECT provider_id FROM lead_offers WHERE lead_id = ?').bind(leadId).all()).results;
  const historyOf = async (leadId: string) =>
    (
      await platformDb
        .prepare('SELECT note FROM lead_events WHERE lead_id = ? ORDER BY id')
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
      const entry = intake.data.find(
        (row: { lead: { lead_id: string } | null }) => row.lead?.lead_id === second.lead_id,
      );
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
      // Next month there is: offered, charged once, and a second sweep does nothing more (the sweep
      // is the platform's: it releases what the other ledger cases held too).
      const nextMonth = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 2);
      expect(await releaseHeldLeads(db(), nextMonth)).toBeGreaterThanOrEqual(1);
      expect(await releaseHeldLeads(db(), nextMonth)).toBe(0);
      const released = await leadRow(second.lead_id);
      expect(released).toMatchObject({ held_at: null, wave: 1 });
      expect(await offersOf(second.lead_id)).toEqual([{ provider_id: expert.providerId }]);
      expect((await historyOf(second.lead_id)).at(-1)).toContain('offered to the');
      const month = new Date(nextMonth).toISOString().slice(0, 7);
      const used = await platformDb
        .prepare("SELECT used FROM usage_meters WHERE meter = 'leads' AND period = ? AND key_id = ?")
        .bind(
          month,
          (await platformDb
            .prepare('SELECT id FROM contracts WHERE workspace_id = ?')
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
});
