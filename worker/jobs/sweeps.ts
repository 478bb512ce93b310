/**
 * Sweeps run by the cron trigger. Expired records would otherwise only ever grow: idempotency
 * records past their 24 hours, ended console sessions, rate-limit windows long closed, settled
 * emails and webhook deliveries with their log after their retention (docs/design/data-lifecycle.md),
 * email keys past their 30 days. Deliveries paused for longer than the 3-day retry window (their
 * endpoint stayed disabled) are given up, with the reason. Each module says what of its own has
 * expired; this runs it in a batch per database. Events, audit rows and requests' bodies are archived
 * before they go (platform/lifecycle).
 */
import { type Database, schema } from '../lib/db';
import { databasesHolding, inDirectory } from '../platform/shards';
import { purgeOldWindows } from '../lib/rate-limit';
import { purgeExpiredConversationKeys } from '../platform/conversations';
import { purgeExpiredIdempotencyRecords } from '../platform/core';
import { purgeOldEmails } from '../platform/email';
import { purgeEndedSessions } from '../platform/identity';
import { webhookHousekeeping } from '../platform/webhooks';
import { expiredBefore, type Retention, SWEEP_ROW_LIMIT } from '../platform/lifecycle';

/**
 * Deletes what has expired and says how many rows of each went: in one batch per database, each
 * database its own (the sessions are the directory's; keys' records, conversations' keys and
 * deliveries each shard's; rate limits and emails every database's).
 */
export async function purgeExpiredRecords(db: Database, now: number, retention: Retention) {
  const purged = {
    idempotency_records: 0,
    user_sessions: 0,
    rate_limit_windows: 0,
    emails: 0,
    conversation_keys: 0,
    webhook_deliveries: 0,
    paused_deliveries_given_up: 0,
  };
  const directory = inDirectory(db);
  const [sessions] = await directory.batch([purgeEndedSessions(directory, now)]);
  purged.user_sessions = sessions.meta.changes;
  for (const each of databasesHolding(db, schema.rateLimitWindows)) {
    const [windows, oldEmails] = await each.batch([
      purgeOldWindows(each, now),
      purgeOldEmails(each, expiredBefore(retention, 'emails', now), SWEEP_ROW_LIMIT),
    ]);
    purged.rate_limit_windows += windows.meta.changes;
    purged.emails += oldEmails.meta.changes;
  }
  for (const each of databasesHolding(db, schema.idempotencyRecords)) {
    const [idempotency, keys, oldDeliveries, , expiredPaused] = await each.batch([
      purgeExpiredIdempotencyRecords(each, now),
      purgeExpiredConversationKeys(each, now),
      ...webhookHousekeeping(each, now, expiredBefore(retention, 'deliveries', now), SWEEP_ROW_LIMIT),
    ]);
    purged.idempotency_records += idempotency.meta.changes;
    purged.conversation_keys += keys.meta.changes;
    purged.webhook_deliveries += oldDeliveries.meta.changes;
    purged.paused_deliveries_given_up += expiredPaused.meta.changes;
  }
  return purged;
}
