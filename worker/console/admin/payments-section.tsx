/** @jsxImportSource hono/jsx */
/**
 * The admin's card payments (docs/design/billing.md#card-top-ups): the latest, each with the
 * ledger transfer it made, and per day what Stripe's events said against what the ledger holds.
 */
import type { AdminPaymentRow, HeldEscrow, ReconciliationRow } from '../../platform/payments';
import { DataTable, when } from '../shared/layout';
import { formatMoney } from '../shared/money';

/** The section of the billing page. */
export function PaymentsSection({
  latest,
  olderFrom,
  reconciliation,
  held,
}: {
  latest: AdminPaymentRow[];
  /** The cursor of the next page of older payments, if any. */
  olderFrom: string | null;
  reconciliation: ReconciliationRow[];
  held: HeldEscrow[];
}) {
  return (
    <section class="card" aria-labelledby="payments-title">
      <h2 id="payments-title">Card payments</h2>
      {held.length > 0 ? (
        <div class="alert" role="status">
          <p>
            Held while a card payment is disputed: no charge or lead fee is taken from these. Lift a hold once the
            dispute is settled with Stripe.
          </p>
          <ul>
            {held.map((escrow) => (
              <li>
                <code>{escrow.escrow_id}</code> ({escrow.owner_kind} {escrow.owner_id}), held{' '}
                {when(new Date(escrow.held_at).toISOString())}{' '}
                <form method="post" action={`/admin/billing/escrows/${escrow.escrow_id}/lift-hold`} class="inline">
                  <button type="submit" class="button small">
                    Lift the hold
                  </button>
                </form>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {latest.length === 0 ? (
        <p class="muted">No card payment yet (or no STRIPE_SECRET_KEY: owners pay by bank transfer).</p>
      ) : (
        <DataTable
          rows={latest}
          rowId={(payment) => payment.payment_id}
          columns={[
            {
              header: 'Payment',
              rowHeader: true,
              cell: (p) => (
                <>
                  <code>{p.payment_id}</code>
                  <br />
                  <small class="muted">
                    {p.owner} · {when(new Date(p.created_at).toISOString())}
                  </small>
                </>
              ),
            },
            { header: 'Amount', class: 'money', cell: (p) => formatMoney(p.amount_minor, p.currency) },
            {
              header: 'State',
              cell: (p) =>
                p.refunded_minor > 0 ? `${p.status}, ${formatMoney(p.refunded_minor, p.currency)} refunded` : p.status,
            },
            { header: 'Ledger transfer', cell: (p) => (p.transfer_id ? <code>{p.transfer_id}</code> : '—') },
          ]}
        />
      )}
      {olderFrom ? (
        <p>
          <a href={`/admin/billing?payments_before=${olderFrom}#payments-title`}>Older payments</a>
        </p>
      ) : null}
      <h3>Reconciliation, last 14 days</h3>
      {reconciliation.length === 0 ? (
        <p class="muted">Nothing to reconcile.</p>
      ) : (
        <DataTable
          compact
          rows={reconciliation}
          columns={[
            { header: 'Day', rowHeader: true, cell: (r) => `${r.day} ${r.currency}` },
            {
              header: 'Stripe credited',
              class: 'money',
              cell: (r) => formatMoney(r.processor_credits_minor, r.currency),
            },
            { header: 'Ledger credits', class: 'money', cell: (r) => formatMoney(r.ledger_credits_minor, r.currency) },
            {
              header: 'Stripe refunded',
              class: 'money',
              cell: (r) => formatMoney(r.processor_refunds_minor, r.currency),
            },
            { header: 'Ledger refunds', class: 'money', cell: (r) => formatMoney(r.ledger_refunds_minor, r.currency) },
            { header: 'Difference', cell: (r) => (r.difference ? <strong>{r.difference}</strong> : 'none') },
          ]}
        />
      )}
    </section>
  );
}
