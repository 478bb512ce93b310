/**
 * The Worker's entry points beyond HTTP: the events queue's consumer and the cron trigger.
 * Each job gets the same database wrapper the HTTP routes use, and what it commits is published
 * after it (jobs/publish.ts), as an HTTP request's is after the response.
 */
import { executionLimits, readSettings, type Bindings } from '../env';
import { createDatabase, type Database } from '../lib/db';
import { egressPolicy } from '../lib/egress';
import { logLine } from '../lib/request-context';
import { sendEmails, type SendEmailsMessage, sweepEmails } from '../platform/email';
import { sweepLeadTimers } from '../platform/leads';
import { deliverEvents, EndpointLimiter, sweepDueDeliveries, type DeliveryBatchContext } from '../platform/webhooks';
import type { DeliverMessage } from '../platform/webhooks';
import { emailSendDeps } from './email';
import { publishCommittedEvents } from './publish';
import { purgeExpiredRecords } from './sweeps';

/** A message on the events queue: its kind says which job handles it. */
export interface QueueMessageBody {
  kind: string;
  [field: string]: unknown;
}

/** What the messages of one queue batch share: the per-endpoint bound on webhook attempts. */
interface BatchShared {
  delivery: DeliveryBatchContext;
}

type QueueJob = (body: QueueMessageBody, env: Bindings, db: Database, shared: BatchShared) => Promise<void>;

/** The queue jobs, by message kind. */
const QUEUE_JOBS: Record<string, QueueJob> = {
  'webhook.deliver': async (body, env, db, shared) => {
    const settings = readSettings(env);
    await deliverEvents(
      {
        db,
        queue: env.EVENTS,
        egress: egressPolicy(settings),
        secretsKey: settings.SECRETS_KEY,
        retryBaseSeconds: settings.WEBHOOK_RETRY_BASE_SECONDS,
      },
      body as unknown as DeliverMessage,
      shared.delivery,
    );
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
  const shared: BatchShared = { delivery: { limiter: new EndpointLimiter() } };
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
        await job(body, env, db, shared);
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
    sweepEmails(db, env.EVENTS, controller.scheduledTime),
  ]);
  logLine({ level: 'info', message: 'scheduled', cron: controller.cron, requeued, emails, leads });
  await publishCommittedEvents(db, env);
}
