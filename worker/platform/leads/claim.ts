/**
 * The claim (docs/design/providers-and-leads.md and docs/design/lead-operations.md): one conditional
 * UPDATE on the lead's shard, so when many experts claim at once exactly one wins. It holds only
 * for a lead offered to the expert (not cooling down from a release or a lapse), while they hold
 * fewer than their `max_open_claims`, and within 30 claims an hour (claims that won: a lost race
 * costs nothing but an attempt, of which 600 an hour are allowed). The expert's side (their limits
 * and the lead's fee) is reserved in the directory first and settled after (claim-reservations.ts);
 * the lead's history, audit and event are written on the shard in the claim's own batch, and only
 * with the claim. The claim SLA's clock starts with it.
 */
import { and, eq, sql } from 'drizzle-orm';
import { insertWhere, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { eventInsertWhere, newEvent } from '../events';
import { auditInsertWhere, type AuditContext } from '../audit';
import type { LeadPrice } from '../billing';
import type { ProviderRow } from '../providers';
import { clock } from '../../lib/clock';
import { enterWhereFound, inDirectory, readEveryShard } from '../shards';
import { type Reservation, reserveClaim, returnClaim, settleClaim } from './claim-reservations';
import { openClaimsOf } from './offers';
import type { LeadDetail } from './schemas';
import { availableTo, changeApplied, leadDetailForProvider, leadInScope } from './workbench';

const { domains, leads, leadEvents, leadOffers, providers } = schema;

/**
 * Claims a lead for the expert; answers its detail, contact details included. The unit of work
 * has entered the lead's organisation (enterLeadOrganization).
 */
export async function claimLead(
  db: Database,
  provider: ProviderRow,
  leadId: string,
  audit: AuditContext,
  now = clock.now(),
): Promise<LeadDetail> {
  const directory = inDirectory(db);
  // Nothing is counted or paid for a lead the expert cannot claim now: refused as it stands.
  const lead = await claimable(db, provider, leadId, now);
  if (lead.theirs) return leadDetailForProvider(db, provider, leadId);
  const reservation = await reserveClaim(
    directory,
    { provider, leadId, workspaceId: lead.workspaceId, price: lead.price },
    now,
  );
  let claimed: boolean;
  try {
    claimed = await claimOnShard(db, provider, reservation, lead.heldElsewhere, audit, now);
  } catch (error) {
    await returnClaim(directory, reservation, now);
    throw error;
  }
  if (!claimed) {
    await returnClaim(directory, reservation, now);
    const after = await claimable(db, provider, leadId, now);
    if (!after.theirs) throw new ApiError('already_claimed', 'Another expert claimed this lead first.');
  } else await settleClaim(directory, reservation, now);
  return leadDetailForProvider(db, provider, leadId);
}

/**
 * The claim on the lead's shard, in one batch: the conditional UPDATE (offered, not cooling down,
 * under the expert's capacity counting the leads they hold on other shards), and, only when it
 * applied, the lead's history, two audit rows and the `lead.claimed` event.
 */
export async function claimOnShard(
  db: Database,
  provider: ProviderRow,
  reservation: Reservation,
  heldElsewhere: number,
  audit: AuditContext,
  now: number,
): Promise<boolean> {
  const { changeId, leadId } = reservation;
  const applied = changeApplied(leadId, changeId);
  const underCapacity = sql`${openClaimsOf(provider.id)} + ${heldElsewhere} < (SELECT ${providers.maxOpenClaims}
    FROM ${providers} WHERE ${providers.id} = ${provider.id})`;
  const [claimed] = await db.batch([
    db
      .update(leads)
      .set({
        status: 'claimed',
        claimedBy: provider.id,
        claimedAt: now,
        claimDeadline: sql`${now} + ${leads.claimSlaMs}`,
        firstClaimedAt: sql`COALESCE(${leads.firstClaimedAt}, ${now})`,
        changeId,
        updatedAt: now,
      })
      .where(and(eq(leads.id, leadId), availableTo(provider, now), underCapacity))
      .returning({ id: leads.id }),
    insertWhere(
      db,
      leadEvents,
      {
        id: changeId,
        leadId,
        fromStatus: 'open',
        toStatus: 'claimed',
        actorKind: 'provider',
        actorId: provider.id,
        note: null,
        createdAt: now,
      },
      applied,
    ),
    auditInsertWhere(
      db,
      audit,
      { action: 'lead.claimed', targetId: leadId, metadata: { provider_id: provider.id } },
      applied,
      now,
    ),
    // Every claim reveals the visitor's contact details to this expert: each reveal is audited
    // with the expert's id (the details themselves never enter the audit log) and counted.
    auditInsertWhere(
      db,
      audit,
      { action: 'lead.contact_revealed', targetId: leadId, metadata: { provider_id: provider.id } },
      applied,
      now,
    ),
    eventInsertWhere(
      db,
      newEvent('lead.claimed', sql`(SELECT ${leads.workspaceId} FROM ${leads} WHERE ${leads.id} = ${leadId})`, {
        lead_id: leadId,
        conversation_id: null,
        status: 'claimed',
        claimed_by: { provider_id: provider.id, name: provider.displayName },
        claimed_at: new Date(now).toISOString(),
      }),
      applied,
      now,
      { conversation_id: sql`(SELECT ${leads.conversationId} FROM ${leads} WHERE ${leads.id} = ${leadId})` },
    ),
  ]);
  return claimed.length > 0;
}

/** A lead the expert may claim now, or theirs already; what claiming it costs; how many they hold elsewhere. */
interface Claimable {
  theirs: boolean;
  workspaceId: string;
  price: LeadPrice;
  heldElsewhere: number;
}

/**
 * Whether the expert may claim the lead now, in the order an expert can act on: 404 out of their
 * scope or never offered, 409 claimed by another, 429-like `recently_released` while cooling down,
 * 409 `capacity_reached` at their limit (the leads they hold on every shard).
 */
async function claimable(db: Database, provider: ProviderRow, leadId: string, now: number): Promise<Claimable> {
  const [existing, lead, offer, heldHere, heldEverywhere] = await Promise.all([
    leadInScope(db, provider, leadId),
    db
      .select({
        workspaceId: leads.workspaceId,
        domain: leads.domain,
        minor: domains.leadPriceMinor,
        currency: domains.leadPriceCurrency,
      })
      .from(leads)
      .leftJoin(domains, eq(domains.slug, leads.domain))
      .where(eq(leads.id, leadId))
      .get(),
    db
      .select({ cooldownUntil: leadOffers.cooldownUntil })
      .from(leadOffers)
      .where(and(eq(leadOffers.leadId, leadId), eq(leadOffers.providerId, provider.id)))
      .get(),
    heldBy(db, provider.id),
    readEveryShard(db, leads, (shardDb) => heldBy(shardDb, provider.id)),
  ]);
  if (!existing || !lead) throw new ApiError('not_found', `No lead ${leadId} for you.`);
  const price = { domain: lead.domain, minor: lead.minor, currency: lead.currency };
  const heldElsewhere = heldEverywhere.reduce((sum, count) => sum + count, 0) - heldHere;
  const answer = { workspaceId: lead.workspaceId, price, heldElsewhere };
  if (existing.claimedBy === provider.id) return { ...answer, theirs: true };
  if (existing.status !== 'open') throw new ApiError('already_claimed', 'Another expert claimed this lead first.');
  const cooldown = offer?.cooldownUntil;
  if (cooldown && cooldown > now) {
    throw new ApiError('recently_released', 'You released this lead, or let it lapse: you may claim it again later.', {
      extensions: { retry_at: new Date(cooldown).toISOString() },
    });
  }
  if (!offer) throw new ApiError('not_found', `No lead ${leadId} for you.`);
  const held = heldHere + heldElsewhere;
  if (held >= provider.maxOpenClaims) {
    throw new ApiError(
      'capacity_reached',
      `You hold ${held} leads, your limit: finish or release one first (or raise max_open_claims).`,
      { extensions: { open_claims: held, max_open_claims: provider.maxOpenClaims } },
    );
  }
  return { ...answer, theirs: false };
}

/** How many leads an expert holds in one database. */
async function heldBy(db: Database, providerId: string): Promise<number> {
  const row = await db
    .select({ count: openClaimsOf(providerId).mapWith(Number) })
    .from(sql`(SELECT 1)`)
    .get();
  return row?.count ?? 0;
}

/**
 * Enters the shard of the organisation a lead belongs to (docs/design/scale.md#the-layout): an
 * expert names a lead by its id alone, and any shard may hold it. Not found anywhere: 404.
 */
export async function enterLeadOrganization(db: Database, leadId: string): Promise<void> {
  const { leads } = schema;
  if (!(await enterWhereFound(db, leads, leads.id, leads.workspaceId, leadId)))
    throw new ApiError('not_found', `No lead ${leadId}.`);
}
