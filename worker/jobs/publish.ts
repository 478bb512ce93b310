/**
 * After a commit: the events a request or a job wrote go to the live rooms of their conversations
 * (at once: a person is waiting) and to the events queue, where webhooks pick them up; the emails
 * it made due go to the queue too, to be sent. Every entry
 * point does this after its work has committed: HTTP after the response (waitUntil), the queue
 * and cron after each job. A failure is only logged: the cron sweep finds the deliveries anyway,
 * and a live client resumes from D1.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv, Bindings } from '../env';
import type { Database } from '../lib/db';
import { logLine } from '../lib/request-context';
import { fanOutLive, revokeLive } from '../live/fan-out';
import { takeLiveRevocations } from '../platform/conversations';
import { enqueueEmails, takeCommittedEmails } from '../platform/email';
import { takeCommittedEvents } from '../platform/events';
import { enqueueForDelivery } from '../platform/webhooks';

/** Hands the events committed through `db` to the queue. */
export async function publishCommittedEvents(
  db: Database,
  env: Pick<Bindings, 'EVENTS' | 'EMAILS' | 'CONVERSATIONS'>,
  requestId?: string,
): Promise<void> {
  const committed = takeCommittedEvents(db);
  const emails = takeCommittedEmails(db);
  const revocations = takeLiveRevocations(db);
  if (committed.length === 0 && emails.length === 0 && revocations.length === 0) return;
  const warn = (message: string) => (error: unknown) =>
    logLine({
      level: 'warn',
      message,
      ...(requestId ? { request_id: requestId } : {}),
      error: error instanceof Error ? error.message : String(error),
    });
  await Promise.all([
    fanOutLive(env.CONVERSATIONS, committed).catch(warn('live_fan_out_failed')),
    revocations.length > 0 ? revokeLive(env.CONVERSATIONS, revocations).catch(warn('live_revoke_failed')) : undefined,
    enqueueForDelivery(db, env.EVENTS, committed).catch(warn('outbox_enqueue_failed')),
    ...emails.map((sent) => enqueueEmails(env.EMAILS, sent.ids, 0, sent.shard).catch(warn('email_enqueue_failed'))),
  ]);
}

/** The HTTP entry point's part: after the response, the request's committed events. */
export const publishAfterResponse = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const db = c.var.db;
  if (!db) return;
  let context: { waitUntil(promise: Promise<unknown>): void };
  try {
    context = c.executionCtx;
  } catch {
    return; // Called without an execution context (app.request in tests): the sweep delivers.
  }
  context.waitUntil(publishCommittedEvents(db, c.env, c.var.requestId));
});
