/**
 * Webhook delivery (docs/design/webhooks.md): at least once, from the outbox. The events queue
 * only wakes the outbox of each endpoint concerned, one Durable Object per endpoint
 * (jobs/webhook-endpoint.ts), which leases its due deliveries (so two runs do not both send),
 * POSTs each through the egress guard with Standard Webhooks headers (the event id is the
 * `webhook-id` of every attempt), logs the attempt, and on failure schedules the next one with
 * exponential backoff and jitter, honouring `Retry-After`, for about three days; its alarm fires
 * when the next one is due. So a hanging receiver holds up nobody but itself. A 410 disables the
 * endpoint; so do three days of failures. A disabled endpoint's deliveries are paused, not dropped,
 * and go out when it is enabled again (within the 3-day window). The cron sweep (sweep.ts) wakes
 * any endpoint whose deliveries are overdue.
 */
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { schema, type Database } from '../../lib/db';
import { discardBody, EgressRefused, guardedFetch, type EgressPolicy } from '../../lib/egress';
import { newId } from '../../lib/ids';
import { signingSecretsInForce } from '../../lib/secrets';
import { signStandardWebhook } from '../../lib/standard-webhooks';
import { disableWrites } from './disable';
import type { DeliverMessage } from './outbox';
import { EndpointLimiter, RETRY_WINDOW_MS, retryAfterMs, retryDelayMs } from './retry-policy';
import { clock } from '../../lib/clock';

const { webhookEndpoints, webhookDeliveries, webhookAttempts, events } = schema;

const DELIVERY_TIMEOUT_MS = 10_000;
/** An attempt in flight holds its delivery this long (then the sweep may hand it out again). */
const LEASE_MS = 60_000;
export interface DeliveryEnvironment {
  db: Database;
  egress: EgressPolicy;
  secretsKey: string | undefined;
  retryBaseSeconds: number;
}

type Endpoint = typeof webhookEndpoints.$inferSelect;

/** A delivery a run has leased: what its outcome's writes need. */
interface LeasedDelivery {
  eventId: string;
  endpointId: string;
  attempts: number;
  createdAt: number;
  /** Leases since the last recorded outcome, this one included. */
  unrecordedLeases: number;
}
type EventRow = typeof events.$inferSelect;

/** What one attempt ended with. */
type AttemptResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone'; status: number }
  | { kind: 'failed'; status: number | null; error: string; retryAfterMs?: number };

/** The exact body every attempt of an event sends: the event envelope of docs/design/webhooks.md. */
export function eventBody(event: EventRow): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: new Date(event.createdAt).toISOString(),
    workspace_id: event.workspaceId,
    data: event.data,
  });
}

/** One POST of an event to an endpoint. */
async function attempt(
  env: DeliveryEnvironment,
  endpoint: Endpoint,
  event: EventRow,
  now: number,
): Promise<AttemptResult> {
  if (!env.secretsKey) return { kind: 'failed', status: null, error: 'SECRETS_KEY is not configured.' };
  const body = eventBody(event);
  let headers: Record<string, string>;
  try {
    const secrets = await signingSecretsInForce(
      {
        current: endpoint.signingSecret,
        previous: endpoint.previousSigningSecret,
        previousUntil: endpoint.previousSigningSecretUntil,
      },
      env.secretsKey,
      now,
    );
    headers = await signStandardWebhook(secrets, event.id, Math.floor(now / 1000), body);
  } catch {
    return {
      kind: 'failed',
      status: null,
      error: 'The endpoint’s signing secret cannot be read (SECRETS_KEY changed?).',
    };
  }
  try {
    const response = await guardedFetch(
      endpoint.url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'User-Agent': 'EdgeGateway-Webhooks/1' },
        body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
      },
      env.egress,
    );
    // The receiver's answer is never read: only its status counts.
    discardBody(response);
    if (response.ok) return { kind: 'delivered', status: response.status };
    if (response.status === 410) return { kind: 'gone', status: 410 };
    const retryAfter = retryAfterMs(response.headers.get('Retry-After'), now);
    return {
      kind: 'failed',
      status: response.status,
      error: `HTTP ${response.status}.`,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    };
  } catch (error) {
    if (error instanceof EgressRefused)
      return { kind: 'failed', status: null, error: `Refused by the egress guard: ${error.message}` };
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
      return { kind: 'failed', status: null, error: `No answer within ${DELIVERY_TIMEOUT_MS / 1000} s.` };
    return { kind: 'failed', status: null, error: 'The connection failed.' };
  }
}

