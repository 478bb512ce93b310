/**
 * Lead timers in the cron sweep (docs/design/lead-operations.md), each step one D1 batch whatever the
 * number of leads, and idempotent when two sweeps overlap: each step's last statement moves the
 * leads out of the state its first ones select, inside one transaction, so a second sweep finds
 * nothing left to do.
 *
 * - widen: a lead unclaimed after `offer_widen_minutes` is offered to every matching expert;
 * - escalate: unclaimed after `escalate_minutes`, its workspace's owners are emailed and
 *   `lead.unclaimed` is written;
 * - claim SLA: a lead still `claimed` (no reply, no move to contacted) `claim_sla_minutes` after
 *   the claim is released, offered to every matching expert but the one who let it lapse (who
 *   waits 24 hours), with `lead.released`.
 *
 * Each step writes a history entry per lead, and alerts for the offers it makes.
 */
import { databasesHolding } from '../shards';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, schema, newIdsInStatement } from '../../lib/db';
import { offerAlertInserts, unclaimedAlertInserts } from '../email';
import { eventsFromRows } from '../events';
import { CLAIM_BOUNDS, OFFER_WAVES } from '../../brain';
import { widenOffers } from './offers';
import { iso } from '../../lib/periods';

const { leads, leadEvents, leadOffers, channels, providers } = schema;

/** `N minutes` (or `1 minute`) of a span in ms, in the timers' minutes. */
const minutesOf = (ms: SQL, minuteMs: number) =>
  sql`CAST(ROUND((${ms}) * 1.0 / ${minuteMs}) AS INTEGER) || CASE WHEN ROUND((${ms}) * 1.0 / ${minuteMs}) = 1
    THEN ' minute' ELSE ' minutes' END`;
const referenceOf = sql`'D-' || upper(substr(l.demand_id, -6))`;

/** A history entry for each lead `l` that `which` selects. */
function historyRows(db: Database, which: SQL, from: string, to: string, note: SQL, now: number) {
  return db.run(sql`INSERT INTO ${leadEvents}
    (id, lead_id, from_status, to_status, actor_kind, actor_id, note, created_at)
    SELECT ${newIdsInStatement('lev', now)}, l.id, ${from}, ${to}, 'system', NULL, ${note}, ${now}
    FROM ${leads} l WHERE ${which}`);
}

/** What each step did: how many leads it moved. */
export interface TimerSweep {
  widened: number;
  escalated: number;
  lapsed: number;
}

/** Runs the timers on every database that holds leads (each shard its own), the counts summed. */
export async function sweepLeadTimers(db: Database, now: number, minuteMs = 60_000): Promise<TimerSweep> {
  const sum: TimerSweep = { widened: 0, escalated: 0, lapsed: 0 };
  for (const each of databasesHolding(db, schema.leads)) {
    const done = await sweepLeadTimersIn(each, now, minuteMs);
    sum.widened += done.widened;
    sum.escalated += done.escalated;
    sum.lapsed += done.lapsed;
  }
  return sum;
}

/** Runs the three steps, one batch each (three round trips in all); `minuteMs` words the history. */
async function sweepLeadTimersIn(db: Database, now: number, minuteMs: number): Promise<TimerSweep> {
  const widen = sql`l.status = 'open' AND l.wave = ${OFFER_WAVES.first} AND l.widen_at <= ${now}`;
  const widened = await db.batch([
    widenOffers(db, widen, now),
    offerAlertInserts(db, sql`o.offered_at = ${now} AND o.wave = ${OFFER_WAVES.everyone} AND ${widen}`, now),
    historyRows(
      db,
      widen,
      'open',
      'open',
      sql`'Nobody claimed it within ' || ${minutesOf(sql`l.widen_at - l.created_at`, minuteMs)} ||
        ': offered to every matching expert.'`,
      now,
    ),
    db.run(sql`UPDATE ${leads} SET wave = ${OFFER_WAVES.everyone}, updated_at = ${now}
      WHERE status = 'open' AND wave = ${OFFER_WAVES.first} AND widen_at <= ${now}`),
  ]);

  const escalate = sql`l.status = 'open' AND l.escalated_at IS NULL AND l.escalate_at <= ${now}`;
  const escalated = await db.batch([
    eventsFromRows(
      db,
      'lead.unclaimed',
      {
        from: sql`FROM ${leads} l WHERE ${escalate}`,
        workspaceId: sql`l.workspace_id`,
        data: sql`json_object('lead_id', l.id, 'conversation_id', l.conversation_id, 'reference', ${referenceOf},
          'domain', l.domain, 'channel_key', (SELECT ${channels.channelKey} FROM ${channels} WHERE ${channels.id} =
          l.channel_id), 'waiting_minutes', CAST((${now} - l.created_at) / ${minuteMs} AS INTEGER),
          'created_at', ${iso(now)})`,
      },
      now,
    ),
    unclaimedAlertInserts(db, escalate, now),
    historyRows(
      db,
      escalate,
      'open',
      'open',
      sql`'Nobody claimed it within ' || ${minutesOf(sql`l.escalate_at - l.created_at`, minuteMs)} ||
        ': the workspace''s owners were emailed.'`,
      now,
    ),
    db.run(sql`UPDATE ${leads} SET escalated_at = ${now}, updated_at = ${now}
      WHERE status = 'open' AND escalated_at IS NULL AND escalate_at <= ${now}`),
  ]);

  const lapse = sql`l.status = 'claimed' AND l.claim_deadline <= ${now}`;
  const lapsed = await db.batch([
    db.run(sql`INSERT INTO ${leadOffers} (lead_id, provider_id, wave, offered_at, cooldown_until)
      SELECT l.id, l.claimed_by, ${OFFER_WAVES.everyone}, ${now}, ${now + CLAIM_BOUNDS.cooldownMs} FROM ${leads} l
      WHERE ${lapse}
      ON CONFLICT (lead_id, provider_id) DO UPDATE SET cooldown_until = excluded.cooldown_until`),
    widenOffers(db, lapse, now, sql`l.claimed_by`),
    offerAlertInserts(db, sql`o.offered_at = ${now} AND o.provider_id IS NOT l.claimed_by AND ${lapse}`, now),
    eventsFromRows(
      db,
      'lead.released',
      {
        from: sql`FROM ${leads} l WHERE ${lapse}`,
        workspaceId: sql`l.workspace_id`,
        data: sql`json_object('lead_id', l.id, 'conversation_id', l.conversation_id, 'status', 'open',
          'released_by', json_object('provider_id', l.claimed_by, 'name', (SELECT ${providers.displayName}
          FROM ${providers} WHERE ${providers.id} = l.claimed_by)), 'reason', 'claim_sla', 'released_at', ${iso(now)})`,
      },
      now,
    ),
    historyRows(
      db,
      lapse,
      'claimed',
      'open',
      sql`'Released: no reply within ' || ${minutesOf(sql`l.claim_sla_ms`, minuteMs)} ||
        ' of the claim. Offered to every other matching expert.'`,
      now,
    ),
    db.run(sql`UPDATE ${leads} SET status = 'open', claimed_by = NULL, claimed_at = NULL, claim_deadline = NULL,
      wave = ${OFFER_WAVES.everyone}, change_id = NULL, updated_at = ${now}
      WHERE status = 'claimed' AND claim_deadline <= ${now}`),
  ]);
  return {
    widened: widened[3].meta.changes,
    escalated: escalated[3].meta.changes,
    lapsed: lapsed[5].meta.changes,
  };
}
