/**
 * Stripe's webhook (docs/design/billing.md#card-top-ups). The signature is checked on the raw body with the
 * SDK (5 minutes' tolerance); each Stripe event is recorded once, with what was done. A paid
 * Checkout Session credits its escrow once: the amount and currency are read again from Stripe,
 * never taken from the event, and must match the payment the console recorded; the credit is a
 * ledger transfer keyed by the session, so retries, duplicates and events out of order credit
 * once. A refund takes the refunded amount back (refused, and the admins told, when the escrow no
 * longer holds it); a dispute holds the escrow's charges and tells the admins. Anything that does
 * not match is recorded and refused, never credited.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type Stripe from 'stripe';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Services } from '../../lib/services';
import { auditInsertWhere, type AuditContext } from '../audit';
import { fundingAccount, LEDGER_REFUSALS, ledgerRefused, transferInsert, transferWritten } from '../billing';
import { noticeInserts, platformAdmins } from '../email';
import { type PaymentsConfig, stripeOf } from './config';
import { enterBy, readEveryShard } from '../shards';

const { payments, paymentEvents, escrows, transfers } = schema;

/** What the webhook did with one delivery, as its answer and its record say. */
export type PaymentOutcome = 'credited' | 'refunded' | 'held' | 'expired' | 'ignored' | 'refused' | 'duplicate';

type PaymentRow = typeof payments.$inferSelect;

/** The record of one verified event, for the batch of what it did (once per Stripe event id). */
function eventRecord(
  db: Database,
  event: { id: string; type: string },
  outcome: Exclude<PaymentOutcome, 'duplicate'> | SQL,
  now: number,
  extra: { paymentId?: string; detail?: string | SQL; amountMinor?: number | SQL; currency?: string } = {},
): BatchItem<'sqlite'> {
  return db.run(sql`INSERT INTO ${paymentEvents} (id, stripe_event_id, type, payment_id, outcome, detail, amount_minor,
      currency, created_at)
    VALUES (${newId('pev', now)}, ${event.id}, ${event.type}, ${extra.paymentId ?? null}, ${outcome},
      ${extra.detail ?? null}, ${extra.amountMinor ?? null}, ${extra.currency ?? null}, ${now})
    ON CONFLICT (stripe_event_id) DO NOTHING`);
}

/**
 * An email to every platform admin (`admins`: platformAdmins, read before the batch), in the batch
 * of what it tells of.
 */
function adminAlert(db: Database, admins: SQL, subject: string, linkOrigin: string, now: number) {
  return noticeInserts(
    db,
    {
      recipients: admins,
      workspaceId: '',
      subject,
      linkOrigin,
      linkPath: '/admin/billing',
    },
    now,
  );
}

const STRIPE_ACTOR = (services: Services): AuditContext => ({
  actorKind: 'system',
  actorId: 'stripe',
  requestId: services.requestId,
  traceId: services.traceId,
});

/**
 * One delivery of Stripe's webhook: verified, recorded, acted on. Answers what was done; a
 * delivery whose signature fails is recorded and answered 400.
 */
export async function receiveStripeWebhook(
  services: Services,
  config: PaymentsConfig,
  delivery: { rawBody: string; signature: string | undefined; linkOrigin: string },
): Promise<{ outcome: PaymentOutcome; event_id: string }> {
  const { rawBody, signature, linkOrigin } = delivery;
  const { db } = services;
  const now = services.clock.now();
  const stripe = await stripeOf(config);
  let event: Stripe.Event;
  try {
    event = await stripe.webhooks.constructEventAsync(rawBody, signature ?? '', config.webhookSecret, 300);
  } catch (error) {
    const detail = /tolerance/i.test(String(error)) ? 'timestamp too old' : 'signature does not match';
    await db.insert(paymentEvents).values({
      id: newId('pev', now),
      stripeEventId: null,
      type: 'unverified',
      outcome: 'refused',
      detail,
      createdAt: now,
    });
    throw new ApiError('invalid_signature', `The Stripe-Signature header was refused: ${detail}.`);
  }
  // Recorded beside its payment, on whichever database that is.
  const seen = await readEveryShard(db, paymentEvents, (each) =>
    each
      .select({ outcome: paymentEvents.outcome })
      .from(paymentEvents)
      .where(eq(paymentEvents.stripeEventId, event.id))
      .get(),
  );
  if (seen.some((row) => row)) return { outcome: 'duplicate', event_id: event.id };
  const outcome = await act({ services, linkOrigin, standIn: config.apiUrl }, stripe, event, now);
  return { outcome, event_id: event.id };
}

