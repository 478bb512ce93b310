/**
 * A workspace's insights (docs/design/insights.md): its funnel, response times and outcomes over
 * a range of days, read from the daily rollups (two grouped reads, whatever the history) and
 * shaped here. Leads' numbers belong to the day each lead was created: the range's leads are one
 * cohort, followed to their current status.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { dayOf, daysBetween } from '../../lib/periods';
import { LEAD_STATUSES } from '../../vocabulary';
import { API_LEADS, FUNNEL, SECONDS_BUCKETS, sumsOver } from '../rollups';
import type { InsightsView } from './schemas';

const { dailyRollups, channels, providers } = schema;

/** The longest range insights span. */
export const MAX_INSIGHT_DAYS = 366;
/** How many topics the answer lists, most frequent first. */
export const TOP_TOPICS = 10;

/** The metric of an agent's attempts, before its provider id. */
const AGENT_PREFIX = 'agent_attempts.';

/** The metrics drawn day by day. */
const DAILY_METRICS = [
  'conversations',
  'answered_by_knowledge',
  'answered_by_agent',
  'answered_by_robot',
  'leads',
  'lead_status.won',
];

/** The range asked for: `to` defaults to today, `from` to 29 days before it; at most 366 days. */
export function insightsRange(query: { from?: string; to?: string }, now: number): { from: string; to: string } {
  const to = query.to ?? dayOf(now);
  const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000);
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (!(days >= 1))
    throw new ApiError('validation_failed', '`from` must not be after `to`.', {
      errors: [{ pointer: '/from', detail: 'After `to`.' }],
    });
  if (days > MAX_INSIGHT_DAYS)
    throw new ApiError('validation_failed', `A range spans at most ${MAX_INSIGHT_DAYS} days.`, {
      errors: [{ pointer: '/from', detail: `More than ${MAX_INSIGHT_DAYS} days before \`to\`.` }],
    });
  return { from, to };
}

/**
 * A percentile of durations counted in buckets (metric suffix = the bucket's upper edge in
 * seconds, or `inf`): the edge of the bucket the percentile falls in; null without data. Past
 * the last edge (30 days) it answers the last edge.
 */
export function bucketPercentile(
  buckets: Map<string, number>,
  share: number,
  sums: Map<string, number> = new Map(),
): number | null {
  const total = [...buckets.values()].reduce((sum, count) => sum + count, 0);
  if (total <= 0) return null;
  const wanted = Math.max(1, Math.ceil(share * total));
  let seen = 0;
  for (const edge of [...SECONDS_BUCKETS.map(String), 'inf']) {
    const count = buckets.get(edge) ?? 0;
    seen += count;
    if (seen < wanted) continue;
    // The mean of the bucket it falls in, when its seconds were counted; else the bucket's edge.
    const sum = sums.get(edge);
    if (sum !== undefined && count > 0) return Math.round(sum / count);
    return edge === 'inf' ? SECONDS_BUCKETS.at(-1)! : Number(edge);
  }
  return SECONDS_BUCKETS.at(-1)!;
}

/** The first-party agent's figures, and its resolution rate (answered with no handoff after). */
function knowledgeTotals(total: (metric: string) => number) {
  const conversations = total('knowledge_conversations');
  const handoffs = Math.min(total('knowledge_handoffs'), conversations);
  return {
    answered: total('answered_by_knowledge'),
    declined: total('declined_by_knowledge'),
    conversations,
    handoffs,
    resolution_rate: conversations > 0 ? Math.round(((conversations - handoffs) / conversations) * 1000) / 1000 : null,
  };
}

/** The metrics under one prefix (`topic.`), by their suffix. */
function byPrefix(totals: Map<string, number>, prefix: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const [metric, value] of totals) if (metric.startsWith(prefix)) found.set(metric.slice(prefix.length), value);
  return found;
}

/** The channel named, if it is the workspace's (else 404: another tenant's channel does not exist here). */
async function channelOf(db: Database, workspaceId: string, channelKey: string | undefined): Promise<string | null> {
  if (channelKey === undefined) return null;
  const found = await db
    .select({ key: channels.channelKey })
    .from(channels)
    .where(and(eq(channels.channelKey, channelKey), eq(channels.workspaceId, workspaceId)))
    .get();
  if (!found) throw new ApiError('not_found', `No channel ${channelKey}.`);
  return found.key;
}

