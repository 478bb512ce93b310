import { beforeAll, describe, expect, it } from 'vitest';
import { decideRefund } from '../../worker/platform/billing/lead-fees';
import { balanceOf, credit, expectBalancedBooks } from './billing-helpers';
import { getPage } from './console-helpers';
import { ADMIN_TOKEN, call, createTenant, expectProblem, json, type Tenant, workerDb } from './helpers';
import { createActiveExpert, createChannel, sessionCall, visitorSays, type TestProvider } from './provider-helpers';
import { CLAIM_BOUNDS } from '../../worker/brain/lead-policy';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { REFUND_WINDOW_MS } from '../../worker/platform/billing/lead-fees';
import { eq } from 'drizzle-orm';
import { schema } from '../../worker/lib/db';
import type { AuditContext } from '../../worker/platform/audit';
import { claimOnShard, enterLeadOrganization } from '../../worker/platform/leads/claim';
import {
  finishOpenReservations,
  RESERVATION_GRACE_MS,
  reserveClaim,
} from '../../worker/platform/leads/claim-reservations';
import type { ProviderRow } from '../../worker/platform/providers';
import { platformDb } from './platform-db';

let ipCounter = 0;
const nextIp = () => `198.19.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

async function pricedDomain(price: number, currency?: string): Promise<string> {
  const domain = `fee-${Math.random().toString(36).slice(2, 9)}`;
  const response = await call('/api/admin/domains', {
    token: ADMIN_TOKEN,
    body: { domain, name: domain, lead_price_minor: price, ...(currency ? { lead_price_currency: currency } : {}) },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  // A price without a currency is in the platform's.
  expect(await json(response)).toMatchObject({ lead_price_minor: price, lead_price_currency: currency ?? 'EUR' });
  return domain;
}

const claim = (expert: TestProvider, leadId: string) =>
  sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' });
const release = (expert: TestProvider, leadId: string) =>
  sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/status`, { body: { status: 'open' } });
