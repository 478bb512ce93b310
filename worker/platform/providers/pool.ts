/**
 * The brain's routing reads of the supply side: which active experts cover a domain and its topics.
 */
import { sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { TtlCache } from '../../lib/ttl-cache';

const { providers, providerDomains, memberships } = schema;

/** Who may see a channel's leads: every matching provider, or only the channel workspace's members. */
export type RoutingPool = { kind: 'platform' } | { kind: 'workspace'; workspaceId: string };

/** How many active experts cover a domain: those who list no topics, and those who list each topic. */
export interface ExpertPool {
  anyTopic: number;
  byTopic: Record<string, number>;
}

const expertPoolCache = new TtlCache<ExpertPool>(10_000, 500);

/** Forgets the cached expert pools (after a provider's change through this isolate). */
export function forgetExpertPools(): void {
  expertPoolCache.clear();
}

/**
 * The active experts who cover a domain, counted per topic, for judgement (the topics) and
 * routing (`matched_providers`). It guards no security decision, so it is cached briefly; a
 * provider change through this isolate clears it.
 */
export async function expertPool(db: Database, domain: string, pool: RoutingPool): Promise<ExpertPool> {
  const key = pool.kind === 'platform' ? `platform:${domain}` : `workspace:${pool.workspaceId}:${domain}`;
  return expertPoolCache.get(key, async () => {
    const inPool =
      pool.kind === 'workspace'
        ? sql`AND p.user_id IN (SELECT ${memberships.userId} FROM ${memberships} WHERE ${memberships.workspaceId} =
          ${pool.workspaceId})`
        : sql``;
    const rows = await db.all<{ topic: string | null; providers: number }>(sql`
      SELECT t.value AS topic, COUNT(DISTINCT p.id) AS providers
      FROM ${providerDomains} d JOIN ${providers} p ON p.id = d.provider_id
      LEFT JOIN json_each(p.accepted_topics) t
      WHERE d.domain = ${domain} AND p.status = 'active' AND p.kind = 'expert' ${inPool}
      GROUP BY t.value`);
    const byTopic: Record<string, number> = {};
    let anyTopic = 0;
    for (const row of rows) {
      if (row.topic === null) anyTopic = row.providers;
      else byTopic[row.topic] = row.providers;
    }
    return { anyTopic, byTopic };
  });
}

/** What a lead asks of the experts who may take it. */
export interface LeadScope {
  workspaceId: string;
  domain: string;
  topic: string | null;
  routingPool: 'platform' | 'workspace';
}

/**
 * The active experts who may take a lead, from the lead's side (the mirror of the workbench's
 * scope): the domain, a topic they accept (or none listed), and the channel's pool. A condition on
 * `providers` (named so in the query), for statements that write one row per expert.
 */
export function expertsForLead(lead: LeadScope) {
  const pool =
    lead.routingPool === 'workspace'
      ? sql`AND ${providers.userId} IN (SELECT ${memberships.userId} FROM ${memberships}
          WHERE ${memberships.workspaceId} = ${lead.workspaceId})`
      : sql``;
  return sql`${providers.status} = 'active' AND ${providers.kind} = 'expert'
    AND EXISTS (SELECT 1 FROM ${providerDomains} WHERE ${providerDomains.providerId} = ${providers.id}
      AND ${providerDomains.domain} = ${lead.domain})
    AND (json_array_length(${providers.acceptedTopics}) = 0
      OR EXISTS (SELECT 1 FROM json_each(${providers.acceptedTopics}) WHERE value = ${lead.topic}))
    ${pool}`;
}
