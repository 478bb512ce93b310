/**
 * Numbers for the people who work the platform (docs/design/insights.md): an expert's own last 30
 * days (claims, time to first reply, won rate and value, fees), read from their history by its
 * actor index; and the platform's, for administrators, summed from the daily rollups of every
 * workspace (unclaimed and escalated leads, SLA lapses, each agent's answers and breaker trips).
 */
import { and, desc, eq, gte, inArray, or, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { dayOf } from '../../lib/periods';
import { sumsOver } from '../rollups';
import { readEveryShard } from '../shards';

const { leadEvents, ledgerEntries, escrows, dailyRollups, providers, leads } = schema;

/** The window an expert's numbers cover. */
export const EXPERT_WINDOW_DAYS = 30;

/** The median of some numbers, or null. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

export interface ExpertNumbers {
  days: number;
  claims: number;
  /**
   * Time to first reply (docs/design/insights.md: one definition everywhere): from the lead's
   * creation to the first reply the visitor got, in seconds, over the leads this expert first replied to.
   */
  median_first_reply_s: number | null;
  won: number;
  lost: number;
  /** Won among the leads they claimed in the window; null without claims. */
  won_rate: number | null;
  won_value: Array<{ currency: string; value_minor: number }>;
  /** Lead fees paid, less those refunded (minor units of the platform's currency). */
  fees_minor: number;
}

/** An expert's own numbers over the last 30 days. */
export async function expertNumbers(db: Database, providerId: string, now: number): Promise<ExpertNumbers> {
  const since = now - EXPERT_WINDOW_DAYS * 86_400_000;
  // The moves are on the shards of the leads' organisations, the fees in the directory: each read
  // at once where it is.
  const readMoves = (shardDb: Database) =>
    shardDb
      .select({
        leadId: leadEvents.leadId,
        to: leadEvents.toStatus,
        at: leadEvents.createdAt,
        valueMinor: leadEvents.valueMinor,
        currency: leadEvents.valueCurrency,
        // The lead's first reply, when this move is it: its time since the lead was created (ms).
        firstReplyAfter: sql<number | null>`CASE WHEN ${leadEvents.toStatus} = 'contacted'
          AND ${leadEvents.createdAt} = ${leads.firstContactedAt}
          THEN ${leadEvents.createdAt} - ${leads.createdAt} END`,
      })
      .from(leadEvents)
      .innerJoin(leads, eq(leads.id, leadEvents.leadId))
      .where(
        and(
          // The provider's own moves (the actor index holds only providers' rows).
          eq(leadEvents.actorKind, 'provider'),
          eq(leadEvents.actorId, providerId),
          gte(leadEvents.createdAt, since),
          inArray(leadEvents.toStatus, ['claimed', 'contacted', 'won', 'lost']),
        ),
      );
  const [everyShard, fees] = await Promise.all([
    readEveryShard(db, leadEvents, readMoves),
    db
      .select({ total: sql<number>`coalesce(-sum(${ledgerEntries.amountMinor}), 0)` })
      .from(ledgerEntries)
      .where(
        and(
          sql`${ledgerEntries.account} = (SELECT ${escrows.id} FROM ${escrows} WHERE ${escrows.ownerKind} = 'provider'
            AND ${escrows.ownerId} = ${providerId})`,
          inArray(ledgerEntries.kind, ['lead_fee', 'refund']),
          gte(ledgerEntries.createdAt, since),
        ),
      ),
  ]);
  const moves = everyShard.flat().sort((a, b) => a.at - b.at);
  const replies: number[] = [];
  const values = new Map<string, number>();
  let won = 0;
  let lost = 0;
  for (const move of moves) {
    if (move.firstReplyAfter !== null) replies.push(Math.round(move.firstReplyAfter / 1000));
    if (move.to === 'won') won++;
    if (move.to === 'lost') lost++;
    if (move.to === 'won' && move.valueMinor !== null && move.currency)
      values.set(move.currency, (values.get(move.currency) ?? 0) + move.valueMinor);
  }
  const claims = moves.filter((move) => move.to === 'claimed').length;
  return {
    days: EXPERT_WINDOW_DAYS,
    claims,
    median_first_reply_s: median(replies.filter((seconds) => Number.isFinite(seconds) && seconds >= 0)),
    won,
    lost,
    won_rate: claims > 0 ? Math.round((won / claims) * 1000) / 1000 : null,
    won_value: [...values].map(([currency, value_minor]) => ({ currency, value_minor })),
    fees_minor: Number(fees[0]?.total ?? 0),
  };
}

export interface PlatformNumbers {
  from: string;
  to: string;
  leads: number;
  /** Still open, of the range's leads. */
  unclaimed: number;
  escalated: number;
  sla_lapses: number;
  agents: Array<{
    provider_id: string;
    display_name: string | null;
    attempts: number;
    answered: number;
    declined: number;
    breaker_trips: number;
  }>;
}

/** The platform's numbers over the last `days` days, for administrators. */
export async function platformNumbers(db: Database, days: number, now: number): Promise<PlatformNumbers> {
  const from = dayOf(now - (days - 1) * 86_400_000);
  const to = dayOf(now);
  // Every shard rolls up its own organisations: the platform's sums are theirs added up.
  const everyShard = await readEveryShard(db, dailyRollups, (shardDb) =>
    sumsOver(shardDb, {
      scope: or(
        inArray(dailyRollups.metric, ['leads', 'lead_status.open', 'escalated', 'sla_lapses']),
        // The agents' metrics, as an index range (`agent_` up to the next prefix, `agent``).
        and(sql`${dailyRollups.metric} >= ${'agent_'}`, sql`${dailyRollups.metric} < ${'agent`'}`),
      )!,
      from,
      to,
      columns: ['metric'],
    }),
  );
  const totals = new Map<string, number>();
  for (const row of everyShard.flat()) totals.set(row.metric, (totals.get(row.metric) ?? 0) + Number(row.value));
  const perAgent = (prefix: string) =>
    new Map([...totals].filter(([metric]) => metric.startsWith(prefix)).map(([m, v]) => [m.slice(prefix.length), v]));
  const attempts = perAgent('agent_attempts.');
  const names = attempts.size
    ? await db
        .select({ id: providers.id, name: providers.displayName })
        .from(providers)
        .where(inArray(providers.id, [...attempts.keys()]))
        .orderBy(desc(providers.id))
    : [];
  const answered = perAgent('agent_answered.');
  const declined = perAgent('agent_declined.');
  const trips = perAgent('agent_circuit_open.');
  return {
    from,
    to,
    leads: totals.get('leads') ?? 0,
    unclaimed: Math.max(0, totals.get('lead_status.open') ?? 0),
    escalated: totals.get('escalated') ?? 0,
    sla_lapses: totals.get('sla_lapses') ?? 0,
    agents: [...attempts]
      .map(([providerId, count]) => ({
        provider_id: providerId,
        display_name: names.find((row) => row.id === providerId)?.name ?? null,
        attempts: count,
        answered: answered.get(providerId) ?? 0,
        declined: declined.get(providerId) ?? 0,
        breaker_trips: trips.get(providerId) ?? 0,
      }))
      .sort((a, b) => b.attempts - a.attempts),
  };
}
