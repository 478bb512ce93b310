/**
 * The claim (docs/design/providers-and-leads.md and docs/design/lead-operations.md): one conditional UPDATE, so when
 * many experts claim at
 * once exactly one wins. It holds only for a lead offered to the expert (not cooling down from a
 * release or a lapse), while they hold fewer than their `max_open_claims`, and within 30 claims an
 * hour (claims that won: a lost race costs nothing but an attempt, of which 600 an hour are
 * allowed); its history, audit, event, the expert's round-robin time and reveal count are written in
 * the same batch, and only with the claim. The claim SLA's clock starts with it.
 */
import { and, eq, sql } from 'drizzle-orm';
import { insertWhere, isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { readWindows, windowIncrement } from '../../lib/rate-limit';
import { eventInsertWhere, newEvent } from '../events';
import { auditInsertWhere, type AuditContext } from '../audit';
import { claimRefusal, feeInOtherCurrency, insufficientCredits, leadFeeInsert } from '../billing';
import type { ProviderRow } from '../providers';
import { CLAIM_BOUNDS } from '../../brain';
import { clock } from '../../lib/clock';
import { enterWhereFound } from '../shards';

const { claimsPerHour: CLAIMS_PER_HOUR, claimAttemptsPerHour: CLAIM_ATTEMPTS_PER_HOUR } = CLAIM_BOUNDS;
import { openClaimsOf } from './offers';
import type { LeadDetail } from './schemas';
import { availableTo, changeApplied, leadDetailForProvider, leadInScope } from './workbench';

const { leads, leadEvents, leadOffers, providers } = schema;

const HOUR_MS = 60 * 60 * 1000;

/** The expert holds fewer leads than they may: a condition inside the claim's UPDATE. */
const underCapacity = (provider: ProviderRow) =>
  sql`${openClaimsOf(provider.id)} < (SELECT ${providers.maxOpenClaims} FROM ${providers}
    WHERE ${providers.id} = ${provider.id})`;

/** Claims a lead for the expert; answers its detail, contact details included. */
export async function claimLead(
  db: Database,
  provider: ProviderRow,
  leadId: string,
  audit: AuditContext,
  now = clock.now(),
): Promise<LeadDetail> {
  const changeId = newId('lev', now);
  const applied = changeApplied(leadId, changeId);
  let claimed: Array<{ id: string }>;
  try {
    [, claimed] = await db.batch([
      windowIncrement(db, `claim-attempts:${provider.id}`, now, HOUR_MS, CLAIM_ATTEMPTS_PER_HOUR),
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
        .where(and(eq(leads.id, leadId), availableTo(provider, now), underCapacity(provider)))
        .returning({ id: leads.id }),
      // Counted only when the claim applied; the 31st claim that would apply fails the whole batch.
      windowIncrement(db, `claims:${provider.id}`, now, HOUR_MS, CLAIMS_PER_HOUR, {
        increment: sql`CASE WHEN ${applied} THEN 1 ELSE 0 END`,
      }),
      // The domain's lead price, from the expert's escrow (docs/design/billing.md); without the funds, no claim.
      leadFeeInsert(db, { providerId: provider.id, leadId, applied }, now),
      db
        .update(providers)
        .set({ lastClaimedAt: now, contactReveals: sql`${providers.contactReveals} + 1` })
        .where(and(eq(providers.id, provider.id), applied)),
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
  } catch (error) {
    const refusal = claimRefusal(error);
    if (refusal === 'funds') throw await insufficientCredits(db, leadId);
    if (refusal === 'currency') throw await feeInOtherCurrency(db, provider.id, leadId);
    if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    const windows = await readWindows(db, [`claims:${provider.id}`, `claim-attempts:${provider.id}`], now, HOUR_MS);
    const full = windows.find((window) => window.maxCount !== null && window.count >= window.maxCount) ?? windows[0];
    const retryAfter = Math.max(1, Math.ceil(((full?.resetAt ?? now + HOUR_MS) - now) / 1000));
    const attempts = full?.subject.startsWith('claim-attempts:');
    throw new ApiError(
      'rate_limited',
      attempts
        ? `At most ${CLAIM_ATTEMPTS_PER_HOUR} claim attempts an hour.`
        : `At most ${CLAIMS_PER_HOUR} claims an hour.`,
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  }
  if (claimed.length === 0) await refusal(db, provider, leadId, now);
  return leadDetailForProvider(db, provider, leadId);
}

/** Why a claim did not apply, in the order an expert can act on; returns when it is theirs already. */
async function refusal(db: Database, provider: ProviderRow, leadId: string, now: number): Promise<void> {
  const existing = await leadInScope(db, provider, leadId);
  if (!existing) throw new ApiError('not_found', `No lead ${leadId} for you.`);
  if (existing.claimedBy === provider.id) return;
  if (existing.status !== 'open') throw new ApiError('already_claimed', 'Another expert claimed this lead first.');
  const [offer, held] = await db.batch([
    db
      .select({ cooldownUntil: leadOffers.cooldownUntil })
      .from(leadOffers)
      .where(and(eq(leadOffers.leadId, leadId), eq(leadOffers.providerId, provider.id))),
    db
      .select({ count: openClaimsOf(provider.id).mapWith(Number), max: providers.maxOpenClaims })
      .from(providers)
      .where(eq(providers.id, provider.id)),
  ]);
  const cooldown = offer[0]?.cooldownUntil;
  if (cooldown && cooldown > now) {
    throw new ApiError('recently_released', 'You released this lead, or let it lapse: you may claim it again later.', {
      extensions: { retry_at: new Date(cooldown).toISOString() },
    });
  }
  if (!offer[0]) throw new ApiError('not_found', `No lead ${leadId} for you.`);
  const capacity = held[0];
  if (capacity && capacity.count >= capacity.max) {
    throw new ApiError(
      'capacity_reached',
      `You hold ${capacity.count} leads, your limit: finish or release one first (or raise max_open_claims).`,
      { extensions: { open_claims: capacity.count, max_open_claims: capacity.max } },
    );
  }
  throw new ApiError('already_claimed', 'Another expert claimed this lead first.');
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