/** A delivery's services, and the console origin its emails link to. */
interface Delivery {
  services: Services;
  linkOrigin: string;
  /** STRIPE_API_URL, when a local stand-in plays Stripe. */
  standIn: string | undefined;
}

async function act(delivery: Delivery, stripe: Stripe, event: Stripe.Event, now: number): Promise<PaymentOutcome> {
  const { db } = delivery.services;
  const record = (outcome: Exclude<PaymentOutcome, 'duplicate'>, extra?: Parameters<typeof eventRecord>[4]) =>
    db.batch([eventRecord(db, event, outcome, now, extra)]).then(() => outcome);
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return credit(delivery, stripe, event, event.data.object.id, now);
    case 'checkout.session.expired': {
      const payment = await paymentBy(db, 'session', event.data.object.id);
      if (!payment) return record('refused', { detail: 'no payment has this session' });
      await db.batch([
        db
          .update(payments)
          .set({ status: 'expired', updatedAt: now })
          .where(sql`${payments.id} = ${payment.id} AND ${payments.status} = 'open'`),
        eventRecord(db, event, 'expired', now, { paymentId: payment.id }),
      ]);
      return 'expired';
    }
    case 'charge.refunded':
      return refund(delivery, event, event.data.object, now);
    case 'charge.dispute.created':
      return hold(delivery, event, event.data.object, now);
    default:
      return record('ignored', { detail: 'a type the platform does not act on' });
  }
}

/**
 * The payment a Stripe object names, from whichever database has it (a workspace's top-up is on
 * its organisation's shard, an expert's in the directory); a workspace's organisation is entered,
 * so what the delivery then writes goes beside the payment.
 */
