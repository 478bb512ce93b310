/**
 * Money in (docs/design/billing.md#card-top-ups): card top-ups of escrows through Stripe Checkout, and every
 * event Stripe sent about them. A payment's credit is a ledger transfer (billing.ts) keyed by its
 * Checkout Session, so however often Stripe tells us, it credits once.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { PAYMENT_STATUSES } from '../worker/vocabulary';

const createdAt = () => integer('created_at').notNull();

/** One top-up: asked for in the console, paid on Stripe's page, credited by its webhook. */
export const payments = sqliteTable(
  'payments',
  {
    id: text('id').primaryKey(),
    escrowId: text('escrow_id').notNull(),
    /** Whose escrow: the workspace's (its contract's) or the provider's. */
    workspaceId: text('workspace_id'),
    providerId: text('provider_id'),
    /** Who asked for it (a console user): the receipt goes to them. */
    userId: text('user_id').notNull(),
    amountMinor: integer('amount_minor').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: PAYMENT_STATUSES }).notNull(),
    checkoutSessionId: text('checkout_session_id'),
    paymentIntentId: text('payment_intent_id'),
    /** What Stripe refunded of it so far, and what the ledger took back for it. */
    refundedMinor: integer('refunded_minor').notNull().default(0),
    receiptUrl: text('receipt_url'),
    paidAt: integer('paid_at'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    // The webhook finds a payment by its session, and a refund or a dispute by its payment intent.
    uniqueIndex('payments_session_idx').on(table.checkoutSessionId),
    index('payments_intent_idx').on(table.paymentIntentId),
    // An escrow's payments, newest first (the Billing page, the workbench's credits).
    index('payments_escrow_idx').on(table.escrowId, table.id),
  ],
);

/**
 * Every webhook delivery from Stripe, verified or not, with what was done: each Stripe event is
 * recorded once (a retry or a duplicate finds it), and a refused one says why.
 */
export const paymentEvents = sqliteTable(
  'payment_events',
  {
    id: text('id').primaryKey(),
    /** Stripe's event id (`evt_…`); null for a delivery whose signature failed. */
    stripeEventId: text('stripe_event_id'),
    type: text('type').notNull(),
    paymentId: text('payment_id'),
    /** `credited`, `refunded`, `held`, `ignored`, or `refused`. */
    outcome: text('outcome').notNull(),
    /** Why it was refused or ignored, in a few words (never the payload). */
    detail: text('detail'),
    /** The amount the event moved in the ledger, when it did. */
    amountMinor: integer('amount_minor'),
    currency: text('currency'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('payment_events_stripe_idx').on(table.stripeEventId),
    // The admin's reconciliation: events per day.
    index('payment_events_time_idx').on(table.createdAt),
  ],
);
