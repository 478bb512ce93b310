/**
 * A card top-up's start (docs/design/billing.md#card-top-ups): the payment is recorded `open`, then a Stripe
 * Checkout Session is made for it (hosted: no card data ever reaches the platform) and the payer
 * is sent there. Nothing is credited here or on the way back: only the webhook credits.
 */
import { desc, eq } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Services } from '../../lib/services';
import { type PaymentsConfig, stripeOf } from './config';

const { payments } = schema;

/** The escrow a top-up is for, as its owner's page knows it. */
export interface TopUpTarget {
  escrowId: string;
  currency: string;
  workspaceId: string | null;
  providerId: string | null;
}

/** Where Stripe sends the payer back: the page that shows the payment (success) or the form (cancel). */
export interface TopUpReturn {
  successUrl: string;
  cancelUrl: string;
}

/** Whether `amountMinor` is a top-up this deployment takes in `currency`; 422 naming the field if not. */
export function checkTopUp(config: PaymentsConfig, currency: string, amountMinor: number): void {
  const limits = config.limits.get(currency);
  const major = (minor: number) => (minor / 100).toFixed(2);
  if (!limits)
    throw new ApiError('validation_failed', `Card top-ups are not taken in ${currency}: pay by bank transfer.`, {
      errors: [{ pointer: '/amount', detail: `Not taken in ${currency}.` }],
    });
  if (!Number.isInteger(amountMinor) || amountMinor < limits.minMinor || amountMinor > limits.maxMinor)
    throw new ApiError(
      'validation_failed',
      `A top-up is ${major(limits.minMinor)} to ${major(limits.maxMinor)} ${currency}.`,
      { errors: [{ pointer: '/amount', detail: `From ${major(limits.minMinor)} to ${major(limits.maxMinor)}.` }] },
    );
}

/**
 * Records an open payment and makes its Checkout Session (mode `payment`, the escrow and its
 * owner in the metadata, the payment's id as the idempotency key); answers the page to send the
 * payer to.
 */
export async function startTopUp(
  services: Services,
  config: PaymentsConfig,
  target: TopUpTarget,
  payer: { userId: string; email: string },
  amountMinor: number,
  back: TopUpReturn,
): Promise<{ paymentId: string; url: string }> {
  checkTopUp(config, target.currency, amountMinor);
  const now = services.clock.now();
  const paymentId = newId('pay', now);
  await services.db.insert(payments).values({
    id: paymentId,
    escrowId: target.escrowId,
    workspaceId: target.workspaceId,
    providerId: target.providerId,
    userId: payer.userId,
    amountMinor,
    currency: target.currency,
    status: 'open',
    createdAt: now,
    updatedAt: now,
  });
  const metadata: Record<string, string> = {
    payment_id: paymentId,
    escrow_id: target.escrowId,
    ...(target.workspaceId ? { workspace_id: target.workspaceId } : {}),
    ...(target.providerId ? { provider_id: target.providerId } : {}),
  };
  const session = await (await stripeOf(config)).checkout.sessions.create(
    {
      mode: 'payment',
      client_reference_id: paymentId,
      customer_email: payer.email,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: target.currency.toLowerCase(),
            unit_amount: amountMinor,
            product_data: { name: 'Prepaid balance top-up' },
          },
        },
      ],
      metadata,
      payment_intent_data: { metadata },
      success_url: back.successUrl.replace('{PAYMENT}', paymentId),
      cancel_url: back.cancelUrl,
    },
    { idempotencyKey: `topup:${paymentId}` },
  );
  await services.db
    .update(payments)
    .set({ checkoutSessionId: session.id, updatedAt: now })
    .where(eq(payments.id, paymentId));
  if (!session.url) throw new ApiError('service_unavailable', 'Stripe gave no payment page; try again.');
  return { paymentId, url: session.url };
}

/** A payment as its payer's pages list it. */
export interface PaymentView {
  payment_id: string;
  status: string;
  amount_minor: number;
  refunded_minor: number;
  currency: string;
  created_at: number;
  paid_at: number | null;
  receipt_url: string | null;
}

/** An escrow's payments, newest first (the Billing page, the workbench's credits). */
export async function escrowPayments(db: Database, escrowId: string, limit = 20): Promise<PaymentView[]> {
  const rows = await db
    .select()
    .from(payments)
    .where(eq(payments.escrowId, escrowId))
    .orderBy(desc(payments.id))
    .limit(limit);
  return rows.map((row) => ({
    payment_id: row.id,
    status: row.status,
    amount_minor: row.amountMinor,
    refunded_minor: row.refundedMinor,
    currency: row.currency,
    created_at: row.createdAt,
    paid_at: row.paidAt,
    receipt_url: row.receiptUrl,
  }));
}