async function paymentBy(db: Database, by: 'session' | 'intent', id: string): Promise<PaymentRow | undefined> {
  const column = by === 'session' ? payments.checkoutSessionId : payments.paymentIntentId;
  const found = await readEveryShard(db, payments, (each) =>
    each
      .select({ payment: payments, ownerKind: escrows.ownerKind, ownerId: escrows.ownerId })
      .from(payments)
      .innerJoin(escrows, eq(escrows.id, payments.escrowId))
      .where(eq(column, id))
      .get(),
  );
  const row = found.find((each) => each);
  if (row?.ownerKind === 'workspace') await enterBy(db, 'workspace', row.ownerId);
  return row?.payment;
}

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** A paid session: re-read from Stripe, matched against its payment, credited once. */
async function credit(delivery: Delivery, stripe: Stripe, event: Stripe.Event, sessionId: string, now: number) {
  const { services, linkOrigin } = delivery;
  const { db } = services;
  const refuse = (detail: string, paymentId?: string) =>
    db.batch([eventRecord(db, event, 'refused', now, { detail, paymentId })]).then(() => 'refused' as const);
  const session = await stripe.checkout.sessions.retrieve(sessionId);
  if (session.payment_status !== 'paid')
    return db
      .batch([eventRecord(db, event, 'ignored', now, { detail: 'not paid yet' })])
      .then(() => 'ignored' as const);
  const payment = await paymentBy(db, 'session', session.id);
  if (!payment) return refuse('no payment has this session');
  const metadata = session.metadata ?? {};
  const escrow = await db.select().from(escrows).where(eq(escrows.id, payment.escrowId)).get();
  if (!escrow) return refuse('unknown escrow', payment.id);
  const owner = escrow.ownerKind === 'workspace' ? { workspace_id: escrow.ownerId } : { provider_id: escrow.ownerId };
  const matches =
    metadata.payment_id === payment.id &&
    metadata.escrow_id === escrow.id &&
    Object.entries(owner).every(([key, value]) => metadata[key] === value);
  if (!matches) return refuse('the session names another payment, escrow or owner', payment.id);
  const currency = (session.currency ?? '').toUpperCase();
  if (currency !== escrow.currency || currency !== payment.currency)
    return refuse(`paid in ${currency || 'no currency'}, the escrow is in ${escrow.currency}`, payment.id);
  if (session.amount_total !== payment.amountMinor)
    return refuse(`paid ${session.amount_total}, the payment asked ${payment.amountMinor}`, payment.id);
  const receiptUrl = await receiptOf(stripe, idOf(session.payment_intent), delivery.standIn);
  const transferId = newId('trf', now);
  const reference = `stripe:${session.id}`;
  const firstTime = sql`NOT EXISTS (SELECT 1 FROM ${transfers} WHERE to_account = ${escrow.id} AND kind = 'credit'
    AND ref = ${reference})`;
  const amount = payment.amountMinor;
  const major = `${(amount / 100).toFixed(2)} ${currency}`;
  await db.batch([
    transferInsert(
      db,
      {
        kind: 'credit',
        currency,
        from: fundingAccount(currency),
        to: escrow.id,
        amount,
        ref: reference,
        workspaceId: escrow.ownerKind === 'workspace' ? escrow.ownerId : null,
        transferId,
        when: firstTime,
      },
      now,
    ),
    db
      .update(payments)
      .set({ status: 'paid', paymentIntentId: idOf(session.payment_intent), receiptUrl, paidAt: now, updatedAt: now })
      .where(sql`${payments.id} = ${payment.id} AND ${transferWritten(transferId)}`),
    db
      .update(escrows)
      .set({ lowBalanceNotified: false })
      .where(sql`${escrows.id} = ${escrow.id} AND ${transferWritten(transferId)}`),
    auditInsertWhere(
      db,
      STRIPE_ACTOR(services),
      {
        action: 'escrow.credited',
        targetId: escrow.id,
        workspaceId: escrow.ownerKind === 'workspace' ? escrow.ownerId : null,
        metadata: { amount_minor: amount, reference, payment_id: payment.id },
      },
      transferWritten(transferId),
      now,
    ),
    // The payer's receipt: our reference and Stripe's.
    noticeInserts(
      db,
      {
        recipients: sql`SELECT ${payment.userId} AS user_id`,
        workspaceId: payment.workspaceId ?? '',
        subject: `Receipt: ${major} added to your balance (${payment.id}, Stripe ${session.id})`,
        linkOrigin,
        linkPath: payment.providerId ? '/provider/workbench#credits' : `/integrations/usage?ws=${payment.workspaceId}`,
        when: transferWritten(transferId),
      },
      now,
    ),
    // Credited by this delivery, or by an earlier event of the same session: the record says which.
    eventRecord(db, event, sql`CASE WHEN ${transferWritten(transferId)} THEN 'credited' ELSE 'ignored' END`, now, {
      paymentId: payment.id,
      amountMinor: sql`CASE WHEN ${transferWritten(transferId)} THEN ${amount} END`,
      currency,
      detail: sql`CASE WHEN ${transferWritten(transferId)} THEN NULL ELSE 'already credited for its session' END`,
    }),
  ]);
  return 'credited' as const;
}

