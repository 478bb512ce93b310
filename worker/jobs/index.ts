/**
 * The Worker's entry points beyond HTTP: the queues' consumer and the cron trigger. Each builds
 * its services once (a queue batch, a cron tick: lib/services.ts), and what a job commits is
 * published after it (jobs/publish.ts), as an HTTP request's is after the response.
 */
import { z } from 'zod';
import type { Bindings } from '../env';
import { logLine } from '../lib/request-context';
import { buildServices, type Services } from '../lib/services';
import { scrubAddresses, sendEmails, sendEmailsMessageSchema, sweepEmails } from '../platform/email';
import { finishOpenReservations, releaseHeldLeads, sweepLeadTimers } from '../platform/leads';
import { sweepBilling } from '../platform/billing';
import { rollUp } from '../platform/rollups';
import { deliverMessageSchema, endpointsWithPending, sweepDueDeliveries } from '../platform/webhooks';
import { indexMessageSchema, indexSource, queueStaleUrlSources, requeueStuckSources } from '../platform/knowledge';
import { emailSendDeps } from './email';
import { publishCommittedEvents } from './publish';
import { purgeExpiredRecords } from './sweeps';
import {
  archiveExpired,
  expireOldExports,
  failPrivacyRequest,
  requeueStuckPrivacyRequests,
  PRIVACY_JOB_ATTEMPTS,
  privacyMessageSchema,
  retentionFrom,
  runPrivacyRequest,
} from '../platform/lifecycle';
import { endpointOutbox } from './webhook-endpoint';
import { enterBy, enterWhereFound } from '../platform/shards';
import { schema } from '../lib/db';

/** Every message the queues carry, by kind: what the producers send, checked here on arrival. */
export const queueMessageSchema = z.discriminatedUnion('kind', [
  deliverMessageSchema,
  sendEmailsMessageSchema,
  indexMessageSchema,
  privacyMessageSchema,
]);
export type QueueMessage = z.infer<typeof queueMessageSchema>;

/** Runs one message's job. */
async function runJob(message: QueueMessage, services: Services, env: Bindings): Promise<void> {
  if (message.kind === 'webhook.deliver') {
    // The events' organisation's shard holds their deliveries (an older message names no workspace).
    const { events } = schema;
    const workspaceId =
      message.workspace_id ??
      (await enterWhereFound(services.db, events, events.id, events.workspaceId, message.event_ids[0]!));
    if (!workspaceId || !(await enterBy(services.db, 'workspace', workspaceId))) return;
    // Hands over only: each endpoint's own outbox sends, so no receiver ever holds up this batch.
    const endpoints = await endpointsWithPending(services.db, message);
    await Promise.all(endpoints.map((id) => endpointOutbox(env.WEBHOOK_ENDPOINTS, id).wake(id, workspaceId)));
    return;
  }
  if (message.kind === 'privacy.run') {
    await runPrivacyRequest(services.db, env.ARCHIVE, message.request_id, services.clock.now());
    return;
  }
  if (message.kind === 'knowledge.index') {
    // A failure to read the source is recorded on it; only the database's errors are retried.
    await indexSource(services.db, message.source_id, {
      egress: services.egress,
      queue: services.queues.knowledge,
      now: () => services.clock.now(),
    });
    return;
  }
  // The rows are in the database the message names: a shard's, or the directory's.
  const deps = emailSendDeps(services);
  await sendEmails({ ...deps, db: message.shard === undefined ? deps.db : services.onShard(message.shard) }, message);
}

/**
 * The queues' consumer (events and emails). The messages of a batch run concurrently (one slow job
 * never holds up another's), each acknowledged once its job succeeds and retried (with the queue's
 * backoff) when it throws; a message that is not one of ours is logged and dropped.
 */
