/**
 * Sweeps run by the cron trigger. Expired records would otherwise only ever grow: idempotency
 * records past their 24 hours, ended console sessions, rate-limit windows long closed, settled
 * emails and webhook deliveries with their log after their retention (docs/design/data-lifecycle.md),
 * email keys past their 30 days. Deliveries paused for longer than the 3-day retry window (their
 * endpoint stayed disabled) are given up, with the reason. Each module says what of its own has
 * expired; this runs it all in one batch. Events, audit rows and requests' bodies are archived
 * before they go (platform/lifecycle).
 */
import type { Database } from '../lib/db';
import { purgeOldWindows } from '../lib/rate-limit';
import { purgeExpiredConversationKeys } from '../platform/conversations';
import { purgeExpiredIdempotencyRecords } from '../platform/core';
import { purgeOldEmails } from '../platform/email';
import { purgeEndedSessions } from '../platform/identity';
import { webhookHousekeeping } from '../platform/webhooks';
import { expiredBefore, type Retention, SWEEP_ROW_LIMIT } from '../platform/lifecycle';

/** Deletes what has expired, in one batch, and says how many rows of each went. */
export async function purgeExpiredRecords(db: Database, now: number, retention: Retention) {
  const [idempotency, sessions, windows, oldEmails, keys, oldDeliveries, , expiredPaused] = await db.batch([
    purgeExpiredIdempotencyRecords(db, now),
    purgeEndedSessions(db, now),
    purgeOldWindows(db, now),
    purgeOldEmails(db, expiredBefore(retention, 'emails', now), SWEEP_ROW_LIMIT),
    purgeExpiredConversationKeys(db, now),
    ...webhookHousekeeping(db, now, expiredBefore(retention, 'deliveries', now), SWEEP_ROW_LIMIT),
  ]);
  return {
    idempotency_records: idempotency.meta.changes,
    user_sessions: sessions.meta.changes,
    rate_limit_windows: windows.meta.changes,
    emails: oldEmails.meta.changes,
    conversation_keys: keys.meta.changes,
    webhook_deliveries: oldDeliveries.meta.changes,
    paused_deliveries_given_up: expiredPaused.meta.changes,
  };
}
