/**
 * The webhook side of the cron sweep: overdue deliveries back on the queue, and housekeeping of
 * events, deliveries and the delivery log.
 */
import { sweepEachDatabase } from '../shards';
import { and, eq, lt, lte, min, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { deliverMessages, enqueueDeliveries } from './outbox';
import { RETRY_WINDOW_MS } from './retry-policy';

const { webhookDeliveries, webhookAttempts } = schema;

/** The sweep takes deliveries overdue by this much (younger ones are still on their way). */
const SWEEP_GRACE_MS = 30_000;
/**
 * Nudges the endpoints with overdue deliveries on every database that holds them (below); answers how many.
 */
export async function sweepDueDeliveries(db: Database, queue: Queue<unknown>, now: number): Promise<number> {
  return sweepEachDatabase(db, schema.webhookDeliveries, (each) => sweepDueDeliveriesIn(each, queue, now));
}

/**
 * The cron sweep: an endpoint with an overdue delivery (its message was lost, its send failed,
 * its wait was longer than a queue delay, or its runner died mid-lease) gets one nudge on the
 * queue, whatever its backlog: its outbox then sends everything due, a run at a time. Answers the
 * number of endpoints nudged.
 */
async function sweepDueDeliveriesIn(db: Database, queue: Queue<unknown>, now: number): Promise<number> {
  const due = await db
    .select({
      endpointId: webhookDeliveries.endpointId,
      workspaceId: min(webhookDeliveries.workspaceId),
      eventId: min(webhookDeliveries.eventId),
    })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now - SWEEP_GRACE_MS)))
    .groupBy(webhookDeliveries.endpointId)
    .limit(1000);
  await enqueueDeliveries(
    queue,
    due.flatMap((row) => deliverMessages([row.eventId!], row.workspaceId!, row.endpointId)),
  );
  return due.length;
}

/**
 * Housekeeping: settled deliveries and the delivery log after `deliveryCutoff` (30 days by
 * default; retries stop after 3), at most `limit` rows of each a tick; and deliveries paused for
 * longer than the 3-day retry window (their endpoint stayed disabled) are given up, with the
 * reason. Events themselves are the lifecycle sweep's: archived, then deleted. The statements, in
 * order: deliveries, attempts, paused given up.
 */
export function webhookHousekeeping(db: Database, now: number, deliveryCutoff: number, limit: number) {
  return [
    db.run(sql`DELETE FROM ${webhookDeliveries} WHERE rowid IN (SELECT rowid FROM ${webhookDeliveries}
      WHERE created_at < ${deliveryCutoff} AND status != 'pending' LIMIT ${limit})`),
    db.run(sql`DELETE FROM ${webhookAttempts} WHERE rowid IN (SELECT rowid FROM ${webhookAttempts}
      WHERE created_at < ${deliveryCutoff} LIMIT ${limit})`),
    db
      .update(webhookDeliveries)
      .set({
        status: 'failed',
        lastError: 'Not delivered: its endpoint was disabled for longer than the 3-day retry window.',
        updatedAt: now,
      })
      .where(and(eq(webhookDeliveries.status, 'paused'), lt(webhookDeliveries.createdAt, now - RETRY_WINDOW_MS))),
  ] as const;
}