/** The writes that record one attempt and its consequences, and the retry it asks for. */
function outcomeWrites(
  db: Database,
  delivery: LeasedDelivery,
  result: AttemptResult,
  startedAt: number,
  env: DeliveryEnvironment,
): { writes: BatchItem<'sqlite'>[] } {
  const now = clock.now();
  // Leases that ended with no outcome (a runner stopped mid-attempt) are attempts too: each may
  // have reached the receiver, so the log says so rather than resending in silence.
  const lost = Math.max(0, delivery.unrecordedLeases - 1);
  const number = delivery.attempts + lost + 1;
  const key = and(
    eq(webhookDeliveries.eventId, delivery.eventId),
    eq(webhookDeliveries.endpointId, delivery.endpointId),
  );
  const writes: BatchItem<'sqlite'>[] = [
    ...(lost > 0
      ? [
          db.insert(webhookAttempts).values({
            id: newId('att', startedAt - 1),
            eventId: delivery.eventId,
            endpointId: delivery.endpointId,
            attempt: number - 1,
            statusCode: null,
            durationMs: 0,
            error:
              `${lost === 1 ? 'An earlier attempt' : `${lost} earlier attempts`} ended without a recorded outcome ` +
              '(the sender stopped): it may have arrived. Sent again with the same webhook-id.',
            createdAt: startedAt - 1,
          }),
        ]
      : []),
    db.update(webhookDeliveries).set({ unrecordedLeases: 0 }).where(key),
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
  if (result.kind === 'delivered') {
    writes.push(
      db
        .update(webhookDeliveries)
        .set({
          status: 'delivered',
          attempts: number,
          lastStatus: result.status,
          lastError: null,
          deliveredAt: now,
          updatedAt: now,
        })
        .where(key),
      db.update(webhookEndpoints).set({ failingSince: null }).where(eq(webhookEndpoints.id, delivery.endpointId)),
    );
    return { writes };
  }
  if (result.kind === 'gone') {
    // 410 Gone: the receiver says the endpoint is no more. It is disabled, and this event and
    // everything still due for it wait (paused) until someone enables it again.
    writes.push(
      db
        .update(webhookDeliveries)
        .set({
          status: 'paused',
          attempts: number,
          lastStatus: 410,
          lastError: 'The endpoint answered 410 Gone and was disabled; this event goes out when it is enabled again.',
          updatedAt: now,
        })
        .where(key),
      ...disableWrites(db, delivery.endpointId, 'gone', now),
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
          ? {
              status: 'failed',
              attempts: number,
              lastStatus: result.status,
              lastError: `${result.error} No more retries after 3 days.`,
              updatedAt: now,
            }
          : {
              attempts: number,
              lastStatus: result.status,
              lastError: result.error,
              nextAttemptAt: now + wait,
              updatedAt: now,
            },
      )
      .where(key),
    // An endpoint that has failed without a single success for 3 days is disabled; the console says so.
    db
      .update(webhookEndpoints)
      .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${now})` })
      .where(eq(webhookEndpoints.id, delivery.endpointId)),
    ...disableWrites(
      db,
      delivery.endpointId,
      'failing',
      now,
      lte(webhookEndpoints.failingSince, now - RETRY_WINDOW_MS),
    ),
  );
  return { writes };
}

/** At most this many deliveries per run of an endpoint's outbox; more are taken by the next run at once. */
const DELIVERIES_PER_RUN = 20;

/** What one run of an endpoint's outbox did, and when the endpoint has something due next. */
export interface EndpointRun {
  attempted: number;
  /** When the next pending delivery falls due (null: none pending); `now` when more wait already. */
  nextDueAt: number | null;
}

/**
 * One run of one endpoint's outbox (its Durable Object's alarm, jobs/webhook-endpoint.ts): the
 * due deliveries, oldest first, leased with one conditional UPDATE (so a concurrent run finds
 * nothing), then POSTed a few at a time; each outcome is written in its own batch as soon as it is
 * known. Retries are not queued: the answer says when the endpoint has something due next, and the
 * object sets its alarm then. Only this endpoint's receiver can slow this run down.
 */
export async function deliverDueToEndpoint(
  env: DeliveryEnvironment,
  endpointId: string,
  limiter = new EndpointLimiter(),
): Promise<EndpointRun> {
  const { db } = env;
  const now = clock.now();
  const due = db
    .select({ eventId: webhookDeliveries.eventId })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.status, 'pending'),
        lte(webhookDeliveries.nextAttemptAt, now),
      ),
    )
    // In the order they fall due: a delivery that keeps failing waits its backoff while newer ones
    // get their turn, instead of the oldest few taking every run (webhook_deliveries_endpoint_due_idx).
    .orderBy(webhookDeliveries.nextAttemptAt, webhookDeliveries.createdAt)
    .limit(DELIVERIES_PER_RUN);
  const [leased, endpointRows] = await db.batch([
    db
      .update(webhookDeliveries)
      .set({
        nextAttemptAt: now + LEASE_MS,
        unrecordedLeases: sql`${webhookDeliveries.unrecordedLeases} + 1`,
        updatedAt: now,
      })
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpointId),
          inArray(webhookDeliveries.eventId, due),
          eq(webhookDeliveries.status, 'pending'),
          lte(webhookDeliveries.nextAttemptAt, now),
        ),
      )
      .returning({
        eventId: webhookDeliveries.eventId,
        endpointId: webhookDeliveries.endpointId,
        attempts: webhookDeliveries.attempts,
        createdAt: webhookDeliveries.createdAt,
        unrecordedLeases: webhookDeliveries.unrecordedLeases,
      }),
    db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)),
  ]);
  const endpoint = endpointRows[0];
  if (leased.length > 0) {
    const eventRows = await db
      .select()
      .from(events)
      .where(inArray(events.id, [...new Set(leased.map((row) => row.eventId))]));
    const eventsById = new Map(eventRows.map((row) => [row.id, row]));
    await Promise.all(
      leased.map((delivery) =>
        limiter.run(endpointId, async () => {
          const event = eventsById.get(delivery.eventId);
          const key = and(
            eq(webhookDeliveries.eventId, delivery.eventId),
            eq(webhookDeliveries.endpointId, delivery.endpointId),
          );
          if (!endpoint || !event) {
            await db
              .update(webhookDeliveries)
              .set({ status: 'cancelled', unrecordedLeases: 0, updatedAt: clock.now() })
              .where(key);
            return;
          }
          if (endpoint.status !== 'active') {
            // Disabled meanwhile: nothing is sent; the delivery waits for the endpoint to be enabled.
            await db
              .update(webhookDeliveries)
              .set({ status: 'paused', unrecordedLeases: 0, updatedAt: clock.now() })
              .where(and(key, eq(webhookDeliveries.status, 'pending')));
            return;
          }
          const startedAt = clock.now();
          const result = await attempt(env, endpoint, event, startedAt);
          const { writes } = outcomeWrites(db, delivery, result, startedAt, env);
          await db.batch(writes as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
        }),
      ),
    );
  }
  const next = await db
    .select({ at: sql<number | null>`MIN(${webhookDeliveries.nextAttemptAt})` })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')))
    .get();
  return { attempted: leased.length, nextDueAt: next?.at ?? null };
}

/**
 * The endpoints that have pending deliveries among some events (all of them, or the one named):
 * the queue job wakes each one's outbox and returns, never waiting on a receiver.
 */
export async function endpointsWithPending(db: Database, message: DeliverMessage): Promise<string[]> {
  const rows = await db
    .selectDistinct({ endpointId: webhookDeliveries.endpointId })
    .from(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.eventId, message.event_ids),
        message.endpoint_id ? eq(webhookDeliveries.endpointId, message.endpoint_id) : undefined,
        eq(webhookDeliveries.status, 'pending'),
      ),
    );
  return rows.map((row) => row.endpointId);
}
