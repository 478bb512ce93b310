/**
 * Leads held over the allowance (docs/design/billing.md): a visitor's message is never refused for
 * the owner's allowance, so its lead is made but held, offered to nobody. The cron sweep offers
 * each one as soon as there is room: a new month, a new contract, a credit that funds the overage.
 * Each release is one batch: the lead leaves its hold (once, whatever sweeps overlap), the leads
 * meter is charged by the same upsert an execution uses (its CHECKs refuse when there is still no
 * room, and the lead stays held), and the first wave is offered, with its alerts and history.
 */
import { sweepEachDatabase } from '../shards';
import { and, asc, eq, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, isConstraintViolation, schema } from '../../lib/db';
import { newId } from '../../lib/ids';
import { ROUTING_DEFAULTS, OFFER_WAVES } from '../../brain';
import { ContractCharge, contractInForce } from '../billing';
import { offerAlertInserts } from '../email';
import { firstWaveOffers } from './offers';

const { leads, leadEvents, channels } = schema;

/** At most this many held leads are tried per sweep (each is a batch of its own). */
const RELEASES_PER_SWEEP = 50;

/** The constraints that say "still no room" (the allowance, the escrow's funds). */
const NO_ROOM = ['usage_within_quota', 'contract_allowance_left', 'escrow_funds_left'];

/**
 * Releases held leads on every database that holds leads (releaseHeldLeadsIn, below); answers how many.
 */
export async function releaseHeldLeads(db: Database, now: number, minuteMs = 60_000): Promise<number> {
  return sweepEachDatabase(db, schema.leads, (each) => releaseHeldLeadsIn(each, now, minuteMs));
}

/** Offers the held leads there is room for now; answers how many were offered. */
async function releaseHeldLeadsIn(db: Database, now: number, minuteMs = 60_000): Promise<number> {
  const held = await db
    .select({
      id: leads.id,
      workspaceId: leads.workspaceId,
      domain: leads.domain,
      topic: leads.topic,
      routingPool: leads.routingPool,
      language: leads.language,
      region: leads.region,
      routing: channels.routing,
    })
    .from(leads)
    .leftJoin(channels, eq(channels.id, leads.channelId))
    .where(and(isNotNull(leads.heldAt), eq(leads.status, 'open')))
    .orderBy(asc(leads.heldAt))
    .limit(RELEASES_PER_SWEEP);
  const full = new Set<string>();
  let released = 0;
  for (const lead of held) {
    if (full.has(lead.workspaceId)) continue;
    const contract = await contractInForce(db, lead.workspaceId, now);
    const routing = { ...ROUTING_DEFAULTS, ...(lead.routing ?? {}) };
    const changeId = newId('lev', now);
    const applied = sql`EXISTS (SELECT 1 FROM ${leads} WHERE ${leads.id} = ${lead.id}
      AND ${leads.changeId} = ${changeId})`;
    const charge = contract ? new ContractCharge(contract, now).chargeWhen(db, 'leads', lead.id, applied) : undefined;
    const writes: BatchItem<'sqlite'>[] = [
      db
        .update(leads)
        .set({
          heldAt: null,
          wave: OFFER_WAVES.first,
          widenAt: now + routing.offer_widen_minutes * minuteMs,
          escalateAt: now + routing.escalate_minutes * minuteMs,
          changeId,
          updatedAt: now,
        })
        .where(and(eq(leads.id, lead.id), isNotNull(leads.heldAt), eq(leads.status, 'open'))),
      ...(charge ? [charge] : []),
      firstWaveOffers(db, lead.id, lead, routing.offer_first, now, applied),
      releaseHistory(db, lead.id, changeId, routing.offer_first, applied, now),
      offerAlertInserts(
        db,
        sql`o.lead_id = ${lead.id} AND o.wave = ${OFFER_WAVES.first} AND o.offered_at = ${now}`,
        now,
      ),
    ];
    try {
      await db.batch(writes as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
      released++;
    } catch (error) {
      if (!NO_ROOM.some((constraint) => isConstraintViolation(error, constraint))) throw error;
      // Still no room: this workspace's other held leads wait too.
      full.add(lead.workspaceId);
    }
  }
  return released;
}

function releaseHistory(db: Database, leadId: string, changeId: string, offerFirst: number, when: SQL, now: number) {
  const offered = offerFirst === 1 ? 'the best matching expert' : `the ${offerFirst} best matching experts`;
  return db.run(sql`INSERT INTO ${leadEvents}
      (id, lead_id, from_status, to_status, actor_kind, actor_id, note, created_at)
    SELECT ${changeId}, ${leadId}, 'open', 'open', 'system', NULL,
      ${`The allowance allows it now: offered to ${offered}.`}, ${now} WHERE ${when}`);
}
