/**
 * The email side of the every-minute cron sweep (docs/design/email.md), in a batch per database
 * whatever the number of rows, and safe when two sweeps overlap (each step moves rows out of the state it
 * reads, inside one transaction):
 *
 * - continuations held for 2 minutes: skipped when the visitor has read the replies; postponed
 *   while the conversation had one within 10 minutes; otherwise queued;
 * - digests: an expert whose oldest held alert is an hour old gets one digest of them;
 * - then everything due that the queue has not taken (a lost message, a dead consumer) goes back
 *   on the queue.
 */
import { routedHandleOf } from '../../lib/shards/router';
import { databasesHolding } from '../shards';
import { sql } from 'drizzle-orm';
import { type Database, schema, newIdsInStatement } from '../../lib/db';
import { enqueueEmails } from './send';

const { emails, messages, conversations } = schema;

/** At most one continuation per conversation in this window. */
export const CONTINUATION_SPACING_MS = 10 * 60 * 1000;
/** A digest gathers the alerts held for an hour. */
export const DIGEST_AFTER_MS = 60 * 60 * 1000;
/** Rows due this long and still not taken are put back on the queue. */
const SWEEP_GRACE_MS = 30_000;

const dueContinuation = (now: number) =>
  sql`${emails.kind} = 'visitor_continuation' AND ${emails.status} = 'held' AND ${emails.nextAttemptAt} <= ${now}`;

/** Replies of the row's conversation that the visitor has not read and no email has carried. */
const unreadReplies = sql`EXISTS (SELECT 1 FROM ${messages} m JOIN ${conversations} c ON c.id = m.conversation_id
  WHERE m.conversation_id = ${emails.conversationId} AND m.role IN ('provider', 'agent')
    AND m.id > COALESCE(c.visitor_read_up_to, '')
    AND m.id > COALESCE((SELECT MAX(s.up_to_message_id) FROM ${emails} s WHERE s.conversation_id = m.conversation_id
      AND s.kind = 'visitor_continuation' AND s.status IN ('sending', 'sent')), ''))`;

/** When the conversation's last continuation went (or goes), if within the spacing window. */
const lastContinuationAt = (now: number) => sql`(SELECT MAX(COALESCE(s.sent_at, ${now})) FROM ${emails} s
  WHERE s.conversation_id = ${emails.conversationId} AND s.kind = 'visitor_continuation'
    AND s.status IN ('queued', 'sending', 'sent') AND COALESCE(s.sent_at, ${now}) > ${now - CONTINUATION_SPACING_MS})`;

/** The continuations' writes, in order (on a database with conversations); the last returns the rows made due. */
function continuationWrites(db: Database, now: number) {
  return [
    db.run(sql`UPDATE ${emails} SET status = 'skipped', last_error = 'The visitor read the replies in time.',
      updated_at = ${now} WHERE ${dueContinuation(now)} AND NOT ${unreadReplies}`),
    db.run(sql`UPDATE ${emails} SET next_attempt_at = ${lastContinuationAt(now)} + ${CONTINUATION_SPACING_MS},
      updated_at = ${now} WHERE ${dueContinuation(now)} AND ${lastContinuationAt(now)} IS NOT NULL`),
    db.all<{ id: string }>(sql`UPDATE ${emails} SET status = 'queued', updated_at = ${now}
      WHERE ${dueContinuation(now)} RETURNING id`),
  ] as const;
}

/** The digests' writes, in order; the first returns the digests made. */
function digestWrites(db: Database, now: number) {
  const digestId = newIdsInStatement('eml', now);
  return [
    db.all<{ id: string }>(sql`INSERT INTO ${emails} (id, workspace_id, kind, status, provider_id, subject,
        link_origin, next_attempt_at, created_at, updated_at)
      SELECT ${digestId}, MIN(workspace_id), 'lead_digest', 'queued', provider_id, 'Your hourly lead digest',
        MAX(link_origin), ${now}, ${now}, ${now}
      FROM ${emails} WHERE kind = 'lead_alert' AND status = 'held'
      GROUP BY provider_id HAVING MIN(created_at) <= ${now - DIGEST_AFTER_MS}
      RETURNING id`),
    // Gathered, not sent: the email log shows such an alert with its digest's own status.
    db.run(sql`UPDATE ${emails} SET status = 'skipped', last_error = 'Gathered into the hourly digest.',
        updated_at = ${now},
        digest_id = (SELECT d.id FROM ${emails} d WHERE d.kind = 'lead_digest' AND d.provider_id = ${emails.providerId}
          AND d.created_at = ${now})
      WHERE kind = 'lead_alert' AND status = 'held' AND provider_id IN
        (SELECT d.provider_id FROM ${emails} d WHERE d.kind = 'lead_digest' AND d.created_at = ${now})`),
  ] as const;
}

/**
 * The email sweep, a batch per database: the continuations where there are conversations (each
 * shard), the digests and what is overdue wherever there are emails (the directory's account
 * emails too); each database's due rows go on the queue naming it. Answers how many went.
 */
export async function sweepEmails(db: Database, queue: Queue<unknown>, now: number): Promise<number> {
  let queued = 0;
  const enqueue = async (each: Database, rows: ReadonlyArray<{ id: string }>) => {
    const ids = [...new Set(rows.map((row) => row.id))];
    if (ids.length > 0) await enqueueEmails(queue, ids, 0, routedHandleOf(each)?.route.shard ?? null);
    queued += ids.length;
  };
  for (const each of databasesHolding(db, conversations)) {
    const [, , promoted] = await each.batch(continuationWrites(each, now));
    await enqueue(each, promoted);
  }
  for (const each of databasesHolding(db, emails)) {
    const [digests] = await each.batch(digestWrites(each, now));
    const overdue = await each.all<{ id: string }>(sql`SELECT id FROM ${emails}
      WHERE status IN ('queued', 'sending') AND next_attempt_at <= ${now - SWEEP_GRACE_MS}
      ORDER BY next_attempt_at LIMIT 500`);
    await enqueue(each, [...digests, ...overdue]);
  }
  return queued;
}

/** Housekeeping: settled emails made before `cutoff` (90 days by default), at most `limit` a tick. */
export function purgeOldEmails(db: Database, cutoff: number, limit: number) {
  return db.run(sql`DELETE FROM ${emails} WHERE rowid IN (SELECT rowid FROM ${emails} WHERE created_at < ${cutoff}
    AND status IN ('sent', 'failed', 'skipped') LIMIT ${limit})`);
}