const credits = async (expert: TestProvider) => json(await sessionCall(expert.cookie, '/api/provider/credits'));
const askRefund = (expert: TestProvider, leadId: string, reason = 'spam') =>
  sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/refund-request`, { body: { reason } });
const decide = (requestId: string, decision: 'accept' | 'decline') =>
  call(`/api/admin/refund-requests/${requestId}/decision`, { token: ADMIN_TOKEN, body: { decision } });

describe('lead fees', () => {
  let domain: string;
  let tenant: Tenant;
  let channel: string;
  let expert: TestProvider;
  let other: TestProvider;
  const newLead = async () =>
    (await visitorSays(channel, { message: { text: `A lead to pay for ${Math.random()}` } }, nextIp()))
      .lead_id as string;

  beforeAll(async () => {
    domain = await pricedDomain(300);
    tenant = await createTenant({ scopes: ['execute', 'leads:write', 'channels:write', 'channels:read'] });
    channel = await createChannel(tenant.token, { domain });
    expert = await createActiveExpert({ domains: [domain] });
    other = await createActiveExpert({ domains: [domain] });
  });

  it('every approved expert has an escrow, shown to them and to the admin', async () => {
    const mine = await credits(expert);
    expect(mine).toMatchObject({ currency: 'EUR', balance_minor: 0, entries: [], refund_requests: [] });
    expect(mine.escrow_id).toMatch(/^esc_/);
    const view = await json(await call(`/api/admin/providers/${expert.providerId}`, { token: ADMIN_TOKEN }));
    expect(view.escrow_id).toBe(mine.escrow_id);
  });

  it('a claim without the funds is 402 insufficient_credits, and nothing of it is written', async () => {
    const leadId = await newLead();
    const problem = await expectProblem(await claim(expert, leadId), 402, 'insufficient_credits');
    expect(problem.lead_price_minor).toBe(300);
    const lead = await platformDb.prepare('SELECT status, claimed_by FROM leads WHERE id = ?').bind(leadId).first();
    expect(lead).toEqual({ status: 'open', claimed_by: null });
    const events = await platformDb
      .prepare("SELECT COUNT(*) AS n FROM lead_events WHERE lead_id = ? AND to_status = 'claimed'")
      .bind(leadId)
      .first<{ n: number }>();
    expect(events?.n).toBe(0);
  });

  it('a claim pays the fee in its batch, once per lead and expert; a release refunds nothing', async () => {
    const { escrow_id: escrowId } = await credits(expert);
    await credit(escrowId, 1000);
    const leadId = await newLead();
    // The fee is said before the claim: on the API, the list, and the button.
    const before = await json(await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}`));
    expect(before.claim_fee).toEqual({ amount_minor: 300, currency: 'EUR' });
    const page = await (await getPage(`/provider/workbench/leads/${leadId}`, expert.cookie)).text();
    expect(page).toContain('Claim this lead for €3.00');
    expect(await (await getPage('/provider/workbench', expert.cookie)).text()).toContain('fee €3.00');
    expect((await claim(expert, leadId)).status).toBe(200);
    expect(await balanceOf(escrowId)).toBe(700);
    // Released and claimed again by the same expert: not charged twice.
    expect((await release(expert, leadId)).status).toBe(200);
    moveClockForTests(CLAIM_BOUNDS.cooldownMs);
    expect((await claim(expert, leadId)).status).toBe(200);
    expect(await balanceOf(escrowId)).toBe(700);
    const mine = await credits(expert);
    expect(
      mine.entries.map((entry: { kind: string; amount_minor: number }) => [entry.kind, entry.amount_minor]),
    ).toEqual([
      ['lead_fee', -300],
      ['credit', 1000],
    ]);
    // Each fee names its lead as people know it, with the lead's status; the card shows them.
    const reference = (await json(await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}`)))
      .reference;
    expect(mine.entries[0].lead).toEqual({ reference, status: 'claimed' });
    expect(mine.entries[1].lead).toBeNull();
    const card = await (await getPage('/provider/workbench', expert.cookie)).text();
    expect(card).toContain(`>${reference}</a> (claimed)`);
    await expectBalancedBooks();
  });

  it('a free domain costs nothing to claim', async () => {
    const free = `free-${Math.random().toString(36).slice(2, 9)}`;
    expect((await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain: free, name: free } })).status).toBe(
      201,
    );
    const freeExpert = await createActiveExpert({ domains: [free] });
    const freeChannel = await createChannel(tenant.token, { domain: free });
    const lead = await visitorSays(freeChannel, { message: { text: 'Free lead please' } }, nextIp());
    expect((await claim(freeExpert, lead.lead_id)).status).toBe(200);
    expect((await credits(freeExpert)).entries).toEqual([]);
  });

  it('an admin changes a domain’s price; the next claim pays the new one', async () => {
    const changed = await call(`/api/admin/domains/${domain}`, {
      method: 'PATCH',
      token: ADMIN_TOKEN,
      body: { lead_price_minor: 150 },
    });
    expect((await json(changed)).lead_price_minor).toBe(150);
    const { escrow_id: escrowId } = await credits(other);
    await credit(escrowId, 150);
    expect((await claim(other, await newLead())).status).toBe(200);
    expect(await balanceOf(escrowId)).toBe(0);
    await call(`/api/admin/domains/${domain}`, {
      method: 'PATCH',
      token: ADMIN_TOKEN,
      body: { lead_price_minor: 300 },
    });
    await expectProblem(
      await call('/api/admin/domains/no-such-domain', { method: 'PATCH', token: ADMIN_TOKEN, body: { name: 'x' } }),
      404,
      'not_found',
    );
  });
});

describe('refunds of lead fees', () => {
  let expert: TestProvider;
  let escrowId: string;
  let leadId: string;
  let channel: string;

  beforeAll(async () => {
    const domain = await pricedDomain(400);
    const tenant = await createTenant({ scopes: ['execute', 'leads:write', 'channels:write', 'channels:read'] });
    channel = await createChannel(tenant.token, { domain });
    expert = await createActiveExpert({ domains: [domain] });
    escrowId = (await credits(expert)).escrow_id;
    await credit(escrowId, 1000);
    leadId = (await visitorSays(channel, { message: { text: 'Spam spam spam' } }, nextIp())).lead_id;
    expect((await claim(expert, leadId)).status).toBe(200);
  });

  it('are asked once per lead, and only for a lead whose fee was paid', async () => {
    const asked = await askRefund(expert, leadId);
    expect(asked.status, await asked.clone().text()).toBe(201);
    expect(await json(asked)).toMatchObject({ lead_id: leadId, amount_minor: 400, status: 'pending', reason: 'spam' });
    // The admin's list names the lead's reference and status, and the expert.
    const pending = await json(await call('/api/admin/refund-requests?status=pending', { token: ADMIN_TOKEN }));
    const listed = pending.data.find((entry: { lead_id: string }) => entry.lead_id === leadId);
    expect(listed).toMatchObject({ lead: { reference: expect.stringMatching(/^D-/), status: 'claimed' } });
    expect(listed.provider_name).toBeTruthy();
    await expectProblem(await askRefund(expert, leadId, 'unreachable'), 409, 'refund_not_allowed');
    const unpaid = (await visitorSays(channel, { message: { text: 'Not claimed by me' } }, nextIp())).lead_id;
    await expectProblem(await askRefund(expert, unpaid), 404, 'not_found');
    await expectProblem(
      await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/refund-request`, {
        body: { reason: 'did not like them' },
      }),
      422,
      'validation_failed',
    );
  });

  it('an accepted one credits the fee back once; a second decision is refused', async () => {
    const pending = await json(await call('/api/admin/refund-requests?status=pending', { token: ADMIN_TOKEN }));
    const request = pending.data.find((entry: { lead_id: string }) => entry.lead_id === leadId);
    expect(request).toBeTruthy();
    expect(await balanceOf(escrowId)).toBe(600);
    // The same admin in the same millisecond, twice: the worst case for the decision's marker.
    const db = workerDb();
    const audit = { actorKind: 'admin', actorId: 'admin', requestId: 'req_refund_race' } as const;
    const accept = { decision: 'accept', note: null } as const;
    const now = clock.now();
    const outcomes = await Promise.allSettled([
      decideRefund(db, audit, request.refund_request_id, accept, now),
      decideRefund(db, audit, request.refund_request_id, accept, now),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: 'invalid_transition' });
    expect(await balanceOf(escrowId)).toBe(1000);
    await expectProblem(await decide(request.refund_request_id, 'decline'), 409, 'invalid_transition');
    const mine = await credits(expert);
    expect(mine.refund_requests[0]).toMatchObject({ status: 'accepted', lead_id: leadId });
    expect(mine.entries[0]).toMatchObject({ kind: 'refund', amount_minor: 400 });
    await expectBalancedBooks();
  });

  it('are refused after 7 days', async () => {
    const late = (await visitorSays(channel, { message: { text: 'Another one' } }, nextIp())).lead_id;
    expect((await claim(expert, late)).status).toBe(200);
    moveClockForTests(REFUND_WINDOW_MS + 1);
    await expectProblem(await askRefund(expert, late), 409, 'refund_not_allowed');
  });

  it('are refused on a lead marked won, and a pending one is not accepted once it is won', async () => {
    await credit(escrowId, 2000);
    const move = (lead: string, to: string) =>
      sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead}/status`, { body: { status: to } });
    const status = async (lead: string, to: 'won') => {
      for (const step of ['contacted', 'qualified']) expect((await move(lead, step)).status).toBe(200);
      return move(lead, to);
    };
    const won = (await visitorSays(channel, { message: { text: 'A good customer' } }, nextIp())).lead_id;
    expect((await claim(expert, won)).status).toBe(200);
    expect((await status(won, 'won')).status).toBe(200);
    await expectProblem(await askRefund(expert, won, 'unreachable'), 409, 'refund_not_allowed');
    // Asked while open, won afterwards: the admin cannot accept it.
    const later = (await visitorSays(channel, { message: { text: 'Won after asking' } }, nextIp())).lead_id;
    expect((await claim(expert, later)).status).toBe(200);
    const asked = await json(await askRefund(expert, later, 'unreachable'));
    expect((await status(later, 'won')).status).toBe(200);
    const before = await balanceOf(escrowId);
    await expectProblem(await decide(asked.refund_request_id, 'accept'), 409, 'refund_not_allowed');
    expect(await balanceOf(escrowId)).toBe(before);
  });

  it('a declined one credits nothing', async () => {
    const lead = (await visitorSays(channel, { message: { text: 'Decline me' } }, nextIp())).lead_id;
    expect((await claim(expert, lead)).status).toBe(200);
    const before = await balanceOf(escrowId);
    const asked = await json(await askRefund(expert, lead, 'unreachable'));
    const declined = await json(await decide(asked.refund_request_id, 'decline'));
    expect(declined.status).toBe('declined');
    expect(await balanceOf(escrowId)).toBe(before);
  });
});

describe('a lead fee in another currency', () => {
  it('is refused whole with a clear problem when the expert’s credits are in another currency', async () => {
    const domain = await pricedDomain(500, 'USD');
    const tenant = await createTenant({ scopes: ['execute', 'leads:write', 'channels:write'] });
    const channel = await createChannel(tenant.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    const escrowId = (await credits(expert)).escrow_id as string;
    await credit(escrowId, 2_000);
    const leadId = (await visitorSays(channel, { message: { text: 'Priced in dollars' } }, nextIp())).lead_id as string;
    // The workbench shows the price in its own currency.
    expect((await json(await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}`))).claim_fee).toEqual(
      {
        amount_minor: 500,
        currency: 'USD',
      },
    );
    const problem = await expectProblem(await claim(expert, leadId), 422, 'currency_mismatch');
    expect(problem.detail).toContain('USD');
    expect(problem.detail).toContain('EUR');
    expect(problem).toMatchObject({ lead_price_minor: 500, lead_price_currency: 'USD' });
    expect(await platformDb.prepare('SELECT status FROM leads WHERE id = ?').bind(leadId).first()).toEqual({
      status: 'open',
    });
    expect(await balanceOf(escrowId)).toBe(2_000);
    // The catalog changes the price's currency: the same expert claims it.
    const changed = await call(`/api/admin/domains/${domain}`, {
      method: 'PATCH',
      token: ADMIN_TOKEN,
      body: { lead_price_minor: 500, lead_price_currency: 'EUR' },
    });
    expect(await json(changed)).toMatchObject({ lead_price_minor: 500, lead_price_currency: 'EUR' });
    expect((await claim(expert, leadId)).status).toBe(200);
    expect(await balanceOf(escrowId)).toBe(1_500);
    await expectBalancedBooks();
  });
});

