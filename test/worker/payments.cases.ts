import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installRemotes } from './agent-helpers';
import { balanceOf, expectBalancedBooks, recordContract } from './billing-helpers';
import { getPage, postForm, signUpOwner, signUpPlatformAdmin } from './console-helpers';
import { execute, executeBody, expectProblem, issueKey, json } from './helpers';
import { createActiveExpert } from './provider-helpers';
import { deliver, installStripe, ownerTopUp, pay, sessions, stripeEvent } from './stripe-helpers';
import { platformDb } from './platform-db';

async function ownerWithContract(terms: Parameters<typeof recordContract>[1] = {}) {
  const owner = await signUpOwner();
  const contract = await recordContract(owner.workspaceId, terms);
  return { owner, escrowId: contract.escrow_id as string };
}

const completed = (sessionId: string, id?: string) =>
  stripeEvent('checkout.session.completed', { id: sessionId, object: 'checkout.session' }, id);

const eventsOf = (stripeEventId: string) =>
  platformDb.prepare('SELECT outcome, detail FROM payment_events WHERE stripe_event_id = ?').bind(stripeEventId).all();

const creditsTo = async (escrowId: string) =>
  (
    await platformDb
      .prepare("SELECT count(*) AS n FROM transfers WHERE to_account = ? AND kind = 'credit'")
      .bind(escrowId)
      .first<{ n: number }>()
  )?.n;

