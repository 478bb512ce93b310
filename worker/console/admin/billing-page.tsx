/** @jsxImportSource hono/jsx */
/**
 * /admin/billing (docs/design/billing.md): a workspace's contracts and escrows, recording a
 * contract, crediting any escrow, and deciding the experts' refund requests.
 */
import type { ContractView, RefundRequestView } from '../../platform/billing';
import type { SessionUser } from '../../platform/identity';
import { Field } from '../shared/forms';
import { ConsoleLayout, DataTable, StatusPill, when } from '../shared/layout';
import { formatCount, formatMoney } from '../shared/money';
import { adminNav } from './pages';
import { PaymentsSection } from './payments-section';

export interface BillingPageProps {
  user: SessionUser;
  workspaceId: string | null;
  contracts: Array<ContractView & { balance_minor: number }>;
  refunds: RefundRequestView[];
  payments: Parameters<typeof PaymentsSection>[0];
  notice?: string;
  error?: string;
  errors?: Record<string, string>;
}

const terms = (contract: ContractView) =>
  (['executions', 'leads', 'agent_calls'] as const)
    .filter((meter) => contract.allowances[meter] !== undefined || contract.overage[meter] !== undefined)
    .map((meter) => {
      const price = contract.overage[meter]?.unit_price_minor;
      return `${formatCount(contract.allowances[meter] ?? 0)} ${meter.replace('_', ' ')}${
        price === undefined ? ' (blocked past it)' : `, then ${formatMoney(price, contract.currency)} each`
      }`;
    })
    .join('; ') || 'nothing metered';

/** The billing page. */
export function BillingPage(props: BillingPageProps) {
  const { workspaceId } = props;
  return (
    <ConsoleLayout
      title="Billing"
      user={props.user}
      nav={adminNav('billing')}
      notice={props.notice}
      error={props.error}
    >
      <h1>Billing</h1>
      <form method="get" action="/admin/billing" class="card stack" aria-label="Find a workspace">
        <Field name="workspace" label="Workspace id" value={workspaceId} placeholder="ws_…" required />
        <div>
          <button type="submit" class="button">
            Show its contracts
          </button>
        </div>
      </form>
      {workspaceId ? (
        <section class="card" aria-labelledby="contracts-title">
          <h2 id="contracts-title">Contracts of {workspaceId}</h2>
          {props.contracts.length === 0 ? (
            <p class="muted">No contract: the workspace runs on its keys’ quotas only.</p>
          ) : (
            <DataTable
              rows={props.contracts}
              rowId={(contract) => contract.contract_id}
              columns={[
                {
                  header: 'Contract',
                  rowHeader: true,
                  cell: (contract) => (
                    <>
                      {contract.plan}{' '}
                      <StatusPill status={contract.status === 'in_force' ? 'active' : contract.status} />
                      <br />
                      <small class="muted">
                        {contract.contract_id} · from {when(contract.starts_at)}
                        {contract.ends_at ? ` to ${when(contract.ends_at)}` : ''}
                      </small>
                    </>
                  ),
                },
                { header: 'Monthly terms', cell: terms },
                {
                  header: 'Escrow',
                  cell: (contract) => (
                    <>
                      <span class="money">{formatMoney(contract.balance_minor, contract.currency)}</span>
                      <br />
                      <small class="muted">{contract.escrow_id}</small>
                    </>
                  ),
                },
                {
                  header: 'Actions',
                  headerHidden: true,
                  cell: (contract) =>
                    contract.status === 'ended' ? null : (
                      <form
                        method="post"
                        action={`/admin/billing/contracts/${contract.contract_id}/end`}
                        class="inline"
                      >
                        <button type="submit" class="button small danger">
                          End it
                        </button>
                      </form>
                    ),
                },
              ]}
            />
          )}
          <h3>Record a contract</h3>
          <form method="post" action={`/admin/billing/contracts?workspace=${workspaceId}`} class="stack">
            <Field name="plan" label="Plan" errors={props.errors} required />
            <Field name="currency" label="Currency" value="EUR" errors={props.errors} required maxlength={3} />
            <Field name="starts_at" label="Starts (UTC)" type="datetime-local" errors={props.errors} required />
            <Field
              name="reference"
              label="Customer reference"
              errors={props.errors}
              hint="Its id in your billing system."
            />
            <Field
              name="allowance_executions"
              label="Executions included a month"
              type="number"
              errors={props.errors}
            />
            <Field
              name="price_executions"
              label="Price of each execution past it (minor units)"
              type="number"
              errors={props.errors}
              hint="Empty: blocked past the allowance."
            />
            <Field name="allowance_leads" label="Leads included a month" type="number" errors={props.errors} />
            <Field
              name="price_leads"
              label="Price of each lead past it (minor units)"
              type="number"
              errors={props.errors}
            />
            <Field
              name="allowance_agent_calls"
              label="Agent answers included a month"
              type="number"
              errors={props.errors}
            />
            <Field
              name="price_agent_calls"
              label="Price of each agent answer past it (minor units)"
              type="number"
              errors={props.errors}
            />
            <div>
              <button type="submit" class="button primary">
                Record the contract
              </button>
            </div>
          </form>
        </section>
      ) : null}
      <section class="card" aria-labelledby="credit-title">
        <h2 id="credit-title">Credit an escrow</h2>
        <p class="muted">A payment received elsewhere: a contract’s escrow, or an expert’s (on their review page).</p>
        <form method="post" action="/admin/billing/credits" class="stack">
          <Field name="escrow_id" label="Escrow id" placeholder="esc_…" errors={props.errors} required />
          <Field name="amount_minor" label="Amount (minor units)" type="number" errors={props.errors} required />
          <Field
            name="reference"
            label="Reference"
            hint="The invoice or transfer; recorded once."
            errors={props.errors}
            required
          />
          <div>
            <button type="submit" class="button primary">
              Record the credit
            </button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="refunds-title">
        <h2 id="refunds-title">Refund requests to decide</h2>
        {props.refunds.length === 0 ? (
          <p class="muted">None waiting.</p>
        ) : (
          <DataTable
            rows={props.refunds}
            rowId={(request) => request.refund_request_id}
            columns={[
              {
                header: 'Request',
                rowHeader: true,
                cell: (request) => (
                  <>
                    {formatMoney(request.amount_minor, request.currency)} · {request.reason}
                    <br />
                    <small class="muted">
                      <a href={`/admin/providers/${request.provider_id}`}>{request.provider_name ?? 'the expert'}</a>
                      {' · '}lead {request.lead?.reference ?? request.lead_id}
                      {request.lead ? `, now ${request.lead.status}` : ''} · {when(request.created_at)}
                    </small>
                  </>
                ),
              },
              { header: 'Their note', cell: (request) => request.note ?? '—' },
              {
                header: 'Actions',
                headerHidden: true,
                cell: (request) => (
                  <>
                    {(['accept', 'decline'] as const).map((decision) => (
                      <form
                        method="post"
                        action={`/admin/billing/refunds/${request.refund_request_id}/${decision}`}
                        class="inline"
                      >
                        <button type="submit" class={`button small${decision === 'accept' ? ' primary' : ''}`}>
                          {decision === 'accept' ? 'Accept' : 'Decline'}
                        </button>{' '}
                      </form>
                    ))}
                  </>
                ),
              },
            ]}
          />
        )}
      </section>
      <PaymentsSection {...props.payments} />
    </ConsoleLayout>
  );
}
