/**
 * Webhook delivery (PRODUCT.md section 10): at least once, from the outbox, through the events
 * queue. A consumer leases the due deliveries of an event (so two consumers do not both send),
 * POSTs each through the egress guard with Standard Webhooks headers (the event id is the
 * `webhook-id` of every attempt), logs the attempt, and on failure schedules the next one with
 * exponential backoff and jitter, honouring `Retry-After`, for about three days. A 410 disables
 * the endpoint; so do three days of failures. The cron sweep re-enqueues whatever is overdue.
 */
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { schema, type Database } from '../../lib/db';
import { EgressRefused, guardedFetch, type EgressPolicy } from '../../lib/egress';
import { newId } from '../../lib/ids';
import { signingSecretsInForce } from '../../lib/secrets';
import { signStandardWebhook } from '../../lib/standard-webhooks';
import { enqueueDeliveries, type DeliverMessage } from './outbox';

const { webhookEndpoints, webhookDeliveries, webhookAttempts, events } = schema;

/** Retries stop, and a failing endpoint is disabled, after this long. */
export const RETRY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;
/** No single wait is longer than this. */
const MAX_STEP_MS = 6 * 60 * 60 * 1000;
const DELIVERY_TIMEOUT_MS = 10_000;
/** An attempt in flight holds its delivery this long (then the sweep may hand it out again). */
const LEASE_MS = 60_000;
/** The longest delay a queue message may carry; longer waits are left to the sweep. */
const QUEUE_MAX_DELAY_SECONDS = 12 * 60 * 60;
/** The sweep takes deliveries overdue by this much (younger ones are still on their way). */
const SWEEP_GRACE_MS = 30_000;

/**
 * The wait before attempt `attempt + 1`, after `attempt` failures: the base doubled each time,
 * at most 6 hours, with "equal jitter" (half fixed, half random) so retries spread out.
 */
export function retryDelayMs(failures: number, baseSeconds: number, random: () => number = Math.random): number {
  const step = Math.min(baseSeconds * 1000 * 2 ** Math.max(0, failures - 1), MAX_STEP_MS);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** A `Retry-After` header (seconds, or an HTTP date) as milliseconds from now, if it says anything. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface DeliveryEnvironment {
  db: Database;
  queue: Queue<unknown>;
  egress: EgressPolicy;
  secretsKey: string | undefined;
  retryBaseSeconds: number;
}

type Endpoint = typeof webhookEndpoints.$inferSelect;
type EventRow = typeof events.$inferSelect;

/** What one attempt ended with. */
type AttemptResult = { kind: 'delivered'; status: number } | { kind: 'gone'; status: number } | { kind: 'failed'; status: number | null; error: string; retryAfterMs?: number };

/** The exact body every attempt of an event sends: the event envelope of PRODUCT.md section 10. */
export function eventBody(event: EventRow): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: new Date(event.createdAt).toISOString(), workspace_id: event.workspaceId, data: event.data });
}

/** One POST of an event to an endpoint. */
async function attempt(env: DeliveryEnvironment, endpoint: Endpoint, event: EventRow, now: number): Promise<AttemptResult> {
  if (!env.secretsKey) return { kind: 'failed', status: null, error: 'SECRETS_KEY is not configured.' };
  const body = eventBody(event);
  let headers: Record<string, string>;
  try {
    const secrets = await signingSecretsInForce(
      { current: endpoint.signingSecret, previous: endpoint.previousSigningSecret, previousUntil: endpoint.previousSigningSecretUntil },
      env.secretsKey,
      now,
    );
    headers = await signStandardWebhook(secrets, event.id, Math.floor(now / 1000), body);
  } catch {
    return { kind: 'failed', status: null, error: 'The endpoint’s signing secret cannot be read (SECRETS_KEY changed?).' };
  }
  try {
    const response = await guardedFetch(
      endpoint.url,
      { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json', 'User-Agent': 'EdgeGateway-Webhooks/1' }, body, timeoutMs: DELIVERY_TIMEOUT_MS },
      env.egress,
    );
    await response.body?.cancel();
    if (response.ok) return { kind: 'delivered', status: response.status };
    if (response.status === 410) return { kind: 'gone', status: 410 };
    const retryAfter = retryAfterMs(response.headers.get('Retry-After'), now);
    return { kind: 'failed', status: response.status, error: `HTTP ${response.status}.`, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) };
  } catch (error) {
    if (error instanceof EgressRefused) return { kind: 'failed', status: null, error: `Refused by the egress guard: ${error.message}` };
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return { kind: 'failed', status: null, error: `No answer within ${DELIVERY_TIMEOUT_MS / 1000} s.` };
    return { kind: 'failed', status: null, error: 'The connection failed.' };
  }
}

