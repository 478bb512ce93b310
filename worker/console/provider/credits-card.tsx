/** @jsxImportSource hono/jsx */
/**
 * The expert's credits on the workbench (docs/design/billing.md): the balance lead fees are paid
 * from, the latest entries (credits, fees, refunds), and a way to ask for a fee back within 7 days.
 */
import type { LedgerEntryView, RefundRequestView } from '../../platform/billing';
import { DataTable, StatusPill, when } from '../shared/layout';
import { formatMoney } from '../shared/money';
import { ConfirmingNotice, PaymentsTable, TopUpForm } from '../shared/top-up';
import type { CreditsTopUp } from './top-up';

/** What the card shows: providerCredits's answer. */
export interface Credits {
  escrow_id: string;
  currency: string;
  balance_minor: number;
  entries: LedgerEntryView[];
  refund_requests: RefundRequestView[];
}

const KIND_LABELS: Record<LedgerEntryView['kind'], string> = {
  credit: 'Credits added',
  lead_fee: 'Lead fee',
  refund: 'Fee refunded',
  charge: 'Charge',
  carry: 'Balance carried over',
};

/** How long a fee may be asked back (the platform's refund window). */
const REFUND_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** The credits card. */
export function CreditsCard({ credits, topUp, now }: { credits: Credits; topUp: CreditsTopUp; now: number }) {
  const asked = new Set(credits.refund_requests.map((request) => request.lead_id));
  const refundable = (entry: LedgerEntryView) =>
    entry.kind === 'lead_fee' && !asked.has(entry.ref) && now - Date.parse(entry.created_at) <= REFUND_WINDOW_MS;
  return (
    <section class="card" id="credits" aria-labelledby="credits-title">
      <h2 id="credits-title">Credits</h2>
      <p class="balance money">{formatMoney(credits.balance_minor, credits.currency)}</p>
      <p class="muted">
        Claiming a lead in a priced domain takes its fee from here, once per lead. A lead that was spam or unreachable
        can be asked back within 7 days.
      </p>
      <ConfirmingNotice
        payment={topUp.payments.find((payment) => payment.payment_id === topUp.returned)}
        href={`/provider/workbench?payment=${topUp.returned ?? ''}#credits`}
      />
      <TopUpForm offer={topUp.offer} reference={credits.escrow_id} />
      <PaymentsTable payments={topUp.payments} />
      {credits.entries.length === 0 ? (
        <p class="muted">No credits or fees yet.</p>
      ) : (
        <DataTable
          rows={credits.entries}
          rowId={(entry) => entry.entry_id}
          columns={[
            {
              header: 'What',
              rowHeader: true,
              cell: (entry) => (
                <>
                  {KIND_LABELS[entry.kind]}
                  {entry.kind === 'lead_fee' || entry.kind === 'refund' ? (
                    <>
                      {' · '}
                      <a href={`/provider/workbench/leads/${entry.ref}`}>{entry.lead?.reference ?? 'the lead'}</a>
                      {entry.lead ? ` (${entry.lead.status})` : null}
                    </>
                  ) : null}
                  <br />
                  <small class="muted">{when(entry.created_at)}</small>
                </>
              ),
            },
            { header: 'Amount', class: 'money', cell: (entry) => formatMoney(entry.amount_minor, entry.currency) },
            {
              header: 'Actions',
              headerHidden: true,
              cell: (entry) =>
                refundable(entry) ? (
                  <form method="post" action={`/provider/workbench/leads/${entry.ref}/refund-request`} class="inline">
                    <label class="sr-only" for={`reason-${entry.entry_id}`}>
                      Why
                    </label>
                    <select id={`reason-${entry.entry_id}`} name="reason">
                      <option value="spam">Spam</option>
                      <option value="unreachable">Unreachable</option>
                    </select>{' '}
                    <button type="submit" class="button small nowrap">
                      Ask for it back
                    </button>
                  </form>
                ) : null,
            },
          ]}
        />
      )}
      {credits.refund_requests.length > 0 ? (
        <>
          <h3>Refund requests</h3>
          <ul class="plain">
            {credits.refund_requests.map((request) => (
              <li>
                <StatusPill status={request.status} /> {formatMoney(request.amount_minor, request.currency)} for{' '}
                <a href={`/provider/workbench/leads/${request.lead_id}`}>{request.lead?.reference ?? 'a lead'}</a>
                {request.lead ? ` (${request.lead.status})` : null} ({request.reason}), {when(request.created_at)}
                {request.decision_note ? <span class="muted"> · {request.decision_note}</span> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
