/** @jsxImportSource hono/jsx */
/**
 * The owner's Usage page (docs/design/billing.md): this month against the contract's allowances,
 * the escrow's balance, a daily chart of what was used, and the monthly statements with CSV.
 */
import type { StatementView, UsageView } from '../../platform/billing';
import type { PaymentView } from '../../platform/payments';
import { Chart, type Series } from '../shared/charts';
import { DataTable, WorkspaceLayout, type WorkspacePageProps, wsQuery } from '../shared/layout';
import { formatCount, formatMoney } from '../shared/money';
import { ConfirmingNotice, PaymentsTable, TopUpForm, type TopUpOffer } from '../shared/top-up';

const METER_NAMES: Record<string, [singular: string, plural: string]> = {
  executions: ['execution', 'executions'],
  leads: ['lead', 'leads'],
  agent_calls: ['agent answer', 'agent answers'],
};

const total = (series: Series) => series.values.reduce((sum, value) => sum + value, 0);

const noun = (meter: string, count: number) => (METER_NAMES[meter] ?? [meter, meter])[count === 1 ? 0 : 1];

/** The usage view's days as chart series: executions and leads. */
export function dailySeries(usage: UsageView): { labels: string[]; series: Series[] } {
  return {
    labels: usage.rows.map((row) => row.group),
    series: [
      { name: 'Executions', values: usage.rows.map((row) => row.executions) },
      { name: 'Leads', values: usage.rows.map((row) => row.leads) },
      { name: 'Agent answers', values: usage.rows.map((row) => row.agent_calls) },
    ],
  };
}

function MeterCard({ meter, currency }: { meter: UsageView['meters'][number]; currency: string }) {
  const over = meter.used > meter.included;
  return (
    <li>
      <div class="figure">
        {formatCount(meter.used)} <small class="muted">of {formatCount(meter.included)}</small>
      </div>
      <div>{noun(meter.meter, meter.included)} included this month</div>
      <progress
        class={over ? 'over' : undefined}
        max={Math.max(1, meter.included)}
        value={Math.min(meter.used, Math.max(1, meter.included))}
        aria-label={`${meter.meter}: ${meter.used} of ${meter.included} used`}
      ></progress>
      <small class="muted">
        {over
          ? `${formatCount(meter.overage)} past the allowance · ${formatMoney(meter.charged_minor, currency)} charged`
          : `${formatCount(Math.max(0, meter.included - meter.used))} left`}
      </small>
    </li>
  );
}

/** The Usage page. */
export function UsagePage(
  props: WorkspacePageProps & {
    usage: UsageView;
    statements: StatementView[];
    today: string;
    topUp: { offer: TopUpOffer | null; reference: string; payments: PaymentView[]; returned?: string };
  },
) {
  const { topUp } = props;
  const { usage, statements } = props;
  const ws = wsQuery(props.current.workspaceId);
  const currency = usage.currency ?? 'EUR';
  const daily = dailySeries(usage);
  return (
    <WorkspaceLayout page={props} title="Usage" active="usage">
      <h1>Usage</h1>
      <p class="lead">
        What this workspace used this month against its contract, what its prepaid balance holds, and each month’s
        statement.
      </p>
      <ConfirmingNotice
        payment={topUp.payments.find((payment) => payment.payment_id === topUp.returned)}
        href={`/integrations/usage${ws}&payment=${topUp.returned ?? ''}`}
      />
      {usage.contract_id ? (
        <div class="grid-2">
          <section class="card" aria-labelledby="balance-title">
            <h2 id="balance-title">Balance</h2>
            <p class="balance money">{formatMoney(usage.balance_minor ?? 0, currency)}</p>
            <p class="muted">
              Prepaid; overage is taken from it as it happens. Contract <code>{usage.contract_id}</code>.
            </p>
            <TopUpForm offer={topUp.offer} reference={topUp.reference} />
            <PaymentsTable payments={topUp.payments} />
          </section>
          <section class="card" aria-labelledby="month-title">
            <h2 id="month-title">This month</h2>
            {usage.meters.length === 0 ? (
              <p class="muted">The contract meters nothing: every execution is included.</p>
            ) : (
              <ul class="meters">
                {usage.meters.map((meter) => (
                  <MeterCard meter={meter} currency={currency} />
                ))}
              </ul>
            )}
          </section>
        </div>
      ) : (
        <div class="alert" role="status">
          This workspace has no contract: only each API key’s own monthly quota limits it. The numbers below still count
          everything it used.
        </div>
      )}
      <section class="card" aria-labelledby="daily-title">
        <h2 id="daily-title">Day by day</h2>
        <Chart
          id="daily"
          kind="bars"
          title={`Executions and leads, ${usage.period.from} to ${usage.period.to}`}
          description={`Per day: ${formatCount(total(daily.series[0]!))} executions and ${formatCount(
            total(daily.series[1]!),
          )} leads in all. Up to a minute behind.`}
          labels={daily.labels}
          series={daily.series}
          csvHref={`/integrations/usage/daily.csv${ws}`}
          today={props.today}
        />
      </section>
      <section class="card" aria-labelledby="statements-title">
        <h2 id="statements-title">Statements</h2>
        {statements.length === 0 ? (
          <p class="muted">The first statement is issued when this month closes.</p>
        ) : (
          <>
            <DataTable
              rows={statements}
              rowId={(statement) => statement.statement_id}
              columns={[
                { header: 'Month', rowHeader: true, cell: (statement) => statement.period },
                { header: 'Opening', cell: (s) => formatMoney(s.opening_minor, s.currency), class: 'money' },
                { header: 'Credits', cell: (s) => formatMoney(s.credits_minor, s.currency), class: 'money' },
                { header: 'Charges', cell: (s) => formatMoney(s.charges_minor, s.currency), class: 'money' },
                { header: 'Closing', cell: (s) => formatMoney(s.closing_minor, s.currency), class: 'money' },
              ]}
            />
            <p>
              <a href={`/integrations/usage/statements.csv${ws}`} download>
                Download every statement as CSV
              </a>
            </p>
          </>
        )}
      </section>
    </WorkspaceLayout>
  );
}