describe('card top-ups through Stripe', () => {
  beforeEach(() => {
    installRemotes();
    installStripe();
  });
  afterEach(() => vi.restoreAllMocks());

  it('an owner pays 50.00 EUR: nothing on the way back, one credit from the webhook, a receipt', async () => {
    const { owner, escrowId } = await ownerWithContract();
    const session = await ownerTopUp(owner, '50.00');
    expect(session).toMatchObject({ amount_total: 5000, currency: 'eur' });
    expect(session.metadata).toMatchObject({ escrow_id: escrowId, workspace_id: owner.workspaceId });
    const paymentId = session.metadata.payment_id!;
    // Back from Stripe's page before the webhook: confirming, and no credit.
    const back = await getPage(`/integrations/usage?ws=${owner.workspaceId}&payment=${paymentId}`, owner.cookie);
    expect(await back.text()).toContain('Confirming your payment of €50.00');
    expect(await balanceOf(escrowId)).toBe(0);
    pay(session.id);
    const answer = await deliver(completed(session.id));
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(await json(answer)).toMatchObject({ received: true, outcome: 'credited' });
    expect(await balanceOf(escrowId)).toBe(5000);
    const transfer = await platformDb
      .prepare("SELECT amount_minor, ref FROM transfers WHERE to_account = ? AND kind = 'credit'")
      .bind(escrowId)
      .all();
    expect(transfer.results).toEqual([{ amount_minor: 5000, ref: `stripe:${session.id}` }]);
    const page = await (
      await getPage(`/integrations/usage?ws=${owner.workspaceId}&payment=${paymentId}`, owner.cookie)
    ).text();
    expect(page).toContain(`Payment ${paymentId} received`);
    expect(page).toContain('Paid');
    // Stripe's receipt page, linked beside the payment.
    expect(page).toContain(`href="https://pay.stripe.test/receipts/${session.id}"`);
    const receipt = await platformDb
      .prepare("SELECT subject FROM emails WHERE kind = 'notice' AND subject LIKE 'Receipt:%' AND subject LIKE ?")
      .bind(`%${paymentId}%`)
      .first<{ subject: string }>();
    expect(receipt?.subject).toBe(`Receipt: 50.00 EUR added to your balance (${paymentId}, Stripe ${session.id})`);
    await expectBalancedBooks();
  });

  it('the same event 20 times at once, and the session’s other events, credit once', async () => {
    const { owner, escrowId } = await ownerWithContract();
    const session = await ownerTopUp(owner, '25');
    pay(session.id);
    const event = completed(session.id);
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(event)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    // Another event about the same session (Stripe may send several), and the first one again later.
    await deliver(stripeEvent('checkout.session.async_payment_succeeded', { id: session.id }));
    expect(await json(await deliver(event))).toMatchObject({ outcome: 'duplicate' });
    expect(await balanceOf(escrowId)).toBe(2500);
    expect(await creditsTo(escrowId)).toBe(1);
    expect((await eventsOf(event.id)).results).toHaveLength(1);
    await expectBalancedBooks();
  });

  it('a bad signature and an old timestamp are refused (400) and recorded; nothing is credited', async () => {
    const { owner, escrowId } = await ownerWithContract();
    const session = await ownerTopUp(owner, '10');
    pay(session.id);
    const forged = await deliver(completed(session.id), {
      signature: `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
    });
    await expectProblem(forged, 400, 'invalid_signature');
    const old = await deliver(completed(session.id), { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect((await expectProblem(old, 400, 'invalid_signature')).detail).toContain('timestamp too old');
    const refused = await platformDb
      .prepare(
        "SELECT detail FROM payment_events WHERE type = 'unverified' AND outcome = 'refused' ORDER BY id DESC LIMIT 2",
      )
      .all();
    expect(refused.results.map((row) => row.detail)).toEqual(['timestamp too old', 'signature does not match']);
    expect(await balanceOf(escrowId)).toBe(0);
  });

  it('an unknown session, tampered metadata, another escrow, currency or amount: nothing credited', async () => {
    const { owner, escrowId } = await ownerWithContract();
    const other = await ownerWithContract();
    const cases: Array<[string, (session: ReturnType<typeof pay>) => void, string]> = [
      ['another workspace’s escrow', (s) => Object.assign(s.metadata, { escrow_id: other.escrowId }), 'names another'],
      [
        'another workspace',
        (s) => Object.assign(s.metadata, { workspace_id: other.owner.workspaceId }),
        'names another',
      ],
      ['another currency', (s) => Object.assign(s, { currency: 'usd' }), 'paid in USD'],
      ['another amount', (s) => Object.assign(s, { amount_total: 1 }), 'paid 1'],
    ];
    for (const [name, tamper, detail] of cases) {
      const session = await ownerTopUp(owner, '10');
      tamper(pay(session.id));
      const event = completed(session.id);
      expect(await json(await deliver(event)), name).toMatchObject({ outcome: 'refused' });
      expect((await eventsOf(event.id)).results[0]?.detail, name).toContain(detail);
    }
    const unknown = completed('cs_test_nobody');
    sessions.set('cs_test_nobody', { ...pay((await ownerTopUp(owner, '10')).id), id: 'cs_test_nobody' });
    expect(await json(await deliver(unknown))).toMatchObject({ outcome: 'refused' });
    expect(await balanceOf(escrowId)).toBe(0);
    expect(await balanceOf(other.escrowId)).toBe(0);
  });

  it('a refund is taken back once; one the escrow no longer holds is refused and the admins told', async () => {
    const admin = await signUpPlatformAdmin({ enrolled: true });
    const { owner, escrowId } = await ownerWithContract({ overage: { executions: { unit_price_minor: 1000 } } });
    const session = await ownerTopUp(owner, '50');
    pay(session.id);
    await deliver(completed(session.id));
    const charge = (refunded: number) =>
      stripeEvent('charge.refunded', {
        id: `ch_${session.id}`,
        object: 'charge',
        payment_intent: `pi_${session.id}`,
        amount_refunded: refunded,
      });
    const first = charge(2000);
    expect(await json(await deliver(first))).toMatchObject({ outcome: 'refunded' });
    expect(await json(await deliver(first))).toMatchObject({ outcome: 'duplicate' });
    expect(await balanceOf(escrowId)).toBe(3000);
    // Spent: three executions at 10.00 each take the rest.
    const key = await issueKey(owner.workspaceId, { scopes: ['execute'] });
    for (let index = 0; index < 3; index++) expect((await execute(key.token, executeBody())).status).toBe(200);
    expect(await balanceOf(escrowId)).toBe(0);
    expect(await json(await deliver(charge(5000)))).toMatchObject({ outcome: 'refused' });
    expect(await balanceOf(escrowId)).toBe(0);
    const alert = await platformDb
      .prepare("SELECT count(*) AS n FROM emails WHERE subject LIKE 'Refund of 30.00 EUR not taken back%'")
      .first<{ n: number }>();
    expect(alert?.n).toBeGreaterThan(0);
    // The admin's reconciliation names the refund Stripe made that the ledger could not take back.
    const billing = await (await getPage('/admin/billing', admin.cookie)).text();
    expect(billing).toContain(session.metadata.payment_id);
    expect(billing).toContain('refunds differ');
    await expectBalancedBooks();
  });

  it('a dispute holds the escrow: its charges are refused, the admins told, and one of them lifts it', async () => {
    const admin = await signUpPlatformAdmin({ enrolled: true });
    const { owner, escrowId } = await ownerWithContract({ overage: { executions: { unit_price_minor: 100 } } });
    const session = await ownerTopUp(owner, '20');
    pay(session.id);
    await deliver(completed(session.id));
    const key = await issueKey(owner.workspaceId, { scopes: ['execute'] });
    expect((await execute(key.token, executeBody())).status).toBe(200);
    const dispute = stripeEvent('charge.dispute.created', {
      id: 'dp_1',
      object: 'dispute',
      payment_intent: `pi_${session.id}`,
      amount: 2000,
    });
    expect(await json(await deliver(dispute))).toMatchObject({ outcome: 'held' });
    await expectProblem(await execute(key.token, executeBody()), 402, 'entitlement_exceeded');
    expect(await balanceOf(escrowId)).toBe(1900);
    const alert = await platformDb
      .prepare("SELECT count(*) AS n FROM emails WHERE subject LIKE 'A card payment is disputed%'")
      .first<{ n: number }>();
    expect(alert?.n).toBeGreaterThan(0);
    // The database itself refuses a held escrow's charge, whoever writes it.
    await expect(
      platformDb
        .prepare(
          `INSERT INTO transfers (id, kind, currency, from_account, to_account, amount_minor, ref, created_at)
          VALUES ('trf_held_1', 'charge', 'EUR', ?, 'platform:revenue:EUR', 1, 'x', 1)`,
        )
        .bind(escrowId)
        .run(),
    ).rejects.toThrow(/escrow_funds_left/);
    // Settled with Stripe: the admin lifts the hold on the billing page, and charges go through again.
    expect(await (await getPage('/admin/billing', admin.cookie)).text()).toContain(escrowId);
    const lifted = await postForm(`/admin/billing/escrows/${escrowId}/lift-hold`, {}, { cookie: admin.cookie });
    expect(lifted.status).toBe(303);
    expect((await execute(key.token, executeBody())).status).toBe(200);
    expect(await balanceOf(escrowId)).toBe(1800);
    expect((await postForm(`/admin/billing/escrows/${escrowId}/lift-hold`, {}, { cookie: admin.cookie })).status).toBe(
      404,
    );
    await expectBalancedBooks();
  });

  it('an expert buys credits the same way: their escrow, their receipt, the workbench lists it', async () => {
    const expert = await createActiveExpert();
    const response = await postForm(
      '/provider/workbench/credits/top-up',
      { amount: '20,00' },
      { cookie: expert.cookie },
    );
    expect(response.status, await response.clone().text()).toBe(303);
    const session = sessions.get(response.headers.get('Location')!.split('/pay/')[1]!)!;
    const escrow = await platformDb
      .prepare("SELECT id FROM escrows WHERE owner_kind = 'provider' AND owner_id = ?")
      .bind(expert.providerId)
      .first<{ id: string }>();
    expect(session.metadata).toMatchObject({ escrow_id: escrow!.id, provider_id: expert.providerId });
    const before = await balanceOf(escrow!.id);
    pay(session.id);
    expect(await json(await deliver(completed(session.id)))).toMatchObject({ outcome: 'credited' });
    expect(await balanceOf(escrow!.id)).toBe(before + 2000);
    const page = await (
      await getPage(`/provider/workbench?payment=${session.metadata.payment_id}`, expert.cookie)
    ).text();
    expect(page).toContain(`Payment ${session.metadata.payment_id} received`);
  });

  it('the admin pages through every payment, 50 at a time', async () => {
    const admin = await signUpPlatformAdmin({ enrolled: true });
    const { escrowId } = await ownerWithContract();
    const id = (index: number) => `pay_zzzz_${String(index).padStart(3, '0')}`;
    await platformDb.batch(
      Array.from({ length: 55 }, (_, index) =>
        platformDb
          .prepare(
            `INSERT INTO payments (id, escrow_id, user_id, amount_minor, currency, status, created_at, updated_at)
            VALUES (?, ?, 'usr_x', 500, 'EUR', 'expired', 1, 1)`,
          )
          .bind(id(index), escrowId),
      ),
    );
    const first = await (await getPage('/admin/billing', admin.cookie)).text();
    expect(first).toContain(id(54));
    expect(first).toContain(id(5));
    expect(first).not.toContain(id(4));
    expect(first).toContain(`payments_before=${id(5)}`);
    const older = await (await getPage(`/admin/billing?payments_before=${id(5)}`, admin.cookie)).text();
    expect(older).toContain(id(4));
    expect(older).toContain(id(0));
    expect(older).not.toContain(id(5));
  });

  it('a top-up outside the bounds is refused on the page, and no session is made', async () => {
    const { owner } = await ownerWithContract();
    const refused = await postForm(
      `/integrations/usage/top-up?ws=${owner.workspaceId}`,
      { amount: '1.00' },
      { cookie: owner.cookie },
    );
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('From 5.00 to 5000.00.');
    const nonsense = await postForm(
      `/integrations/usage/top-up?ws=${owner.workspaceId}`,
      { amount: 'ten euros' },
      { cookie: owner.cookie },
    );
    expect(nonsense.status).toBe(422);
    expect(sessions.size).toBe(0);
  });
});
