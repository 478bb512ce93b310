/**
 * The expert's side of leads: the lists and a lead's detail in the expert's scope, the claim, and
 * the claimer's status changes, each one atomic (`UPDATE … WHERE … RETURNING`).
 */
import { readEveryShard } from '../shards';
import { and, desc, eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { demandReference, OFFER_WAVES } from '../../brain';
import { insertWhere, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { threadQuery, toMessageViews } from '../conversations';
import { auditInsertWhere, type AuditContext } from '../audit';
import { eventInsertWhere, newEvent } from '../events';
import type { ProviderRow } from '../providers';
import type { LeadDetail, LeadStatus, LeadView } from './schemas';
import { offerAlertInserts } from '../email';
import { CLAIM_BOUNDS } from '../../brain';
import { cooldownWrite, everOffered, offeredTo, widenOffers } from './offers';
import { leadTransitionAllowed } from './transitions';
import { clock } from '../../lib/clock';
import { memberMayWorkIn } from '../identity';

const { leads, leadEvents, channels, domains } = schema;

type LeadRow = typeof leads.$inferSelect;

/** The provider's accepted scope and routing pool, as a condition on leads. */
function inScope(provider: ProviderRow): SQL {
  const topics = provider.acceptedTopics.length > 0 ? inArray(leads.topic, provider.acceptedTopics) : sql`1`;
  // A workspace-pool lead is a member's, and only one the organisation's two-step rule lets work there.
  const member = memberMayWorkIn(provider.userId, sql`${leads.workspaceId}`);
  const pool = sql`(${leads.routingPool} = 'platform' OR ${member})`;
  return and(inArray(leads.domain, provider.acceptedDomains), topics, pool)!;
}

/** Open, in the provider's scope, and offered to them (not cooling down): their Available list. */
export const availableTo = (provider: ProviderRow, now = clock.now()) =>
  and(eq(leads.status, 'open'), inScope(provider), offeredTo(provider.id, now))!;
/** The lead is claimed by this provider (a condition on leads). */
export const claimedBy = (provider: ProviderRow) => eq(leads.claimedBy, provider.id);

/**
 * A lead's columns as the workbench reads them: the lead, its channel's name, and what claiming it
 * costs (the domain's price, in the price's currency; a claim from credits in another is refused).
 */
const leadColumns = {
  lead: leads,
  channelName: channels.name,
  feeMinor: sql<number | null>`(SELECT ${domains.leadPriceMinor} FROM ${domains}
    WHERE ${domains.slug} = ${leads.domain})`,
  feeCurrency: sql<string | null>`(SELECT ${domains.leadPriceCurrency} FROM ${domains}
    WHERE ${domains.slug} = ${leads.domain})`,
};

type LeadRowWithFee = {
  lead: LeadRow;
  channelName: string | null;
  feeMinor: number | null;
  feeCurrency: string | null;
};

function toView(row: LeadRowWithFee, provider: ProviderRow): LeadView {
  const { lead } = row;
  const mine = lead.claimedBy === provider.id;
  return {
    lead_id: lead.id,
    status: lead.status,
    domain: lead.domain,
    topic: lead.topic,
    urgency: lead.urgency,
    trigger: lead.trigger,
    reference: demandReference(lead.demandId),
    summary: lead.summary,
    attribution: lead.attribution,
    channel_name: row.channelName,
    created_at: new Date(lead.createdAt).toISOString(),
    ...(lead.claimedAt !== null && mine ? { claimed_at: new Date(lead.claimedAt).toISOString() } : {}),
    ...(mine ? { contact: { name: lead.contactName, email: lead.contactEmail, phone: lead.contactPhone } } : {}),
    claim_fee:
      lead.status === 'open' && row.feeMinor !== null && row.feeCurrency
        ? { amount_minor: row.feeMinor, currency: row.feeCurrency }
        : null,
  };
}

export interface LeadListQuery {
  scope: 'available' | 'mine';
  status?: LeadStatus;
  limit: number;
  startingAfter?: string;
}

/**
 * A page of the workbench, newest first, with cursor pagination on the time-sortable id (so
 * leads arriving meanwhile never shift a page), and the counts of both tabs: one round trip to
 * each database that holds leads, at once.
 */
export async function listLeadsForProvider(db: Database, provider: ProviderRow, query: LeadListQuery) {
  const scope = query.scope === 'available' ? availableTo(provider) : claimedBy(provider);
  const conditions = [
    scope,
    ...(query.status ? [eq(leads.status, query.status)] : []),
    ...(query.startingAfter ? [lt(leads.id, query.startingAfter)] : []),
  ];
  // Every shard's leads at once (an expert works for every organisation), merged newest first.
  const pages = await readEveryShard(db, leads, (shardDb) =>
    shardDb.batch([
      shardDb
        .select(leadColumns)
        .from(leads)
        .leftJoin(channels, eq(channels.id, leads.channelId))
        .where(and(...conditions))
        .orderBy(desc(leads.id))
        .limit(query.limit + 1),
      shardDb.select({ count: sql<number>`count(*)` }).from(leads).where(availableTo(provider)),
      shardDb.select({ count: sql<number>`count(*)` }).from(leads).where(claimedBy(provider)),
    ]),
  );
  const rows = pages
    .flatMap(([page]) => page)
    .sort((a, b) => (a.lead.id < b.lead.id ? 1 : a.lead.id > b.lead.id ? -1 : 0))
    .slice(0, query.limit + 1);
  const total = (at: 1 | 2) => pages.reduce((sum, page) => sum + (page[at][0]?.count ?? 0), 0);
  return {
    data: rows.slice(0, query.limit).map((row) => toView(row, provider)),
    has_more: rows.length > query.limit,
    counts: { available: total(1), mine: total(2) },
  };
}

/** A lead (with its channel's name) by id, when `visible` holds for it. */
function leadQuery(db: Database, leadId: string, visible: SQL = sql`1`) {
  return db
    .select(leadColumns)
    .from(leads)
    .leftJoin(channels, eq(channels.id, leads.channelId))
    .where(and(eq(leads.id, leadId), visible));
}

/**
 * A lead's detail view (its whole conversation and its history), when `visible` holds for it:
 * the lead, its messages and its events in one round trip.
 */
async function leadDetail(
  db: Database,
  provider: ProviderRow,
  leadId: string,
  visible?: SQL,
): Promise<LeadDetail | undefined> {
  const conversationOf = sql`(SELECT ${leads.conversationId} FROM ${leads} WHERE ${leads.id} = ${leadId})`;
  const [rows, messageRows, events] = await db.batch([
    leadQuery(db, leadId, visible),
    threadQuery(db, conversationOf, { limit: 500 }),
    db.select().from(leadEvents).where(eq(leadEvents.leadId, leadId)).orderBy(leadEvents.id),
  ]);
  const row = rows[0];
  if (!row) return undefined;
  return {
    ...toView(row, provider),
    messages: toMessageViews(messageRows),
    history: events.map((event) => ({
      from: event.fromStatus,
      to: event.toStatus,
      actor: event.actorKind,
      by_you: event.actorKind === 'provider' && event.actorId === provider.id,
      note: event.note,
      value:
        event.valueMinor !== null && event.valueCurrency
          ? { value_minor: event.valueMinor, currency: event.valueCurrency }
          : null,
      at: new Date(event.createdAt).toISOString(),
    })),
  };
}

/** A lead with its whole conversation and history: theirs, or open in their scope. Anything else is 404. */
export async function leadDetailForProvider(db: Database, provider: ProviderRow, leadId: string): Promise<LeadDetail> {
  const detail = await leadDetail(db, provider, leadId, sql`(${claimedBy(provider)} OR ${availableTo(provider)})`);
  if (!detail) throw new ApiError('not_found', `No lead ${leadId} for you.`);
  return detail;
}

/**
 * Whether the lead was ever offered to the provider, in their scope (whatever its status now): the
 * 403/409 cases. A lead never offered to them is 404, exactly as an id that does not exist, so
 * that nobody learns of leads they were not meant to see.
 */
export async function leadInScope(db: Database, provider: ProviderRow, leadId: string) {
  return db
    .select({ status: leads.status, claimedBy: leads.claimedBy })
    .from(leads)
    .where(and(eq(leads.id, leadId), inScope(provider), everOffered(provider.id)))
    .get();
}

/**
 * This change (`changeId`, the id of its history row) is the lead's last: the condition under
 * which the change's history, audit and event rows are written. Concurrent changes that lost the
 * race write nothing, even in the same millisecond.
 */
export const changeApplied = (leadId: string, changeId: string) =>
  sql`EXISTS (SELECT 1 FROM ${leads} WHERE ${leads.id} = ${leadId} AND ${leads.changeId} = ${changeId})`;

/**
 * A lead this provider claimed, for an act only its claimer may do (`act`: what, in the refusal):
 * 404 when it is out of the provider's scope, 403 `not_claimer` when another expert holds it.
 */
export async function leadOfClaimer(db: Database, provider: ProviderRow, leadId: string, act: string) {
  const lead = await db
    .select({
      status: leads.status,
      claimedBy: leads.claimedBy,
      workspaceId: leads.workspaceId,
      conversationId: leads.conversationId,
    })
    .from(leads)
    .where(eq(leads.id, leadId))
    .get();
  if (!lead || (lead.claimedBy !== provider.id && !(await leadInScope(db, provider, leadId))))
    throw new ApiError('not_found', `No lead ${leadId} for you.`);
  if (lead.claimedBy !== provider.id)
    throw new ApiError('not_claimer', `Only the expert who claimed this lead can ${act}.`);
  return lead;
}

/**
 * The claimer moves a lead along (claimed → contacted → qualified → won | lost), or releases it
 * back to `open`. The change is conditional on the status it starts from, so two changes at once
 * cannot both apply. Others in scope get 403 `not_claimer`; out of scope, 404.
 */
export async function changeLeadStatus(
  db: Database,
  provider: ProviderRow,
  leadId: string,
  to: LeadStatus,
  detail: { note: string | null; value?: { value_minor: number; currency: string } },
  audit: AuditContext,
  now = clock.now(),
): Promise<LeadDetail> {
  const { note } = detail;
  const current = await leadOfClaimer(db, provider, leadId, 'change its status');
  if (!leadTransitionAllowed(current.status, to)) {
    throw new ApiError('invalid_transition', `A lead cannot go from ${current.status} to ${to}.`, {
      extensions: { status: current.status },
    });
  }
  const release = to === 'open';
  const changeId = newId('lev', now);
  const applied = changeApplied(leadId, changeId);
  const changedBy = { provider_id: provider.id, name: provider.displayName };
  const [changed] = await db.batch([
    db
      .update(leads)
      .set({
        status: to,
        changeId,
        updatedAt: now,
        ...(release ? { claimedBy: null, claimedAt: null, claimDeadline: null, wave: OFFER_WAVES.everyone } : {}),
        ...(to === 'contacted' ? { firstContactedAt: sql`COALESCE(${leads.firstContactedAt}, ${now})` } : {}),
      })
      .where(and(eq(leads.id, leadId), eq(leads.status, current.status), claimedBy(provider)))
      .returning({ id: leads.id }),
    // A release: the lead goes to every matching expert, and its releaser waits 24 hours to claim it again.
    ...(release
      ? [
          widenOffers(db, sql`l.id = ${leadId} AND ${applied}`, now, sql`${provider.id}`),
          cooldownWrite(db, leadId, provider.id, now, now + CLAIM_BOUNDS.cooldownMs, applied),
          offerAlertInserts(db, sql`o.lead_id = ${leadId} AND o.offered_at = ${now} AND ${applied}`, now),
          eventInsertWhere(
            db,
            newEvent('lead.released', current.workspaceId, {
              lead_id: leadId,
              conversation_id: current.conversationId,
              status: 'open',
              released_by: changedBy,
              reason: 'released',
              released_at: new Date(now).toISOString(),
            }),
            applied,
            now,
          ),
        ]
      : []),
    insertWhere(
      db,
      leadEvents,
      {
        id: changeId,
        leadId,
        fromStatus: current.status,
        toStatus: to,
        actorKind: 'provider',
        actorId: provider.id,
        note,
        valueMinor: to === 'won' ? (detail.value?.value_minor ?? null) : null,
        valueCurrency: to === 'won' ? (detail.value?.currency ?? null) : null,
        createdAt: now,
      },
      applied,
    ),
    auditInsertWhere(
      db,
      audit,
      {
        action: release ? 'lead.released' : 'lead.status_changed',
        targetId: leadId,
        metadata: { from: current.status, to },
      },
      applied,
      now,
    ),
    eventInsertWhere(
      db,
      newEvent('lead.status_changed', current.workspaceId, {
        lead_id: leadId,
        conversation_id: current.conversationId,
        from: current.status,
        to,
        changed_by: changedBy,
        changed_at: new Date(now).toISOString(),
      }),
      applied,
      now,
    ),
  ]);
  if (changed.length === 0)
    throw new ApiError('invalid_transition', 'The lead changed meanwhile. Reload it and try again.');
  return (await leadDetail(db, provider, leadId))!;
}
