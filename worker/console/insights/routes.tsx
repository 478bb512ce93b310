/** @jsxImportSource hono/jsx */
/** /integrations/insights: a workspace's numbers for its owners, and each table as CSV. */
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { csvDocument, csvHeaders } from '../../lib/csv';
import { dayOf } from '../../lib/periods';
import { listChannels } from '../../platform/channels';
import { ApiError } from '../../lib/errors';
import { insightsQuerySchema, insightsRange, type InsightsView, insightsView } from '../../platform/insights';
import { newPageApp } from '../shared/app';
import { chartCsv } from '../shared/charts';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { workspaceContext } from '../shared/workspace';
import { dailySeries, funnelOf, InsightsPage, type InsightsPageProps, type DateRangeError } from './pages';

const RANGES = ['7', '30', '90'] as const;

/**
 * The range a page asks for: 7, 30 or 90 days to today, or its own dates. Dates the API would
 * refuse (not dates, outside 2000–2100, backwards, over 366 days) show the last 30 days, with the
 * reason beside the dates as they were typed.
 */
function rangeOf(
  c: Context<AppEnv>,
  now: number,
): { from: string; to: string; range: InsightsPageProps['range'] } & {
  rangeError?: DateRangeError;
} {
  const from = c.req.query('from');
  const to = c.req.query('to');
  const wanted = c.req.query('range');
  if ((from || to) && !wanted) {
    const checked = insightsQuerySchema.pick({ from: true, to: true }).safeParse({ from, to });
    if (checked.success && from && to) {
      try {
        return { ...insightsRange({ from, to }, now), range: 'custom' };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return { ...lastDays('30', now), rangeError: { from, to, message: error.message.replaceAll('`', '') } };
      }
    }
    const message = checked.success
      ? 'Give both dates.'
      : `${checked.error.issues[0]?.path.join('') === 'to' ? 'To' : 'From'}: a date between 2000 and 2100.`;
    return { ...lastDays('30', now), rangeError: { from: from ?? '', to: to ?? '', message } };
  }
  const days = (RANGES as readonly string[]).includes(wanted ?? '') ? (wanted as (typeof RANGES)[number]) : '30';
  return lastDays(days, now);
}

const lastDays = (days: (typeof RANGES)[number], now: number) => ({
  from: dayOf(now - (Number(days) - 1) * 86_400_000),
  to: dayOf(now),
  range: days,
});

async function viewOf(c: Context<AppEnv>) {
  const context = await workspaceContext(c, 'insights.read');
  const now = c.var.services.clock.now();
  const { range, rangeError, ...dates } = rangeOf(c, now);
  const channel = c.req.query('channel') || undefined;
  // After the membership check (the primary's), the counts from a replica's session.
  const view = await insightsView(
    c.var.reads,
    context.current.workspaceId,
    { ...dates, ...(channel ? { channel } : {}) },
    now,
  );
  return { context, view, range, rangeError };
}

/** The CSV tables of the page, by name. */
const TABLES: Record<string, (view: InsightsView) => string> = {
  funnel: (view) => {
    const funnel = funnelOf(view);
    return chartCsv(
      'step',
      funnel.map((step) => step.step),
      [{ name: 'count', values: funnel.map((s) => s.count) }],
    );
  },
  days: (view) => {
    const { labels, series } = dailySeries(view);
    return chartCsv('day', labels, series);
  },
  outcomes: (view) => {
    const { totals } = view;
    // The page's own measures, each with its unit (the page writes 60 seconds as "1 min").
    const rows: Array<[string, number | null, string]> = [
      ['First claim, median', totals.time_to_first_claim_s.p50, 'seconds'],
      ['First claim, 9 in 10 within', totals.time_to_first_claim_s.p90, 'seconds'],
      ['First reply, median', totals.time_to_first_reply_s.p50, 'seconds'],
      ['First reply, 9 in 10 within', totals.time_to_first_reply_s.p90, 'seconds'],
      ['Won rate', totals.won_rate, 'share of leads (0 to 1)'],
      ...totals.won_value.map((entry): [string, number, string] => [
        'Won value',
        entry.value_minor,
        `minor units of ${entry.currency}`,
      ]),
      ['Held for review', totals.held, 'demands'],
      ['Rejected', totals.rejected, 'demands'],
      ['Leads made through the API', totals.api_leads, 'leads'],
      ['Answered from your knowledge', totals.knowledge.answered, 'questions'],
      ['Declined by your knowledge', totals.knowledge.declined, 'questions'],
      [
        'Resolved by your knowledge',
        totals.knowledge.resolution_rate,
        'share of conversations it answered in (0 to 1)',
      ],
    ];
    return csvDocument(['measure', 'value', 'unit'], rows);
  },
  agents: (view) =>
    chartCsv(
      'agent',
      view.agents.map((agent) => agent.display_name ?? agent.provider_id),
      [
        { name: 'asked', values: view.agents.map((agent) => agent.attempts) },
        { name: 'answered', values: view.agents.map((agent) => agent.answered) },
        { name: 'declined', values: view.agents.map((agent) => agent.declined) },
      ],
    ),
  topics: (view) =>
    chartCsv(
      'topic',
      view.topics.map((topic) => topic.topic),
      [{ name: 'leads', values: view.topics.map((topic) => topic.count) }],
    ),
};

/** The insights pages. */
export function insightsPageRoutes() {
  const app = newPageApp();
  app.use('/integrations/insights', ...consolePageGuards);
  app.use('/integrations/insights/*', ...consolePageGuards);
  app.get('/integrations/insights', async (c) => {
    const { context, view, range, rangeError } = await viewOf(c);
    const channels = await listChannels(c.var.reads, context.current.workspaceId);
    const props: InsightsPageProps = {
      user: currentUser(c),
      ...context,
      notice: noticeOf(c),
      view,
      channels: channels.map((channel) => ({ key: channel.channelKey, name: channel.name })),
      range,
      today: dayOf(c.var.services.clock.now()),
      ...(rangeError ? { rangeError } : {}),
    };
    c.header('Cache-Control', 'no-store');
    return c.html(<InsightsPage {...props} />);
  });
  for (const [name, table] of Object.entries(TABLES)) {
    app.get(`/integrations/insights/${name}.csv`, async (c) => {
      const { view } = await viewOf(c);
      return c.body(table(view), 200, csvHeaders(`insights-${name}-${view.from}-${view.to}.csv`));
    });
  }
  return app;
}
