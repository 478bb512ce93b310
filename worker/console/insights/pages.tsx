/** @jsxImportSource hono/jsx */
/**
 * The owner's Insights page (docs/design/insights.md): the funnel, the days, response times,
 * outcomes, the agents and the topics of a range, for all channels or one. Every chart is SVG
 * drawn on the server, with its numbers as a table and CSV.
 */
import type { InsightsView } from '../../platform/insights';
import { Chart, type Series } from '../shared/charts';
import { DataTable, WorkspaceLayout, type WorkspacePageProps, wsQuery } from '../shared/layout';
import { formatCount, formatMoney } from '../shared/money';
import { spokenDuration } from '../shared/duration';

const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 1000) / 10}%`);

/** The funnel's steps: how far the range's demand went. */
export function funnelOf(view: InsightsView): Array<{ step: string; count: number }> {
  const { funnel } = view.totals;
  return [
    { step: 'Visitors’ conversations', count: funnel.conversations },
    { step: 'Became leads', count: funnel.leads },
    { step: 'Claimed by an expert', count: funnel.claimed },
    { step: 'Replied to', count: funnel.replied },
    { step: 'Won', count: funnel.won },
  ];
}

/** The days as the stacked chart's series: what answered each day's demand. */
export function dailySeries(view: InsightsView): { labels: string[]; series: Series[] } {
  return {
    labels: view.days.map((day) => day.date),
    series: [
      { name: 'Answered from your knowledge', values: view.days.map((day) => day.answered_by_knowledge) },
      { name: 'Answered by an agent', values: view.days.map((day) => day.answered_by_agent) },
      { name: 'Answered by a robot', values: view.days.map((day) => day.answered_by_robot) },
      { name: 'Leads for experts', values: view.days.map((day) => day.leads) },
    ],
  };
}

export interface InsightsPageProps extends WorkspacePageProps {
  view: InsightsView;
  channels: Array<{ key: string; name: string }>;
  /** The range chosen: 7, 30 or 90 days, or custom dates. */
  range: '7' | '30' | '90' | 'custom';
  /** Today's date: its bar is labelled "Today". */
  today: string;
  /** Dates that could not be shown, as typed, and why (the page shows the last 30 days instead). */
  rangeError?: DateRangeError;
}

/** Dates the form sent that make no range, and the reason. */
export interface DateRangeError {
  from: string;
  to: string;
  message: string;
}

/** The Insights page. */
export function InsightsPage(props: InsightsPageProps) {
  const { view, rangeError } = props;
  const ws = props.current.workspaceId;
  const query = `${wsQuery(ws)}&from=${view.from}&to=${view.to}${view.channel ? `&channel=${view.channel}` : ''}`;
  const csv = (table: string) => `/integrations/insights/${table}.csv${query}`;
  const funnel = funnelOf(view);
  const daily = dailySeries(view);
  const { totals } = view;
  const rangeLink = (days: '7' | '30' | '90') =>
    `/integrations/insights${wsQuery(ws)}&range=${days}${view.channel ? `&channel=${view.channel}` : ''}`;
  return (
    <WorkspaceLayout page={props} title="Insights" active="insights">
      <h1>Insights</h1>
      <p class="lead">
        How many visitors asked, how many an agent answered, how many became leads, how fast experts claimed and
        replied, and how many were won, from {view.from} to {view.to}
        {view.channel ? ` on ${props.channels.find((c) => c.key === view.channel)?.name ?? view.channel}` : ''}. The
        numbers are counted each minute.
      </p>
      <nav class="tabs" aria-label="Range">
        {(['7', '30', '90'] as const).map((days) => (
          <a href={rangeLink(days)} aria-current={props.range === days ? 'page' : undefined}>
            {days} days
          </a>
        ))}
      </nav>
      <form
        method="get"
        action="/integrations/insights"
        class="card inline-form"
        aria-label="Choose the range and channel"
      >
        <input type="hidden" name="ws" value={ws} />
        <div class="field">
          <label for="f-from">From</label>
          <input
            id="f-from"
            type="date"
            name="from"
            min="2000-01-01"
            max="2100-12-31"
            value={rangeError ? rangeError.from : view.from}
            aria-invalid={rangeError ? 'true' : undefined}
            aria-describedby={rangeError ? 'f-range-error' : undefined}
          />
        </div>
        <div class="field">
          <label for="f-to">To</label>
          <input
            id="f-to"
            type="date"
            name="to"
            min="2000-01-01"
            max="2100-12-31"
            value={rangeError ? rangeError.to : view.to}
            aria-invalid={rangeError ? 'true' : undefined}
            aria-describedby={rangeError ? 'f-range-error' : undefined}
          />
        </div>
        <div class="field">
          <label for="f-channel">Channel</label>
          <select id="f-channel" name="channel">
            <option value="">All channels</option>
            {props.channels.map((channel) => (
              <option value={channel.key} selected={channel.key === view.channel}>
                {channel.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" class="button">
            Show
          </button>
        </div>
        {rangeError ? (
          <p class="field-error" id="f-range-error" role="alert">
            {rangeError.message} The last 30 days are shown below.
          </p>
        ) : null}
      </form>
      <div class="grid-2">
        <section class="card" aria-labelledby="funnel-title">
          <h2 id="funnel-title">Funnel</h2>
          <Chart
            id="funnel"
            kind="rows"
            title="From conversation to won"
            description={funnel.map((step) => `${step.step}: ${step.count}`).join('; ')}
            labels={funnel.map((step) => step.step)}
            series={[{ name: 'Conversations', values: funnel.map((step) => step.count) }]}
            labelHeader="Step"
            csvHref={csv('funnel')}
          />
          <p class="muted">
            Each step counts the conversations of the one before that began in the range.{' '}
            {formatCount(totals.funnel.answered)} of {formatCount(totals.funnel.conversations)} were answered by an
            agent or robot at least once.
            {totals.api_leads > 0
              ? ` Leads made through the API, not in the funnel: ${formatCount(totals.api_leads)}.`
              : ''}
          </p>
        </section>
        <section class="card" aria-labelledby="outcomes-title">
          <h2 id="outcomes-title">Response and outcome</h2>
          <DataTable
            compact
            rows={[
              ['First claim, median', spokenDuration(totals.time_to_first_claim_s.p50)],
              ['First claim, 9 in 10 within', spokenDuration(totals.time_to_first_claim_s.p90)],
              ['First reply, median', spokenDuration(totals.time_to_first_reply_s.p50)],
              ['First reply, 9 in 10 within', spokenDuration(totals.time_to_first_reply_s.p90)],
              ['Won rate', percent(totals.won_rate)],
              [
                'Won value',
                totals.won_value.map((entry) => formatMoney(entry.value_minor, entry.currency)).join(', ') || '—',
              ],
              ['Answered from your knowledge', formatCount(totals.knowledge.answered)],
              ['Declined by your knowledge', formatCount(totals.knowledge.declined)],
              ['Resolved by your knowledge, no handoff after', percent(totals.knowledge.resolution_rate)],
              ['Held for review', formatCount(totals.held)],
              ['Rejected', formatCount(totals.rejected)],
            ]}
            columns={[
              { header: 'Measure', rowHeader: true, cell: ([label]) => label },
              { header: 'Value', cell: ([, value]) => value },
            ]}
          />
          <p>
            <a href={csv('outcomes')} download>
              Download as CSV
            </a>
          </p>
        </section>
      </div>
      <section class="card" aria-labelledby="days-title">
        <h2 id="days-title">Day by day</h2>
        <Chart
          id="days"
          kind="stacked"
          title="What answered each day’s demand"
          description={
            `Per day, stacked: answered from your knowledge (${totals.knowledge.answered} in all), by an ` +
            `agent (${totals.answered_by_agent}), by a robot (${totals.answered_by_robot}), and leads for ` +
            `experts (${totals.leads}).`
          }
          labels={daily.labels}
          series={daily.series}
          csvHref={csv('days')}
          today={props.today}
        />
      </section>
      <div class="grid-2">
        <section class="card" aria-labelledby="agents-title">
          <h2 id="agents-title">Agents and robots</h2>
          {view.agents.length === 0 ? (
            <p class="muted">No agent or robot was asked in this range.</p>
          ) : (
            <DataTable
              rows={view.agents}
              columns={[
                { header: 'Agent', rowHeader: true, cell: (agent) => agent.display_name ?? agent.provider_id },
                { header: 'Asked', cell: (agent) => formatCount(agent.attempts) },
                { header: 'Answered', cell: (agent) => percent(agent.answered / Math.max(1, agent.attempts)) },
                { header: 'Declined', cell: (agent) => percent(agent.declined / Math.max(1, agent.attempts)) },
              ]}
            />
          )}
          <p>
            <a href={csv('agents')} download>
              Download as CSV
            </a>
          </p>
        </section>
        <section class="card" aria-labelledby="topics-title">
          <h2 id="topics-title">Top topics</h2>
          {view.topics.length === 0 ? (
            <p class="muted">No lead in this range.</p>
          ) : (
            <DataTable
              compact
              rows={view.topics}
              columns={[
                { header: 'Topic', rowHeader: true, cell: (topic) => topic.topic },
                { header: 'Leads', cell: (topic) => formatCount(topic.count) },
              ]}
            />
          )}
          <p>
            <a href={csv('topics')} download>
              Download as CSV
            </a>
          </p>
        </section>
      </div>
    </WorkspaceLayout>
  );
}
