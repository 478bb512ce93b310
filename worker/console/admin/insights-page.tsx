/** @jsxImportSource hono/jsx */
/** /admin/insights (docs/design/insights.md): the platform's leads and agents, over 7 or 30 days. */
import type { SessionUser } from '../../platform/identity';
import type { PlatformNumbers } from '../../platform/insights';
import { ConsoleLayout, DataTable } from '../shared/layout';
import { formatCount } from '../shared/money';
import { adminNav } from './pages';

const share = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : '—');

/** The platform's numbers. */
export function PlatformInsightsPage(props: { user: SessionUser; numbers: PlatformNumbers; days: 7 | 30 }) {
  const { numbers } = props;
  return (
    <ConsoleLayout title="Platform insights" user={props.user} nav={adminNav('insights')}>
      <h1>Platform insights</h1>
      <p class="lead">
        Every workspace, from {numbers.from} to {numbers.to}: how many leads found an expert in time, and how the agents
        and robots answered.
      </p>
      <nav class="tabs" aria-label="Range">
        {([7, 30] as const).map((days) => (
          <a href={`/admin/insights?days=${days}`} aria-current={props.days === days ? 'page' : undefined}>
            {days} days
          </a>
        ))}
      </nav>
      <section class="card" aria-labelledby="leads-title">
        <h2 id="leads-title">Leads</h2>
        <DataTable
          compact
          rows={[
            ['Leads', formatCount(numbers.leads), ''],
            ['Still unclaimed', formatCount(numbers.unclaimed), share(numbers.unclaimed, numbers.leads)],
            ['Escalated to their owners', formatCount(numbers.escalated), share(numbers.escalated, numbers.leads)],
            ['Claims lapsed (no reply in the SLA)', formatCount(numbers.sla_lapses), ''],
          ]}
          columns={[
            { header: 'Measure', rowHeader: true, cell: ([label]) => label },
            { header: 'Count', cell: ([, count]) => count },
            { header: 'Of leads', cell: ([, , rate]) => rate || '—' },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="agents-title">
        <h2 id="agents-title">Agents and robots</h2>
        {numbers.agents.length === 0 ? (
          <p class="muted">No agent or robot was asked in this range.</p>
        ) : (
          <DataTable
            rows={numbers.agents}
            columns={[
              {
                header: 'Agent',
                rowHeader: true,
                cell: (agent) => (
                  <a href={`/admin/providers/${agent.provider_id}`}>{agent.display_name ?? agent.provider_id}</a>
                ),
              },
              { header: 'Asked', cell: (agent) => formatCount(agent.attempts) },
              { header: 'Answered', cell: (agent) => share(agent.answered, agent.attempts) },
              { header: 'Declined', cell: (agent) => share(agent.declined, agent.attempts) },
              { header: 'Breaker trips', cell: (agent) => formatCount(agent.breaker_trips) },
            ]}
          />
        )}
      </section>
    </ConsoleLayout>
  );
}
