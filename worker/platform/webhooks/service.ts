/**
 * Webhook endpoints (docs/design/webhooks.md and docs/design/identity-and-access.md): provisioned by an admin per
 * workspace,
 * read by the workspace's owners. The URL passes the egress guard at creation (and again at
 * every delivery); the `whsec_` secret is shown once, at creation and at each rotation, and is
 * stored encrypted. Each endpoint has a delivery log, and any event can be delivered again.
 */
import { and, desc, eq, lt } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { schema, type Database } from '../../lib/db';
import { checkEgressUrl, type EgressPolicy } from '../../lib/egress';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { encryptSecret, SIGNING_SECRET_OVERLAP_MS } from '../../lib/secrets';
import { newWebhookSecret } from '../../lib/standard-webhooks';
import { requireSecretsKey } from '../agents';
import { auditInsert, type AuditContext } from '../audit';
import { disableWrites } from './disable';
import { RETRY_WINDOW_MS } from './retry-policy';
import { deliverMessages, enqueueDeliveries, forgetEndpoints } from './outbox';
import type { EventType } from './schemas';
import { clock } from '../../lib/clock';
import { iso } from '../../lib/periods';

const { webhookEndpoints, webhookDeliveries, webhookAttempts, events, workspaces } = schema;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** An endpoint as admins and owners see it: never its secret. */
export function endpointView(row: EndpointRow, now = clock.now()) {
  return {
    webhook_id: row.id,
    workspace_id: row.workspaceId,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes,
    status: row.status,
    disabled_reason: row.disabledReason,
    disabled_at: iso(row.disabledAt),
    failing_since: iso(row.failingSince),
    previous_secret_valid_until:
      row.previousSigningSecretUntil && row.previousSigningSecretUntil > now
        ? iso(row.previousSigningSecretUntil)
        : null,
    created_at: iso(row.createdAt),
  };
}
export type EndpointView = ReturnType<typeof endpointView>;

export interface NewEndpoint {
  workspaceId: string;
  url: string;
  eventTypes: EventType[];
  description?: string;
}

/** Creates an endpoint; its secret is in this answer only. */
export async function createEndpoint(
  db: Database,
  audit: AuditContext,
  input: NewEndpoint,
  egress: EgressPolicy,
  secretsKey: string | undefined,
  now = clock.now(),
) {
  const check = checkEgressUrl(input.url, egress);
  if (!check.ok)
    throw new ApiError('validation_failed', 'The URL cannot be used.', {
      errors: [{ pointer: '/url', detail: check.detail }],
    });
  const key = requireSecretsKey(secretsKey);
  const workspace = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.id, input.workspaceId))
    .get();
  if (!workspace) throw new ApiError('not_found', `No workspace ${input.workspaceId}.`);
  const secret = newWebhookSecret();
  const row: EndpointRow = {
    id: newId('whk', now),
    workspaceId: input.workspaceId,
    url: check.url.toString(),
    description: input.description ?? null,
    eventTypes: [...new Set(input.eventTypes)],
    status: 'active',
    disabledReason: null,
    disabledAt: null,
    signingSecret: await encryptSecret(secret, key),
    previousSigningSecret: null,
    previousSigningSecretUntil: null,
    failingSince: null,
    changeId: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.batch([
    db.insert(webhookEndpoints).values(row),
    auditInsert(
      db,
      audit,
      {
        action: 'webhook.created',
        targetId: row.id,
        workspaceId: row.workspaceId,
        metadata: { url: row.url, event_types: row.eventTypes },
      },
      now,
    ),
  ]);
  forgetEndpoints(row.workspaceId);
  return { ...endpointView(row, now), secret };
}

async function endpointById(db: Database, webhookId: string): Promise<EndpointRow> {
  const row = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, webhookId)).get();
  if (!row) throw new ApiError('not_found', `No webhook endpoint ${webhookId}.`);
  return row;
}

/** A workspace's endpoints, newest first. */
export async function listEndpoints(db: Database, workspaceId: string) {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.workspaceId, workspaceId))
    .orderBy(desc(webhookEndpoints.id))
    .limit(100);
  return rows.map((row) => endpointView(row));
}

/** One endpoint of a workspace (another workspace's is 404). */
export async function endpointOfWorkspace(db: Database, workspaceId: string, webhookId: string) {
  const row = await endpointById(db, webhookId);
  if (row.workspaceId !== workspaceId) throw new ApiError('not_found', `No webhook endpoint ${webhookId}.`);
  return endpointView(row);
}

/**
 * Disables (by an admin) or enables an endpoint again. Disabling pauses its pending deliveries;
 * enabling sends what was paused (events raised while it was disabled included) if they are
 * still within the 3-day retry window, and gives up on older ones, saying so in the log.
 */