/** The writes that record one attempt and its consequences, and the retry it asks for. */
function outcomeWrites(
  db: Database,
  delivery: { eventId: string; endpointId: string; attempts: number; createdAt: number },
  result: AttemptResult,
  startedAt: number,
  env: DeliveryEnvironment,
): { writes: BatchItem<'sqlite'>[]; retryInMs?: number } {
  const now = Date.now();
  const number = delivery.attempts + 1;
  const key = and(eq(webhookDeliveries.eventId, delivery.eventId), eq(webhookDeliveries.endpointId, delivery.endpointId));
  const writes: BatchItem<'sqlite'>[] = [
    db.insert(webhookAttempts).values({
      id: newId('att', now),
      eventId: delivery.eventId,
      endpointId: delivery.endpointId,
      attempt: number,
      statusCode: result.status,
      durationMs: now - startedAt,
      error: result.kind === 'failed' ? result.error : null,
      createdAt: now,
    }),
  ];
  const cancelPending = db
    .update(webhookDeliveries)
    .set({ status: 'cancelled', updatedAt: now })
    .where(and(eq(webhookDeliveries.endpointId, delivery.endpointId), eq(webhookDeliveries.status, 'pending'), sql`EXISTS (SELECT 1 FROM ${webhookEndpoints} WHERE ${webhookEndpoints.id} = ${delivery.endpointId} AND ${webhookEndpoints.status} = 'disabled')`));
  if (result.kind === 'delivered') {
    writes.push(
      db.update(webhookDeliveries).set({ status: 'delivered', attempts: number, lastStatus: result.status, lastError: null, deliveredAt: now, updatedAt: now }).where(key),
      db.update(webhookEndpoints).set({ failingSince: null }).where(eq(webhookEndpoints.id, delivery.endpointId)),
    );
    return { writes };
  }
  if (result.kind === 'gone') {
    // 410 Gone: the receiver says the endpoint is no more. Stop sending to it at all.
    writes.push(
      db.update(webhookDeliveries).set({ status: 'failed', attempts: number, lastStatus: 410, lastError: 'The endpoint answered 410 Gone; it is disabled.', updatedAt: now }).where(key),
      db.update(webhookEndpoints).set({ status: 'disabled', disabledReason: 'gone', disabledAt: now, updatedAt: now }).where(and(eq(webhookEndpoints.id, delivery.endpointId), eq(webhookEndpoints.status, 'active'))),
      cancelPending,
    );
    return { writes };
  }
  const backoff = retryDelayMs(number, env.retryBaseSeconds);
  const wait = Math.max(backoff, result.retryAfterMs ?? 0);
  const givesUp = now + wait - delivery.createdAt > RETRY_WINDOW_MS;
  writes.push(
    db
      .update(webhookDeliveries)
      .set(
        givesUp
          ? { status: 'failed', attempts: number, lastStatus: result.status, lastError: `${result.error} No more retries after 3 days.`, updatedAt: now }
          : { attempts: number, lastStatus: result.status, lastError: result.error, nextAttemptAt: now + wait, updatedAt: now },
      )
      .where(key),
    // An endpoint that has failed without a single success for 3 days is disabled; the console says so.
    db
      .update(webhookEndpoints)
      .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${now})` })
      .where(eq(webhookEndpoints.id, delivery.endpointId)),
    db
      .update(webhookEndpoints)
      .set({ status: 'disabled', disabledReason: 'failing', disabledAt: now, updatedAt: now })
      .where(and(eq(webhookEndpoints.id, delivery.endpointId), eq(webhookEndpoints.status, 'active'), lte(webhookEndpoints.failingSince, now - RETRY_WINDOW_MS))),
    cancelPending,
  );
  return givesUp ? { writes } : { writes, retryInMs: wait };
}

/**
 * The queue job: delivers the due deliveries of some events (of one endpoint, for a retry). Each
 * is leased first with one conditional UPDATE, so a duplicate message or a concurrent consumer
 * finds nothing to do; every outcome is written in one batch; retries go back on the queue.
 */
export async function deliverEvents(env: DeliveryEnvironment, message: DeliverMessage): Promise<{ attempted: number }> {
  const { db } = env;
  const now = Date.now();
  const leased = await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: now + LEASE_MS, updatedAt: now })
    .where(
      and(
        inArray(webhookDeliveries.eventId, message.event_ids),
        message.endpoint_id ? eq(webhookDeliveries.endpointId, message.endpoint_id) : undefined,
        eq(webhookDeliveries.status, 'pending'),
        lte(webhookDeliveries.nextAttemptAt, now),
      ),
    )
    .returning({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId, attempts: webhookDeliveries.attempts, createdAt: webhookDeliveries.createdAt });
  if (leased.length === 0) return { attempted: 0 };
  const [endpointRows, eventRows] = await db.batch([
    db
      .select()
      .from(webhookEndpoints)
      .where(inArray(webhookEndpoints.id, [...new Set(leased.map((row) => row.endpointId))])),
    db
      .select()
      .from(events)
      .where(inArray(events.id, [...new Set(leased.map((row) => row.eventId))])),
  ]);
  const endpoints = new Map(endpointRows.map((row) => [row.id, row]));
  const eventsById = new Map(eventRows.map((row) => [row.id, row]));

  const outcomes = await Promise.all(
    leased.map(async (delivery) => {
      const endpoint = endpoints.get(delivery.endpointId);
      const event = eventsById.get(delivery.eventId);
      if (!endpoint || !event || endpoint.status !== 'active') {
        // Disabled meanwhile (or gone): nothing is sent; the delivery is cancelled.
        const cancel = db
          .update(webhookDeliveries)
          .set({ status: 'cancelled', updatedAt: Date.now() })
          .where(and(eq(webhookDeliveries.eventId, delivery.eventId), eq(webhookDeliveries.endpointId, delivery.endpointId)));
        return { delivery, writes: [cancel] as BatchItem<'sqlite'>[] };
      }
      const startedAt = Date.now();
      const result = await attempt(env, endpoint, event, startedAt);
      return { delivery, ...outcomeWrites(db, delivery, result, startedAt, env) };
    }),
  );
  const writes = outcomes.flatMap((outcome) => outcome.writes);
  await db.batch(writes as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);

  // Retries go back on the queue with their delay; one longer than a queue message may wait is the sweep's.
  const retries = outcomes.filter((outcome): outcome is (typeof outcomes)[number] & { retryInMs: number } => 'retryInMs' in outcome && outcome.retryInMs !== undefined);
  await Promise.all(
    retries
      .filter((retry) => retry.retryInMs / 1000 <= QUEUE_MAX_DELAY_SECONDS)
      .map((retry) =>
        enqueueDeliveries(env.queue, [{ kind: 'webhook.deliver', event_ids: [retry.delivery.eventId], endpoint_id: retry.delivery.endpointId }], Math.max(1, Math.ceil(retry.retryInMs / 1000))).catch(() => undefined),
      ),
  );
  return { attempted: leased.length };
}

/**
 * The cron sweep: every delivery that is overdue (its message was lost, its send failed, its
 * wait was longer than a queue delay, or its consumer died mid-lease) goes back on the queue.
 */
export async function sweepDueDeliveries(db: Database, queue: Queue<unknown>, now: number): Promise<number> {
  const due = await db
    .select({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now - SWEEP_GRACE_MS)))
    .orderBy(webhookDeliveries.nextAttemptAt)
    .limit(1000);
  await enqueueDeliveries(
    queue,
    due.map((row) => ({ kind: 'webhook.deliver', event_ids: [row.eventId], endpoint_id: row.endpointId })),
  );
  return due.length;
}