describe('a claim across the directory and the lead’s shard', () => {
  let domain: string;
  let channel: string;
  let tenant: Tenant;
  beforeAll(async () => {
    domain = await pricedDomain(300);
    tenant = await createTenant({ scopes: ['execute', 'leads:write', 'channels:write', 'channels:read'] });
    channel = await createChannel(tenant.token, { domain });
  });
  const fundedExpert = async () => {
    const expert = await createActiveExpert({ domains: [domain] });
    const escrowId = (await credits(expert)).escrow_id as string;
    await credit(escrowId, 1_000);
    return { expert, escrowId };
  };
  const newLead = async () =>
    (await visitorSays(channel, { message: { text: `A lead across the line ${Math.random()}` } }, nextIp()))
      .lead_id as string;
  const providerRow = (providerId: string) =>
    workerDb().select().from(schema.providers).where(eq(schema.providers.id, providerId)).get() as Promise<ProviderRow>;
  const reservationOf = (changeId: string) =>
    platformDb.prepare('SELECT state FROM claim_reservations WHERE change_id = ?').bind(changeId).first('state');
  const claimsCounted = (providerId: string) =>
    platformDb
      .prepare('SELECT count FROM rate_limit_windows WHERE key_id = ?')
      .bind(`claims:${providerId}`)
      .first('count');
  const reserve = async (expert: TestProvider, leadId: string) =>
    reserveClaim(
      workerDb(),
      {
        provider: await providerRow(expert.providerId),
        leadId,
        workspaceId: tenant.workspaceId,
        price: { domain, minor: 300, currency: 'EUR' },
      },
      clock.now(),
    );

  it('of experts claiming one priced lead at once, one wins and pays; the others pay nothing', async () => {
    const experts = await Promise.all(Array.from({ length: 4 }, fundedExpert));
    const leadId = await newLead();
    const answers = await Promise.all(experts.map(({ expert }) => claim(expert, leadId)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    const balances = await Promise.all(experts.map(({ escrowId }) => balanceOf(escrowId)));
    expect(balances.sort()).toEqual([1_000, 1_000, 1_000, 700]);
    const open = await platformDb
      .prepare("SELECT COUNT(*) AS n FROM claim_reservations WHERE lead_id = ? AND state = 'reserved'")
      .bind(leadId)
      .first('n');
    expect(open).toBe(0);
    await expectBalancedBooks();
  });

  it('stopped after reserving: the sweep gives the hold and the claim back, the lead stays open', async () => {
    const { expert, escrowId } = await fundedExpert();
    const leadId = await newLead();
    const reservation = await reserve(expert, leadId);
    // Held, not paid: nothing is written to the ledger before the claim is won.
    expect(await balanceOf(escrowId)).toBe(1_000);
    expect(await claimsCounted(expert.providerId)).toBe(1);
    // The hold counts: of 1,000 with 300 held, two more leads at 300 can be claimed, not three.
    const others = await Promise.all(Array.from({ length: 3 }, newLead));
    const claims = [];
    for (const other of others) claims.push((await claim(expert, other)).status);
    expect(claims).toEqual([200, 200, 402]);
    expect(await balanceOf(escrowId)).toBe(400);
    // Not yet: a claim still under way is left alone.
    expect(await finishOpenReservations(workerDb(), clock.now())).toBe(0);
    moveClockForTests(RESERVATION_GRACE_MS + 1);
    expect(await finishOpenReservations(workerDb(), clock.now())).toBeGreaterThanOrEqual(1);
    expect(await reservationOf(reservation.changeId)).toBe('returned');
    expect(await balanceOf(escrowId)).toBe(400);
    expect(await claimsCounted(expert.providerId)).toBe(2);
    expect(await platformDb.prepare('SELECT status FROM leads WHERE id = ?').bind(leadId).first('status')).toBe('open');
    // The hold is gone, so its 300 pay for the lead itself now.
    expect((await claim(expert, leadId)).status).toBe(200);
    expect(await balanceOf(escrowId)).toBe(100);
    await expectProblem(await claim(expert, others[2]!), 402, 'insufficient_credits');
    await expectBalancedBooks();
  });

  it('a claimer that stopped after the shard took the claim: the sweep settles it, the fee stays paid', async () => {
    const { expert, escrowId } = await fundedExpert();
    const leadId = await newLead();
    const reservation = await reserve(expert, leadId);
    const db = workerDb();
    await enterLeadOrganization(db, leadId);
    const audit: AuditContext = { actorKind: 'user', actorId: expert.userId, requestId: 'req_test_claim' };
    expect(await claimOnShard(db, await providerRow(expert.providerId), reservation, 0, audit, clock.now())).toBe(true);
    moveClockForTests(RESERVATION_GRACE_MS + 1);
    await finishOpenReservations(workerDb(), clock.now());
    expect(await reservationOf(reservation.changeId)).toBe('settled');
    expect(await balanceOf(escrowId)).toBe(700);
    const provider = await providerRow(expert.providerId);
    expect(provider.contactReveals).toBe(1);
    expect(provider.lastClaimedAt).not.toBeNull();
    expect((await json(await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}`))).status).toBe(
      'claimed',
    );
    await expectBalancedBooks();
  });
});