export async function setEndpointEnabled(
  db: Database,
  queue: Queue<unknown>,
  audit: AuditContext,
  webhookId: string,
  enabled: boolean,
  now = clock.now(),
) {
  const row = await endpointById(db, webhookId);
  if (!enabled) {
    await db.batch(
      disableWrites(db, webhookId, 'admin', now, undefined, audit) as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]],
    );
    forgetEndpoints(row.workspaceId);
    return endpointView(await endpointById(db, webhookId), now);
  }
  const paused = and(eq(webhookDeliveries.endpointId, webhookId), eq(webhookDeliveries.status, 'paused'));
  const [, expired, resumed] = await db.batch([
    db
      .update(webhookEndpoints)
      .set({ status: 'active', disabledReason: null, disabledAt: null, failingSince: null, updatedAt: now })
      .where(eq(webhookEndpoints.id, webhookId)),
    db
      .update(webhookDeliveries)
      .set({
        status: 'failed',
        lastError: 'Not delivered: its endpoint was disabled for longer than the 3-day retry window.',
        updatedAt: now,
      })
      .where(and(paused, lt(webhookDeliveries.createdAt, now - RETRY_WINDOW_MS)))
      .returning({ eventId: webhookDeliveries.eventId }),
    db
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now, updatedAt: now })
      .where(paused)
      .returning({ eventId: webhookDeliveries.eventId }),
    auditInsert(db, audit, { action: 'webhook.enabled', targetId: webhookId, workspaceId: row.workspaceId }, now),
  ]);
  forgetEndpoints(row.workspaceId);
  // What waited goes out now, oldest first; anything not enqueued here the cron sweep finds.
  const ids = resumed.map((delivery) => delivery.eventId).sort();
  await enqueueDeliveries(queue, deliverMessages(ids, row.workspaceId, webhookId)).catch(() => undefined);
  return { ...endpointView(await endpointById(db, webhookId), now), replayed: resumed.length, expired: expired.length };
}

/** A new secret, in this answer only; the old one keeps signing for 24 hours. */
export async function rotateEndpointSecret(
  db: Database,
  audit: AuditContext,
  webhookId: string,
  secretsKey: string | undefined,
  now = clock.now(),
) {
  const key = requireSecretsKey(secretsKey);
  const row = await endpointById(db, webhookId);
  const secret = newWebhookSecret();
  const until = now + SIGNING_SECRET_OVERLAP_MS;
  const [updated] = await db.batch([
    db
      .update(webhookEndpoints)
      .set({
        signingSecret: await encryptSecret(secret, key),
        previousSigningSecret: row.signingSecret,
        previousSigningSecretUntil: until,
        updatedAt: now,
      })
      .where(and(eq(webhookEndpoints.id, webhookId), eq(webhookEndpoints.signingSecret, row.signingSecret)))
      .returning({ id: webhookEndpoints.id }),
    auditInsert(
      db,
      audit,
      { action: 'webhook.secret_rotated', targetId: webhookId, workspaceId: row.workspaceId },
      now,
    ),
  ]);
  if (updated.length === 0)
    throw new ApiError('conflict', 'The secret was rotated meanwhile. Rotate again if you need a new one.');
  return { webhook_id: webhookId, secret, previous_secret_valid_until: iso(until) };
}

/** The delivery log of an endpoint: its attempts, newest first, with the event and the delivery's state. */
export async function deliveryLog(db: Database, webhookId: string, options: { limit: number; startingAfter?: string }) {
  const rows = await db
    .select({
      attempt: webhookAttempts,
      type: events.type,
      deliveryStatus: webhookDeliveries.status,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookAttempts)
    .innerJoin(events, eq(events.id, webhookAttempts.eventId))
    .innerJoin(
      webhookDeliveries,
      and(
        eq(webhookDeliveries.eventId, webhookAttempts.eventId),
        eq(webhookDeliveries.endpointId, webhookAttempts.endpointId),
      ),
    )
    .where(
      and(
        eq(webhookAttempts.endpointId, webhookId),
        options.startingAfter ? lt(webhookAttempts.id, options.startingAfter) : undefined,
      ),
    )
    .orderBy(desc(webhookAttempts.id))
    .limit(options.limit + 1);
  return {
    data: rows.slice(0, options.limit).map((row) => ({
      attempt_id: row.attempt.id,
      event_id: row.attempt.eventId,
      event_type: row.type,
      attempt: row.attempt.attempt,
      status_code: row.attempt.statusCode,
      duration_ms: row.attempt.durationMs,
      error: row.attempt.error,
      at: iso(row.attempt.createdAt),
      delivery_status: row.deliveryStatus,
      next_attempt_at: row.deliveryStatus === 'pending' ? iso(row.nextAttemptAt) : null,
    })),
    has_more: rows.length > options.limit,
  };
}

/** Delivers one event to an endpoint again (the same `webhook-id`), now. */
export async function redeliver(
  db: Database,
  queue: Queue<unknown>,
  audit: AuditContext,
  webhookId: string,
  eventId: string,
  now = clock.now(),
) {
  const endpoint = await endpointById(db, webhookId);
  if (endpoint.status !== 'active') throw new ApiError('conflict', 'The endpoint is disabled; enable it first.');
  const key = and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.endpointId, webhookId));
  const delivery = await db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(key).get();
  if (!delivery) throw new ApiError('not_found', `Event ${eventId} was never due at ${webhookId}.`);
  await db.batch([
    db.update(webhookDeliveries).set({ status: 'pending', nextAttemptAt: now, updatedAt: now }).where(key),
    auditInsert(
      db,
      audit,
      {
        action: 'webhook.redelivered',
        targetId: webhookId,
        workspaceId: endpoint.workspaceId,
        metadata: { event_id: eventId, was: delivery.status },
      },
      now,
    ),
  ]);
  await enqueueDeliveries(queue, deliverMessages([eventId], endpoint.workspaceId, webhookId));
  return { webhook_id: webhookId, event_id: eventId, status: 'pending' as const };
}
