/**
 * The ledger's books (docs/design/billing.md): an agent's answer on the agent_calls meter, and a
 * randomised run of credits, executions, claims with fees and refund decisions, then of card
 * top-ups, card refunds (some of money already spent) and claims, after which every transfer and
 * every currency sums to zero, each balance is its entries' sum, and no escrow ever went below zero.
 * Halfway through, the organisation moves to the other shard under traffic: nothing answered is
 * lost and nothing is charged twice.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActiveRobot, installRemotes, jsonResponse, newDomain, remotes } from './agent-helpers';
import { balanceOf, credit, expectBalancedBooks, recordContract } from './billing-helpers';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, json } from './helpers';
import { postForm } from './console-helpers';
import { createActiveExpert, createChannel, SITE, sessionCall } from './provider-helpers';
import { deliver, installStripe, pay, sessions, stripeEvent } from './stripe-helpers';
import { moveOrganization, shardOf } from './move-helpers';

describe('an agent’s answer under a contract', () => {
  beforeEach(() => installRemotes());
  afterEach(() => vi.restoreAllMocks());

  it('is counted on agent_calls and its overage charged', async () => {
    const domain = await newDomain('books');
    const endpoint = 'https://robot-books.example.com/execute';
    await createActiveRobot(endpoint, { domain, name: 'Books robot' });
    remotes.set(endpoint, () => jsonResponse({ output: { ok: true }, reply: 'Done.' }));
    const tenant = await createTenant({ scopes: ['execute', 'agents:invoke'] });
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 10, agent_calls: 0 },
      overage: { agent_calls: { unit_price_minor: 5 } },
    });
    await credit(contract.escrow_id, 20);
    const envelope = await json(await execute(tenant.token, executeBody({ domain, text: 'Reconcile my ledger' })));
    expect(envelope.output.result.handled_by.kind).toBe('robot');
    expect(envelope.usage_applications).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ meter: 'executions', source: 'contract', charged_minor: 0, remaining: 9 }),
        expect.objectContaining({ meter: 'agent_calls', source: 'contract', unit: 'agent_call', charged_minor: 5 }),
      ]),
    );
    expect(await balanceOf(contract.escrow_id)).toBe(15);
  });
});

/** A small deterministic generator, so a failing run can be replayed (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('a randomised run', () => {
  afterEach(() => vi.restoreAllMocks());
  it('leaves balanced books and no escrow below zero', { timeout: 60_000 }, async () => {
    const next = random(20261126);
    const domain = `books-${Math.random().toString(36).slice(2, 8)}`;
    await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain, lead_price_minor: 40 } });
    const tenant = await createTenant({
      scopes: ['execute', 'leads:write', 'channels:write'],
      rate_limit_per_minute: 1000,
    });
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 3, leads: 2 },
      overage: { executions: { unit_price_minor: 7 }, leads: { unit_price_minor: 11 } },
    });
    const channel = await createChannel(tenant.token, { domain });
    const experts = [await createActiveExpert({ domains: [domain] }), await createActiveExpert({ domains: [domain] })];
    const escrows = await Promise.all(
      experts.map(async (expert) => (await json(await sessionCall(expert.cookie, '/api/provider/credits'))).escrow_id),
    );
    const openLeads: string[] = [];
    const paidLeads: Array<{ expert: number; lead: string }> = [];
    const outcomes: Record<string, number> = {};
    const count = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);
    // Executions the API answered, by id: every one must still be there after the move.
    const answered: string[] = [];
    const run = async (text: string, session: string) => {
      const response = await execute(tenant.token, executeBody({ text, session_id: session }));
      if (response.status === 200) answered.push((await json(response)).output.execution_id);
      return response;
    };
    for (let step = 0; step < 60; step++) {
      if (step === 30) {
        // Halfway, the organisation moves to the other shard while executions keep coming: each is
        // answered before the freeze or after the switch, or refused (503) in between, never half-done.
        const from = await shardOf(tenant.organizationId);
        await moveOrganization(tenant.organizationId, async (report) => {
          count(`execute ${(await run(`During ${report.step}`, `m${step}`)).status} (moving)`);
        });
        expect(await shardOf(tenant.organizationId)).toBe(1 - from);
        count('moved');
      }
      const roll = next();
      if (roll < 0.15) {
        await credit(contract.escrow_id, Math.ceil(next() * 30));
        count('credit workspace');
      } else if (roll < 0.25) {
        await credit(escrows[Math.floor(next() * 2)]!, Math.ceil(next() * 80));
        count('credit expert');
      } else if (roll < 0.55) {
        const response = await run(`Step ${step}`, `s${step}`);
        count(`execute ${response.status}`);
      } else if (roll < 0.7) {
        // A visitor's message is an execution too: under the contract it may be refused (402).
        const response = await call(`/api/public/widget/${channel}/intake`, {
          body: { message: { text: `Lead ${step}` } },
          headers: { Origin: SITE, 'CF-Connecting-IP': `198.18.77.${step + 1}` },
        });
        const lead = await json(response);
        if (lead.lead_id) openLeads.push(lead.lead_id);
        count(`visitor ${response.status}`);
      } else if (roll < 0.88 && openLeads.length > 0) {
        const expert = Math.floor(next() * 2);
        const lead = openLeads.shift()!;
        const claimed = await sessionCall(experts[expert]!.cookie, `/api/provider/workbench/leads/${lead}/claim`, {
          method: 'POST',
        });
        if (claimed.status === 200) paidLeads.push({ expert, lead });
        count(`claim ${claimed.status}`);
      } else if (paidLeads.length > 0) {
        const { expert, lead } = paidLeads.shift()!;
        const asked = await sessionCall(
          experts[expert]!.cookie,
          `/api/provider/workbench/leads/${lead}/refund-request`,
          {
            body: { reason: 'spam' },
          },
        );
        if (asked.status === 201) {
          const { refund_request_id: id } = await json(asked);
          const decision = next() < 0.5 ? 'accept' : 'decline';
          await call(`/api/admin/refund-requests/${id}/decision`, { token: ADMIN_TOKEN, body: { decision } });
          count(`refund ${decision}`);
        }
      }
    }
    // The run did each kind of thing, refusals included (this seed: 29 executions, 402s among them,
    // 4 claims, one refused for funds, 3 refunds).
    expect(Object.keys(outcomes), JSON.stringify(outcomes)).toEqual(
      expect.arrayContaining(['execute 200', 'execute 402', 'claim 200', 'claim 402', 'refund accept']),
    );
    await expectBalancedBooks();
    expect(outcomes['execute 503 (moving)'], JSON.stringify(outcomes)).toBeGreaterThan(0);
    // Nothing lost: every answered execution is on the organisation's shard now. Nothing charged
    // twice: no charge is on both shards' ledgers.
    const shard = [env.DB_0, env.DB_1][await shardOf(tenant.organizationId)]!;
    const found = await shard
      .prepare('SELECT count(*) AS n FROM executions WHERE id IN (SELECT value FROM json_each(?))')
      .bind(JSON.stringify(answered))
      .first<number>('n');
    expect(found).toBe(answered.length);
    const charged = (database: D1Database) =>
      database
        .prepare("SELECT id FROM transfers WHERE kind = 'charge' AND workspace_id = ?")
        .bind(tenant.workspaceId)
        .all<{ id: string }>()
        .then((result) => result.results.map((row) => row.id));
    // A charge's id is its execution's and its meter's: the same charge twice would be the same id.
    const charges = [...(await charged(env.DB_0)), ...(await charged(env.DB_1))];
    expect(charges.length).toBeGreaterThan(0);
    expect(new Set(charges).size).toBe(charges.length);

    // Money in by card: the experts top up, Stripe refunds some of it (some already spent on fees),
    // deliveries come twice, and claims go on between them.
    installRemotes();
    installStripe();
    const paid: Array<{ expert: number; session: string; amount: number; refunded: number }> = [];
    const cards: Record<string, number> = {};
    const tally = (what: string) => (cards[what] = (cards[what] ?? 0) + 1);
    for (let step = 0; step < 30; step++) {
      const roll = next();
      if (roll < 0.35) {
        const expert = Math.floor(next() * 2);
        const amount = 500 + Math.floor(next() * 20) * 25;
        const form = await postForm(
          '/provider/workbench/credits/top-up',
          { amount: (amount / 100).toFixed(2) },
          { cookie: experts[expert]!.cookie },
        );
        const session = sessions.get(form.headers.get('Location')!.split('/pay/')[1]!)!;
        pay(session.id);
        const event = stripeEvent('checkout.session.completed', { id: session.id });
        for (const _ of next() < 0.3 ? [1, 2] : [1]) tally(`top-up ${(await json(await deliver(event))).outcome}`);
        paid.push({ expert, session: session.id, amount, refunded: 0 });
      } else if (roll < 0.55 && paid.length > 0) {
        const payment = paid[Math.floor(next() * paid.length)]!;
        const total = Math.min(payment.amount, payment.refunded + Math.ceil(next() * payment.amount));
        const answer = await json(
          await deliver(
            stripeEvent('charge.refunded', {
              id: `ch_${payment.session}`,
              object: 'charge',
              payment_intent: `pi_${payment.session}`,
              amount_refunded: total,
            }),
          ),
        );
        if (answer.outcome === 'refunded') payment.refunded = total;
        tally(`card refund ${answer.outcome}`);
      } else {
        const response = await call(`/api/public/widget/${channel}/intake`, {
          body: { message: { text: `Card lead ${step}` } },
          headers: { Origin: SITE, 'CF-Connecting-IP': `198.18.78.${step + 1}` },
        });
        const lead = (await json(response)).lead_id;
        if (!lead) continue;
        const claimed = await sessionCall(
          experts[Math.floor(next() * 2)]!.cookie,
          `/api/provider/workbench/leads/${lead}/claim`,
          {
            method: 'POST',
          },
        );
        tally(`card claim ${claimed.status}`);
      }
    }
    expect(Object.keys(cards), JSON.stringify(cards)).toEqual(
      expect.arrayContaining(['top-up credited', 'top-up duplicate', 'card refund refunded']),
    );
    await expectBalancedBooks();
  });
});
