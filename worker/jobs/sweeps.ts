/**
 * Sweeps run by the cron trigger. Expired records would otherwise only ever grow: idempotency
 * records past their 24 hours, ended console sessions, rate-limit windows long closed, and
 * events with their deliveries and delivery log after 30 days. Deliveries paused for longer than
 * the 3-day retry window (their endpoint stayed disabled) are given up, with the reason.
 */
import { and, eq, lt, ne } from 'drizzle-orm';
import { schema, type Database } from '../lib/db';
import { RETRY_WINDOW_MS } from '../platform/webhooks/delivery';

const { idempotencyRecords, userSessions, rateLimitWindows, events, webhookDeliveries, webhookAttempts } = schema;

/** Events, their deliveries and the delivery log are kept 30 days (retries stop after 3). */
const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** No window (per minute, or sign-in's 15 minutes) outlives this; older rows count nothing. */
const WINDOW_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Deletes what has expired, in one batch, and says how many rows of each went. */
export async function purgeExpiredRecords(db: Database, now: number) {
  const eventCutoff = now - EVENT_RETENTION_MS;
  const [idempotency, sessions, windows, oldEvents, , , expiredPaused] = await db.batch([
    db.delete(idempotencyRecords).where(lt(idempotencyRecords.expiresAt, now)),
    db.delete(userSessions).where(lt(userSessions.expiresAt, now)),
    db.delete(rateLimitWindows).where(lt(rateLimitWindows.windowStart, now - WINDOW_RETENTION_MS)),
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
  ]);
  return {
    idempotency_records: idempotency.meta.changes,
    user_sessions: sessions.meta.changes,
    rate_limit_windows: windows.meta.changes,
    events: oldEvents.meta.changes,
    paused_deliveries_given_up: expiredPaused.meta.changes,
  };
}
