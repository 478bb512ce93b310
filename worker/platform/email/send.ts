/**
 * Sending the outbox (docs/design/email.md), from the queue. Each row is claimed atomically
 * (`UPDATE … WHERE status = 'queued' … RETURNING`, with a lease), so two consumers never both
 * send it; then composed, sent, and settled as `sent`, `skipped`, retried with backoff, or
 * `failed` once 24 hours have passed. Its Message-ID is fixed per row: in the one case where a
 * row may go twice (a consumer dies after the server accepted it, before the row says so), the
 * recipient's mail system sees the same message.
 */
import { routedHandleOf } from '../../lib/shards/router';
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import { backoffDelayMs } from '../../lib/backoff';
import { type Database, schema } from '../../lib/db';
import { logLine } from '../../lib/request-context';
import { SmtpError } from '../../lib/smtp';
import { type ComposeSettings, composeEmail } from './compose';
import { scrubAddresses } from './addresses';
import type { MailTransport, NoTransport } from './transport';
import { clock } from '../../lib/clock';

const { emails } = schema;

/** The queue message that asks for some emails to be sent (the consumer parses it with this). */
export const sendEmailsMessageSchema = z.object({
  kind: z.literal('email.send'),
  email_ids: z.array(z.string().startsWith('eml_').max(64)).min(1).max(100),
  /** The shard whose database has the rows; none: the directory (an account's email, or an older message). */
  shard: z.number().int().min(0).max(255).optional(),
});
export type SendEmailsMessage = z.infer<typeof sendEmailsMessageSchema>;

/** Emails are retried for this long after they were written, then given up. */
export const EMAIL_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long one send may hold a row before another consumer may take it. */
export const SEND_LEASE_MS = 2 * 60 * 1000;
const MAX_STEP_MS = 2 * 60 * 60 * 1000;

/** What sending needs. */
export interface SendDeps {
  db: Database;
  queue: Queue<unknown>;
  transport: MailTransport | NoTransport;
  compose: ComposeSettings | { missing: string };
  /** The first retry waits about this long (doubling, at most 2 hours). */
  retryBaseSeconds: number;
  now?: () => number;
}

/** Sends at most 100 queue messages per call (the Queues limit), 25 emails each. */
export async function enqueueEmails(
  queue: Queue<unknown>,
  ids: string[],
  delaySeconds = 0,
  shard: number | null = null,
): Promise<void> {
  const messages: SendEmailsMessage[] = [];
  for (let start = 0; start < ids.length; start += 25)
    messages.push({
      kind: 'email.send',
      email_ids: ids.slice(start, start + 25),
      ...(shard === null ? {} : { shard }),
    });
  for (let start = 0; start < messages.length; start += 100) {
    await queue.sendBatch(
      messages.slice(start, start + 100).map((body) => ({ body, ...(delaySeconds > 0 ? { delaySeconds } : {}) })),
    );
  }
}

async function settle(db: Database, id: string, values: Partial<typeof emails.$inferInsert>, now: number) {
  await db
    .update(emails)
    .set({ ...values, updatedAt: now })
    .where(and(eq(emails.id, id), eq(emails.status, 'sending')));
}

/** One row: claim, compose, send, settle. Answers what became of it (nothing: not claimable now). */
export async function sendEmail(deps: SendDeps, id: string): Promise<string | undefined> {
  const { db } = deps;
  const now = deps.now?.() ?? clock.now();
  const [row] = await db
    .update(emails)
    .set({
      status: 'sending',
      attempts: sql`${emails.attempts} + 1`,
      nextAttemptAt: now + SEND_LEASE_MS,
      updatedAt: now,
    })
    .where(
      // Due; a `sending` row only once its lease has run out (its consumer died).
      and(eq(emails.id, id), inArray(emails.status, ['queued', 'sending']), lte(emails.nextAttemptAt, now)),
    )
    .returning();
  if (!row) return undefined;
  if (now - row.createdAt > EMAIL_RETRY_WINDOW_MS) {
    await settle(db, id, { status: 'failed', lastError: 'Not sent within 24 hours.' }, now);
    return 'failed';
  }
  if ('skipped' in deps.transport) {
    await settle(db, id, { status: 'skipped', lastError: deps.transport.skipped }, now);
    return 'skipped';
  }
  if ('missing' in deps.compose) {
    await settle(db, id, { status: 'skipped', lastError: deps.compose.missing }, now);
    return 'skipped';
  }
  let composed: Awaited<ReturnType<typeof composeEmail>>;
  try {
    composed = await composeEmail(db, row, deps.compose, now);
    if ('skip' in composed) {
      await settle(db, id, { status: 'skipped', lastError: composed.skip }, now);
      return 'skipped';
    }
    await deps.transport.send(composed.email);
  } catch (error) {
    const reason = scrubAddresses(error instanceof Error ? error.message : String(error)).slice(0, 500);
    const retryAt = now + backoffDelayMs(row.attempts, deps.retryBaseSeconds * 1000, MAX_STEP_MS);
    // A recipient the server refused for good (5xx) is refused again: no retry.
    const refusedForGood = error instanceof SmtpError && error.permanent && error.stage.includes('recipient');
    const givingUp = refusedForGood || retryAt - row.createdAt > EMAIL_RETRY_WINDOW_MS;
    await settle(
      db,
      id,
      givingUp
        ? {
            status: 'failed',
            lastError: refusedForGood ? reason : `Given up after ${row.attempts} attempts: ${reason}`,
          }
        : { status: 'queued', lastError: reason, nextAttemptAt: retryAt },
      now,
    );
    logLine({ level: 'warn', message: 'email_send_failed', email_id: id, attempts: row.attempts, error: reason });
    if (!givingUp)
      await enqueueEmails(deps.queue, [id], Math.ceil((retryAt - now) / 1000), routedHandleOf(db)?.route.shard ?? null);
    return givingUp ? 'failed' : 'retrying';
  }
  await settle(
    db,
    id,
    {
      status: 'sent',
      sentAt: now,
      lastError: null,
      ...(composed.upToMessageId ? { upToMessageId: composed.upToMessageId } : {}),
    },
    now,
  );
  logLine({ level: 'info', message: 'email_sent', email_id: id, kind: row.kind });
  return 'sent';
}

/** The queue job: each email of the message, one after another (one SMTP connection at a time). */
export async function sendEmails(deps: SendDeps, message: SendEmailsMessage): Promise<void> {
  for (const id of message.email_ids) await sendEmail(deps, id);
}