export async function handleQueue(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const services = buildServices(env, { kind: 'queue' });
  await Promise.all(
    batch.messages.map(async (message) => {
      const parsed = queueMessageSchema.safeParse(message.body);
      if (!parsed.success) {
        const kind = (message.body as { kind?: unknown } | null)?.kind;
        logLine({
          level: 'warn',
          message: 'queue_message_dropped',
          queue: batch.queue,
          kind: String(kind),
          id: message.id,
        });
        message.ack();
        return;
      }
      try {
        await runJob(parsed.data, services, env);
        message.ack();
        await publishCommittedEvents(services.db, env);
      } catch (error) {
        logLine({
          level: 'error',
          message: 'queue_job_failed',
          kind: parsed.data.kind,
          id: message.id,
          // An error may quote what it was given: never an address in the logs.
          error_message: scrubAddresses(error instanceof Error ? error.message : String(error)),
          stack: error instanceof Error && error.stack ? scrubAddresses(error.stack) : undefined,
        });
        // A privacy request's last attempt marks it failed, so the owner reads why (and may ask again).
        if (parsed.data.kind === 'privacy.run' && message.attempts >= PRIVACY_JOB_ATTEMPTS) {
          const reason = error instanceof Error ? error.message : String(error);
          await failPrivacyRequest(services.db, parsed.data.request_id, reason, services.clock.now()).then(
            () => message.ack(),
            () => message.retry(),
          );
          return;
        }
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
 * and digests fall due); every five minutes, housekeeping that keeps every table bounded.
 */
export async function handleScheduled(controller: ScheduledController, env: Bindings): Promise<void> {
  const services = buildServices(env, { kind: 'cron' });
  const { db } = services;
  // The one clock, not the trigger's scheduled time: tests move it (lib/clock.ts), and a late
  // trigger works from when it runs.
  const now = services.clock.now();
  if (controller.cron === CRON_HOUSEKEEPING) {
    const retention = retentionFrom(services.settings);
    const purged = await purgeExpiredRecords(db, now, retention);
    // Events, audit rows and requests' bodies past their retention: archived to R2, then removed.
    const archived = await archiveExpired(db, env.ARCHIVE, retention, now);
    // URL knowledge sources synced a day ago or more go back on the queue (each about daily).
    const resynced = await queueStaleUrlSources(db, services.queues.knowledge, now);
    // Sources still queued long after their message: sent again (a dropped message never strands one).
    const stuck = await requeueStuckSources(db, services.queues.knowledge, now);
    // Privacy requests likewise; and exports past their 7 days go.
    const privacy = await requeueStuckPrivacyRequests(db, services.queues.events, now);
    const exportsExpired = await expireOldExports(db, env.ARCHIVE, now);
    logLine({
      level: 'info',
      message: 'scheduled',
      cron: controller.cron,
      purged,
      archived,
      resynced,
      stuck,
      privacy,
      exports_expired: exportsExpired,
    });
    return;
  }
  // The shards' copies of providers, domains and memberships catch up with what a crash left behind.
  const copied = await services.copyReferences();
  // Lead timers first: the offers and escalations they make write emails the email sweep then finds;
  // so do the ledger's notices and statements. The rollups count what the outbox holds so far.
  const leads = await sweepLeadTimers(db, now, services.limits.leadMinuteMs);
  // Claims whose claimer stopped between the directory and the lead's shard: settled or given back.
  const claimsFinished = await finishOpenReservations(db, now);
  await rollUp(db);
  await sweepBilling(db, now);
  // After the month's close and its notices: a new month, or a credit, may make room for held leads.
  const released = await releaseHeldLeads(db, now, services.limits.leadMinuteMs);
  const [requeued, emails] = await Promise.all([
    sweepDueDeliveries(db, services.queues.events, now),
    sweepEmails(db, services.queues.emails, now),
  ]);
  logLine({
    level: 'info',
    message: 'scheduled',
    cron: controller.cron,
    requeued,
    emails,
    leads,
    released,
    claimsFinished,
    copied,
  });
  await publishCommittedEvents(db, env);
}
