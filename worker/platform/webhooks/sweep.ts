/**
 * The webhook side of the cron sweep: overdue deliveries back on the queue, and housekeeping of
 * events, deliveries and the delivery log.
 */
import { and, eq, lt, lte, min, ne } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { enqueueDeliveries } from './outbox';
import { RETRY_WINDOW_MS } from './retry-policy';

const { webhookDeliveries, webhookAttempts, events } = schema;

/** The sweep takes deliveries overdue by this much (younger ones are still on their way). */
const SWEEP_GRACE_MS = 30_000;
/**
 * The cron sweep: an endpoint with an overdue delivery (its message was lost, its send failed,
 * its wait was longer than a queue delay, or its runner died mid-lease) gets one nudge on the
 * queue, whatever its backlog: its outbox then sends everything due, a run at a time. Answers the
 * number of endpoints nudged.
 */
export async function sweepDueDeliveries(db: Database, queue: Queue<unknown>, now: number): Promise<number> {
  const due = await db
    .select({ endpointId: webhookDeliveries.endpointId, eventId: min(webhookDeliveries.eventId) })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now - SWEEP_GRACE_MS)))
    .groupBy(webhookDeliveries.endpointId)
    .limit(1000);
  await enqueueDeliveries(
    queue,
    due.map((row) => ({ kind: 'webhook.deliver', event_ids: [row.eventId!], endpoint_id: row.endpointId })),
  );
  return due.length;
}

/** Events, their deliveries and the delivery log are kept 30 days (retries stop after 3). */
const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Housekeeping: events, their deliveries and the delivery log after 30 days; and deliveries paused
 * for longer than the 3-day retry window (their endpoint stayed disabled) are given up, with the
 * reason. The statements, in order: events, deliveries, attempts, paused given up.
 */
export function webhookHousekeeping(db: Database, now: number) {
  const eventCutoff = now - EVENT_RETENTION_MS;
  return [
    db.delete(events).where(lt(events.createdAt, eventCutoff)),
    db
      .delete(webhookDeliveries)
      .where(and(lt(webhookDeliveries.createdAt, eventCutoff), ne(webhookDeliveries.status, 'pending'))),
    db.delete(webhookAttempts).where(lt(webhookAttempts.createdAt, eventCutoff)),
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
