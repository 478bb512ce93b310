/** @jsxImportSource hono/jsx */
/**
 * Card top-ups in the console (docs/design/billing.md#card-top-ups), for the owner's Usage page and the
 * expert's credits: the form that sends the payer to Stripe's hosted page, the payments made, and
 * a notice while a payment is being confirmed. Without Stripe, how to pay by bank transfer.
 */
import type { PaymentView } from '../../platform/payments';
import { Field } from './forms';
import { DataTable } from './layout';
import { formatMoney } from './money';

const STATUS_WORDS: Record<string, string> = {
  open: 'Not paid',
  paid: 'Paid',
  expired: 'Expired',
  disputed: 'Disputed',
};

/** Whether the console offers cards, and the bounds of a top-up in the escrow's currency. */
export interface TopUpOffer {
  action: string;
  currency: string;
  minMinor: number;
  maxMinor: number;
  /** What was typed, and why it was refused. */
  value?: string;
  error?: string;
}

/** The top-up form, or the bank transfer's instructions when the deployment takes no cards. */
export function TopUpForm({ offer, reference }: { offer: TopUpOffer | null; reference: string }) {
  if (!offer)
    return (
      <p class="muted">
        To add funds, pay by bank transfer naming <code>{reference}</code>; the platform’s operator records it here.
      </p>
    );
  const major = (minor: number) => (minor / 100).toFixed(2);
  return (
    <form method="post" action={offer.action} class="stack" novalidate>
      <Field
        name="amount"
        id="top-up-amount"
        label={`Top up by card (${offer.currency})`}
        value={offer.value ?? ''}
        placeholder={major(offer.minMinor * 10)}
        autocomplete="off"
        required
        errors={offer.error ? { amount: offer.error } : undefined}
        hint={
          `${major(offer.minMinor)} to ${major(offer.maxMinor)} ${offer.currency}, on Stripe’s secure page. ` +
          'The balance grows once Stripe confirms the payment.'
        }
      />
      <div>
        <button type="submit" class="button primary">
          Pay by card
        </button>
      </div>
    </form>
  );
}

/** The payment the payer just came back from, while Stripe has not confirmed it. */
export function ConfirmingNotice({ payment, href }: { payment: PaymentView | undefined; href: string }) {
  if (!payment) return null;
  if (payment.status === 'paid')
    return (
      <div class="alert success" role="status">
        Payment {payment.payment_id} received: {formatMoney(payment.amount_minor, payment.currency)} added to the
        balance.
      </div>
    );
  if (payment.status !== 'open') return null;
  return (
    <div class="alert" role="status" data-confirming={payment.payment_id}>
      Confirming your payment of {formatMoney(payment.amount_minor, payment.currency)} with Stripe… This page shows the
      balance once it is confirmed; <a href={href}>reload</a> in a few seconds.
    </div>
  );
}

/** The escrow's card payments, newest first. */
export function PaymentsTable({ payments }: { payments: PaymentView[] }) {
  if (payments.length === 0) return null;
  return (
    <>
      <h3>Card payments</h3>
      <DataTable
        rows={payments}
        rowId={(payment) => payment.payment_id}
        columns={[
          {
            header: 'When',
            rowHeader: true,
            cell: (payment) =>
              new Date(payment.paid_at ?? payment.created_at).toISOString().slice(0, 16).replace('T', ' '),
          },
          { header: 'Amount', class: 'money', cell: (p) => formatMoney(p.amount_minor, p.currency) },
          {
            header: 'State',
            cell: (p) =>
              p.refunded_minor > 0
                ? `Refunded ${formatMoney(p.refunded_minor, p.currency)}`
                : (STATUS_WORDS[p.status] ?? p.status),
          },
          { header: 'Reference', cell: (p) => <code>{p.payment_id}</code> },
          {
            header: 'Receipt',
            cell: (p) =>
              p.receipt_url ? (
                <a href={p.receipt_url} target="_blank" rel="noopener noreferrer">
                  Stripe’s receipt
                </a>
              ) : (
                '—'
              ),
          },
        ]}
      />
    </>
  );
}