/** Stripe's receipt page of a payment (its charge's), or null: a link is a courtesy, never a reason to wait. */
async function receiptOf(
  stripe: Stripe,
  paymentIntentId: string | null,
  /** Locally, the stand-in's own (http) origin is Stripe's. */
  standIn: string | undefined,
): Promise<string | null> {
  if (!paymentIntentId) return null;
  try {
    const intent = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] });
    const charge = intent.latest_charge;
    const url = typeof charge === 'object' ? charge?.receipt_url : null;
    const trusted = url && (url.startsWith('https://') || (standIn && url.startsWith(`${new URL(standIn).origin}/`)));
    return trusted ? url : null;
  } catch {
    return null;
  }
}

/** A refund on a paid payment's charge: the newly refunded amount leaves the escrow, once. */
async function refund({ services, linkOrigin }: Delivery, event: Stripe.Event, charge: Stripe.Charge, now: number) {
  const { db } = services;
  const intent = idOf(charge.payment_intent);
  const payment = intent ? await paymentBy(db, 'intent', intent) : undefined;
  if (!payment)
    return db
      .batch([eventRecord(db, event, 'refused', now, { detail: 'no payment has this charge' })])
      .then(() => 'refused' as const);
  const total = charge.amount_refunded;
  const delta = total - payment.refundedMinor;
  if (delta <= 0)
    return db
      .batch([eventRecord(db, event, 'ignored', now, { paymentId: payment.id, detail: 'refund already recorded' })])
      .then(() => 'ignored' as const);
  const currency = payment.currency;
  const transferId = newId('trf', now);
  try {
    await db.batch([
      // A credit reversed: out of the escrow, back to the outside money it came from.
      transferInsert(
        db,
        {
          kind: 'credit',
          currency,
          from: payment.escrowId,
          to: fundingAccount(currency),
          amount: delta,
          ref: `stripe:${charge.id}:refunded:${total}`,
          workspaceId: payment.workspaceId,
          transferId,
        },
        now,
      ),
      db
        .update(payments)
        .set({ refundedMinor: total, updatedAt: now })
        .where(sql`${payments.id} = ${payment.id} AND ${payments.refundedMinor} = ${payment.refundedMinor}`),
      eventRecord(db, event, 'refunded', now, { paymentId: payment.id, amountMinor: delta, currency }),
    ]);
    return 'refunded' as const;
  } catch (error) {
    if (!ledgerRefused(error, LEDGER_REFUSALS.fundsLeft)) throw error;
    const major = `${(delta / 100).toFixed(2)} ${currency}`;
    await db.batch([
      eventRecord(db, event, 'refused', now, {
        paymentId: payment.id,
        detail: 'the escrow no longer holds the refunded amount',
        amountMinor: delta,
        currency,
      }),
      adminAlert(
        db,
        await platformAdmins(db),
        `Refund of ${major} not taken back: ${payment.escrowId} no longer holds it (${payment.id})`,
        linkOrigin,
        now,
      ),
    ]);
    return 'refused' as const;
  }
}

/** A dispute: the escrow's further charges are held, and the admins told. */
async function hold({ services, linkOrigin }: Delivery, event: Stripe.Event, dispute: Stripe.Dispute, now: number) {
  const { db } = services;
  const intent = idOf(dispute.payment_intent);
  const payment = intent ? await paymentBy(db, 'intent', intent) : undefined;
  if (!payment)
    return db
      .batch([eventRecord(db, event, 'refused', now, { detail: 'no payment has this charge' })])
      .then(() => 'refused' as const);
  await db.batch([
    db.update(escrows).set({ heldAt: now }).where(sql`${escrows.id} = ${payment.escrowId} AND held_at IS NULL`),
    db.update(payments).set({ status: 'disputed', updatedAt: now }).where(eq(payments.id, payment.id)),
    eventRecord(db, event, 'held', now, {
      paymentId: payment.id,
      amountMinor: dispute.amount,
      currency: payment.currency,
    }),
    adminAlert(
      db,
      await platformAdmins(db),
      `A card payment is disputed: ${payment.escrowId} is held (${payment.id})`,
      linkOrigin,
      now,
    ),
  ]);
  return 'held' as const;
}
