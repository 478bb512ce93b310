/**
 * The Worker's entry points beyond HTTP: the events queue's consumer and the cron trigger.
 * Each job gets the same database wrapper the HTTP routes use, and what it commits is published
 * after it (jobs/publish.ts), as an HTTP request's is after the response.
 */
import { executionLimits, readSettings, type Bindings } from '../env';
import { createDatabase, type Database } from '../lib/db';
import { logLine } from '../lib/request-context';
import { sendEmails, type SendEmailsMessage, sweepEmails } from '../platform/email';
import { sweepLeadTimers } from '../platform/leads';
import { endpointsWithPending, sweepDueDeliveries } from '../platform/webhooks';
import type { DeliverMessage } from '../platform/webhooks';
import { emailSendDeps } from './email';
import { publishCommittedEvents } from './publish';
import { purgeExpiredRecords } from './sweeps';
import { endpointOutbox } from './webhook-endpoint';

/** A message on the events queue: its kind says which job handles it. */
export interface QueueMessageBody {
  kind: string;
  [field: string]: unknown;
}

type QueueJob = (body: QueueMessageBody, env: Bindings, db: Database) => Promise<void>;

/** The queue jobs, by message kind. */
const QUEUE_JOBS: Record<string, QueueJob> = {
  // Hands over only: each endpoint's own outbox sends, so no receiver ever holds up this batch.
  'webhook.deliver': async (body, env, db) => {
    const endpoints = await endpointsWithPending(db, body as unknown as DeliverMessage);
    await Promise.all(endpoints.map((id) => endpointOutbox(env.WEBHOOK_ENDPOINTS, id).wake(id)));
  },
  'email.send': (body, env, db) => sendEmails(emailSendDeps(env, db), body as unknown as SendEmailsMessage),
};

/**
 * The events queue's consumer. The messages of a batch run concurrently (one slow job never
 * holds up another's), each acknowledged once its job succeeds and retried (with the queue's
 * backoff) when it throws; a message of an unknown kind is logged and dropped.
 */
export async function handleQueue(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  readSettings(env);
  await Promise.all(
    batch.messages.map(async (message) => {
      const body = message.body as QueueMessageBody;
      const job = QUEUE_JOBS[body?.kind];
      if (!job) {
        logLine({
          level: 'warn',
          message: 'queue_message_dropped',
          queue: batch.queue,
          kind: String(body?.kind),
          id: message.id,
        });
        message.ack();
        return;
      }
      try {
        const db = createDatabase(env.DB);
        await job(body, env, db);
        message.ack();
        await publishCommittedEvents(db, env);
      } catch (error) {
        logLine({
          level: 'error',
          message: 'queue_job_failed',
          kind: body.kind,
          id: message.id,
          error_message: error instanceof Error ? error.message : String(error),
        });
        message.retry();
      }
    }),
  );
}

/** The cron schedules of wrangler.toml, and what each runs. */
export const CRON_OUTBOX_SWEEP = '* * * * *';
export const CRON_HOUSEKEEPING = '*/5 * * * *';

/**
 * The cron triggers: every minute, the lead timers (offer waves, escalation, claim SLA) and the
 * outbox sweeps (overdue webhook deliveries and emails go back on the queue; held continuations
 * and digests fall due); every five minutes, housekeeping
 * that keeps every table bounded.
 */
export async function handleScheduled(controller: ScheduledController, env: Bindings): Promise<void> {
  readSettings(env);
  const db = createDatabase(env.DB);
  if (controller.cron === CRON_HOUSEKEEPING) {
    const purged = await purgeExpiredRecords(db, controller.scheduledTime);
    logLine({ level: 'info', message: 'scheduled', cron: controller.cron, purged });
    return;
  }
  // Lead timers first: the offers and escalations they make write emails the email sweep then finds.
  const leads = await sweepLeadTimers(db, controller.scheduledTime, executionLimits(readSettings(env)).leadMinuteMs);
  const [requeued, emails] = await Promise.all([
    sweepDueDeliveries(db, env.EVENTS, controller.scheduledTime),
    sweepEmails(db, env.EMAILS, controller.scheduledTime),
  ]);
  logLine({ level: 'info', message: 'scheduled', cron: controller.cron, requeued, emails, leads });
  await publishCommittedEvents(db, env);
}
