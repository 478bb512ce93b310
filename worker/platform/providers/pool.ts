/**
 * The brain's routing reads of the supply side: which active experts cover a domain and its topics.
 */
import { type SQL, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { TtlCache } from '../../lib/ttl-cache';
import { memberMayWorkIn } from '../identity';

const { providers, providerDomains } = schema;

/** Who may see a channel's leads: every matching provider, or only the channel workspace's members. */
export type RoutingPool = { kind: 'platform' } | { kind: 'workspace'; workspaceId: string };

/** How many available experts cover a domain: those who list no topics, and those who list each topic. */
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
  return expertPoolCache.get(key, db, async () => {
    const inPool = pool.kind === 'workspace' ? sql`AND ${memberMayWorkIn(sql`p.user_id`, pool.workspaceId)}` : sql``;
    const rows = await db.all<{ topic: string | null; providers: number }>(sql`
      SELECT t.value AS topic, COUNT(DISTINCT p.id) AS providers
      FROM ${providerDomains} d JOIN ${providers} p ON p.id = d.provider_id
      LEFT JOIN json_each(p.accepted_topics) t
      WHERE d.domain = ${domain} AND p.status = 'active' AND p.kind = 'expert' AND p.availability = 'available'
        ${inPool}
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

/** What a lead asks of the experts who may take it: values, or SQL of a lead row's columns. */
export interface LeadScope {
  workspaceId: string | SQL;
  domain: string | SQL;
  topic: string | null | SQL;
  routingPool: 'platform' | 'workspace' | SQL;
}

/**
 * The active experts who may take a lead, from the lead's side (the mirror of the workbench's
 * scope): the domain, a topic they accept (or none listed), and the channel's pool. A condition on
 * `providers` (named so in the query), for statements that write one row per expert; the lead may
 * be given as values, or as columns of a lead row the statement reads.
 */
export function expertsForLead(lead: LeadScope): SQL {
  return sql`${providers.status} = 'active' AND ${providers.kind} = 'expert'
    AND EXISTS (SELECT 1 FROM ${providerDomains} WHERE ${providerDomains.providerId} = ${providers.id}
      AND ${providerDomains.domain} = ${lead.domain})
    AND (json_array_length(${providers.acceptedTopics}) = 0
      OR EXISTS (SELECT 1 FROM json_each(${providers.acceptedTopics}) WHERE value = ${lead.topic}))
    AND (${lead.routingPool} = 'platform' OR ${memberMayWorkIn(sql`${providers.userId}`, lead.workspaceId)})`;
}
