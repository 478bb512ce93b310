/**
 * Offer waves, as the brain's lead policy declares them (brain/lead-policy.ts): a new lead goes
 * first to the best `offer_first` matching experts, in the order of OFFER_RANKING; then,
 * unclaimed, to every matching expert. This file is the policy's SQL: one expression per ranking
 * criterion. Only experts it is offered to see it in Available and may claim it; one who released
 * it, or let it lapse, waits out the cooldown.
 */
import { type SQL, sql } from 'drizzle-orm';
import { CLAIM_BOUNDS, OFFER_RANKING, OFFER_WAVES, type OfferCriterion } from '../../brain';
import { type Database, schema } from '../../lib/db';
import { expertsForLead, type LeadScope } from '../providers';

const { leads, leadOffers, providers } = schema;

/** The statuses in which a lead counts against its claimer's capacity. */
export const HELD_STATUSES = CLAIM_BOUNDS.heldStatuses;

const heldList = sql.raw(HELD_STATUSES.map((status) => `'${status}'`).join(', '));

/** How many leads an expert holds now, as SQL over `providers`. */
export const openClaimsOf = (providerId: SQL | string | typeof providers.id) =>
  sql`(SELECT COUNT(*) FROM ${leads} WHERE ${leads.claimedBy} = ${providerId}
    AND ${leads.status} IN (${heldList}))`;

/** What the ranking knows of the lead. */
export interface RankedLead extends LeadScope {
  language: string | null | SQL;
  region: string | null | SQL;
}

/** Each criterion of the brain's ranking as an SQL key over `providers`: lower ranks first. */
const RANKING_KEYS: Record<OfferCriterion, (lead: RankedLead) => SQL> = {
  topic_specificity: () => sql`CASE WHEN json_array_length(${providers.acceptedTopics}) > 0 THEN 0 ELSE 1 END`,
  language: (lead) => sql`CASE WHEN EXISTS (SELECT 1 FROM json_each(${providers.languages})
      WHERE lower(value) = ${lead.language} OR lower(value) LIKE ${lead.language} || '-%') THEN 0 ELSE 1 END`,
  region: (lead) => sql`CASE
      WHEN EXISTS (SELECT 1 FROM json_each(${providers.regions}) WHERE upper(value) = ${lead.region}) THEN 0
      WHEN EXISTS (SELECT 1 FROM json_each(${providers.regions}) WHERE lower(value) = 'global') THEN 1 ELSE 2 END`,
  open_claims: () => openClaimsOf(providers.id),
  longest_since_claim: () => sql`COALESCE(${providers.lastClaimedAt}, 0)`,
};

/**
 * The offer ranking, best first, as an ORDER BY over `providers`: the brain's criteria in its
 * order, each breaking the ties of the one before, and the id making it total.
 */
export function offerRanking(lead: RankedLead): SQL {
  return sql.join([...OFFER_RANKING.map((criterion) => RANKING_KEYS[criterion](lead)), sql`${providers.id}`], sql`, `);
}

/** Experts who take new offers: matching, and available. */
const offerable = (lead: LeadScope) => sql`${expertsForLead(lead)} AND ${providers.availability} = 'available'`;

/**
 * A new lead's first wave: the best `count` experts, in one statement of the lead's batch (only
 * when `when` holds, for a batch whose change may not have gone in).
 */
export function firstWaveOffers(
  db: Database,
  leadId: string,
  lead: RankedLead,
  count: number,
  now: number,
  when: SQL = sql`1`,
) {
  return db.run(sql`INSERT OR IGNORE INTO ${leadOffers} (lead_id, provider_id, wave, offered_at)
    SELECT ${leadId}, ${providers.id}, ${OFFER_WAVES.first}, ${now} FROM ${providers}
    WHERE ${offerable(lead)} AND ${when}
    ORDER BY ${offerRanking(lead)}
    LIMIT ${count}`);
}

/** A lead row's columns, as the statements over many leads read them (`l` is the lead). */
export const leadColumnsScope: RankedLead = {
  workspaceId: sql`l.workspace_id`,
  domain: sql`l.domain`,
  topic: sql`l.topic`,
  routingPool: sql`l.routing_pool`,
  language: sql`l.language`,
  region: sql`l.region`,
};

/**
 * Every matching, available expert gets the offer (the second wave) of each lead `l` that `which` selects,
 * except `except` (the expert who let it lapse); existing offers stay as they are.
 */
export function widenOffers(db: Database, which: SQL, now: number, except: SQL = sql`NULL`) {
  return db.run(sql`INSERT OR IGNORE INTO ${leadOffers} (lead_id, provider_id, wave, offered_at)
    SELECT l.id, ${providers.id}, ${OFFER_WAVES.everyone}, ${now} FROM ${leads} l JOIN ${providers}
      ON ${offerable(leadColumnsScope)} AND ${providers.id} IS NOT ${except}
    WHERE ${which}`);
}

/** The lead is offered to this expert, who is not cooling down from it: a condition on `leads`. */
export function offeredTo(providerId: string, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM ${leadOffers} o WHERE o.lead_id = ${leads.id} AND o.provider_id = ${providerId}
    AND (o.cooldown_until IS NULL OR o.cooldown_until <= ${now}))`;
}

/** The lead was offered to this expert at some point, cooling down or not (a condition on leads). */
export function everOffered(providerId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${leadOffers} o WHERE o.lead_id = ${leads.id} AND o.provider_id = ${providerId})`;
}

/** This expert may not claim the lead again until `until` (a release or a lapse). */
export function cooldownWrite(
  db: Database,
  leadId: string,
  providerId: string,
  now: number,
  until: number,
  condition: SQL = sql`1`,
) {
  return db.run(sql`INSERT INTO ${leadOffers} (lead_id, provider_id, wave, offered_at, cooldown_until)
    SELECT ${leadId}, ${providerId}, ${OFFER_WAVES.everyone}, ${now}, ${until} WHERE ${condition}
    ON CONFLICT (lead_id, provider_id) DO UPDATE SET cooldown_until = excluded.cooldown_until`);
}