/** A workspace's insights over a range of days, for all its channels or one. */
export async function insightsView(
  db: Database,
  workspaceId: string,
  query: { from?: string; to?: string; channel?: string },
  now: number,
): Promise<InsightsView> {
  const range = insightsRange(query, now);
  const channel = await channelOf(db, workspaceId, query.channel);
  const scope = and(
    eq(dailyRollups.workspaceId, workspaceId),
    ...(channel !== null ? [eq(dailyRollups.channelKey, channel)] : []),
  )!;
  const { from, to } = range;
  // One round trip, whatever is in the range: the totals, the days, and the agents' names.
  // The agents' metrics as an index range: `agent_attempts.` up to `agent_attempts/`, the next prefix.
  const agentMetric = sql`${dailyRollups.metric} >= ${AGENT_PREFIX} AND
    ${dailyRollups.metric} < ${`${AGENT_PREFIX.slice(0, -1)}/`}`;
  const [totalRows, dayRows, names] = await db.batch([
    sumsOver(db, { scope, from, to, columns: ['metric'] }),
    sumsOver(db, {
      scope: and(scope, inArray(dailyRollups.metric, DAILY_METRICS))!,
      from,
      to,
      byDay: true,
      columns: ['day', 'metric'],
    }),
    db
      .select({ id: providers.id, name: providers.displayName })
      .from(providers)
      .where(
        sql`${providers.id} IN (SELECT DISTINCT substr(${dailyRollups.metric}, ${AGENT_PREFIX.length + 1}) FROM
          ${dailyRollups} WHERE ${scope} AND ${agentMetric} AND length(${dailyRollups.day}) = 7
          AND ${dailyRollups.day} BETWEEN ${from.slice(0, 7)} AND ${to.slice(0, 7)})`,
      ),
  ]);
  const totals = new Map(totalRows.map((row) => [row.metric, Number(row.value)]));
  const total = (metric: string) => totals.get(metric) ?? 0;
  const leadsByStatus = Object.fromEntries(
    LEAD_STATUSES.map((status) => [status, Math.max(0, total(`lead_status.${status}`))]),
  ) as InsightsView['totals']['leads_by_status'];
  const claimBuckets = byPrefix(totals, 'first_claim_s.');
  const replyBuckets = byPrefix(totals, 'first_reply_s.');
  const claimSums = byPrefix(totals, 'first_claim_sum.');
  const replySums = byPrefix(totals, 'first_reply_sum.');
  const percentiles = (buckets: Map<string, number>, sums: Map<string, number>) => ({
    p50: bucketPercentile(buckets, 0.5, sums),
    p90: bucketPercentile(buckets, 0.9, sums),
  });

  const days = new Map(
    daysBetween(range.from, range.to).map((date) => [
      date,
      {
        date,
        conversations: 0,
        answered_by_knowledge: 0,
        answered_by_agent: 0,
        answered_by_robot: 0,
        leads: 0,
        won: 0,
      },
    ]),
  );
  for (const row of dayRows) {
    const day = days.get(row.day);
    if (!day) continue;
    const key = row.metric === 'lead_status.won' ? 'won' : (row.metric as Exclude<keyof typeof day, 'date'>);
    day[key] += Number(row.value);
  }

  const attempts = byPrefix(totals, AGENT_PREFIX);
  const answered = byPrefix(totals, 'agent_answered.');
  const declined = byPrefix(totals, 'agent_declined.');
  const leads = total('leads');
  return {
    ...range,
    channel,
    totals: {
      conversations: total('conversations'),
      answered_by_agent: total('answered_by_agent'),
      answered_by_robot: total('answered_by_robot'),
      leads,
      claimed: [...claimBuckets.values()].reduce((sum, count) => sum + count, 0),
      replied: [...replyBuckets.values()].reduce((sum, count) => sum + count, 0),
      held: total('held'),
      rejected: total('rejected'),
      leads_by_status: leadsByStatus,
      time_to_first_claim_s: percentiles(claimBuckets, claimSums),
      time_to_first_reply_s: percentiles(replyBuckets, replySums),
      won_rate: leads > 0 ? Math.round((leadsByStatus.won / leads) * 1000) / 1000 : null,
      won_value: [...byPrefix(totals, 'won_value.')]
        .map(([currency, value]) => ({ currency, value_minor: value }))
        .sort((a, b) => a.currency.localeCompare(b.currency)),
      funnel: {
        conversations: total(FUNNEL.conversations),
        answered: total(FUNNEL.answered),
        leads: total(FUNNEL.leads),
        claimed: total(FUNNEL.claimed),
        replied: total(FUNNEL.replied),
        won: total(FUNNEL.won),
      },
      api_leads: total(API_LEADS),
      knowledge: knowledgeTotals(total),
    },
    days: [...days.values()],
    agents: [...attempts]
      .map(([providerId, count]) => ({
        provider_id: providerId,
        display_name: names.find((row) => row.id === providerId)?.name ?? null,
        attempts: count,
        answered: answered.get(providerId) ?? 0,
        declined: declined.get(providerId) ?? 0,
      }))
      .sort((a, b) => b.attempts - a.attempts),
    topics: [...byPrefix(totals, 'topic.')]
      .map(([topic, count]) => ({ topic, count }))
      .sort((a, b) => b.count - a.count || a.topic.localeCompare(b.topic))
      .slice(0, TOP_TOPICS),
  };
}
