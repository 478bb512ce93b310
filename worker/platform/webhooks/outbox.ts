/**
 * The outbox (PRODUCT.md section 10). A change that customers hear about writes its event rows
 * in its own D1 batch; a trigger fans each event out to the matching endpoints' deliveries in
 * the same statement. Nothing is sent from the request: after the response, the request hands
 * the new event ids to the events queue (waitUntil), and if that send fails the cron sweep finds
 * the deliveries anyway. A change never commits without its events, and no event without it.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../env';
import { insertRows, insertWhere, schema, type Database } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logLine } from '../../lib/request-context';
import { TtlCache } from '../../lib/ttl-cache';
import type { EventType } from './schemas';

const { events, webhookEndpoints } = schema;

/** One event to write: its type, its workspace and the public shape of its record. */
export interface NewEvent {
  type: EventType;
  workspaceId: string;
  data: Record<string, unknown>;
}

/** The queue message that asks for the deliveries of some events. */
export interface DeliverMessage {
  kind: 'webhook.deliver';
  event_ids: string[];
  /** Only this endpoint's delivery (a retry, a redelivery, the sweep). */
  endpoint_id?: string;
}

/** Events written through each request's database, to hand to the queue after the response. */
const written = new WeakMap<Database, Array<{ id: string; workspaceId: string | null }>>();

function remember(db: Database, entries: Array<{ id: string; workspaceId: string | null }>): void {
  const list = written.get(db) ?? [];
  list.push(...entries);
  written.set(db, list);
}

/**
 * Whether a workspace has an active endpoint, cached briefly: most workspaces have none, and
 * their events need no queue message. A new endpoint is seen within the TTL (this isolate's
 * creation clears it at once), and the sweep covers any gap.
 */
const endpointsCache = new TtlCache<boolean>(10_000, 1000);

async function hasEndpoints(db: Database, workspaceId: string): Promise<boolean> {
  return endpointsCache.get(workspaceId, async () => {
    const row = await db
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.status, 'active')))
      .limit(1)
      .get();
    return row !== undefined;
  });
}

/** Forgets what the cache knows of a workspace's endpoints (after a change through this isolate). */
export function forgetEndpoints(workspaceId: string): void {
  endpointsCache.clear(workspaceId);
}

/** The writes of some events, for the change's own batch (one statement for all of them). */
export function eventWrites(db: Database, list: NewEvent[], now: number): BatchItem<'sqlite'>[] {
  if (list.length === 0) return [];
  const rows = list.map((event) => ({
    id: newId('evt', now),
    workspaceId: event.workspaceId,
    type: event.type,
    data: event.data,
    createdAt: now,
  }));
  remember(
    db,
    rows.map((row) => ({ id: row.id, workspaceId: row.workspaceId })),
  );
  return [insertRows(db, events, rows)];
}

/**
 * One event written only if `condition` holds inside the batch (the change it reports happened);
 * its workspace may be SQL, when only the batch knows it.
 */
export function eventWriteWhere(
  db: Database,
  event: Omit<NewEvent, 'workspaceId'> & { workspaceId: string | SQL },
  condition: SQL,
  now: number,
): BatchItem<'sqlite'> {
  const id = newId('evt', now);
  remember(db, [{ id, workspaceId: typeof event.workspaceId === 'string' ? event.workspaceId : null }]);
  return insertWhere(
    db,
    events,
    { id, workspaceId: event.workspaceId, type: event.type, data: event.data, createdAt: now },
    condition,
  );
}

/**
 * The ids written through this database so far (once) whose workspace has an endpoint; an
 * event whose workspace only the batch knew is always included.
 */
export async function takeWrittenEvents(db: Database): Promise<string[]> {
  const entries = written.get(db) ?? [];
  written.delete(db);
  const wanted = await Promise.all(
    entries.map((entry) => (entry.workspaceId === null ? true : hasEndpoints(db, entry.workspaceId))),
  );
  return entries.filter((_, index) => wanted[index]).map((entry) => entry.id);
}

/** Sends delivery messages, at most 100 per call (the Queues limit), 50 events each. */
export async function enqueueDeliveries(
  queue: Queue<unknown>,
  messages: DeliverMessage[],
  delaySeconds = 0,
): Promise<void> {
  for (let start = 0; start < messages.length; start += 100) {
    await queue.sendBatch(
      messages.slice(start, start + 100).map((body) => ({ body, ...(delaySeconds > 0 ? { delaySeconds } : {}) })),
    );
  }
}

/** Messages for a list of event ids. */
export function deliverMessages(eventIds: string[]): DeliverMessage[] {
  const messages: DeliverMessage[] = [];
  for (let start = 0; start < eventIds.length; start += 50)
    messages.push({ kind: 'webhook.deliver', event_ids: eventIds.slice(start, start + 50) });
  return messages;
}

/**
 * After the response: the events this request wrote go to the queue. A failed send is only
 * logged; the sweep delivers those events within a minute or two.
 */
export const outboxKick = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const db = c.var.db;
  if (!db || !written.has(db)) return;
  let context: { waitUntil(promise: Promise<unknown>): void };
  try {
    context = c.executionCtx;
  } catch {
    return; // Called without an execution context (app.request in tests): the sweep delivers.
  }
  context.waitUntil(
    takeWrittenEvents(db)
      .then((ids) => (ids.length > 0 ? enqueueDeliveries(c.env.EVENTS, deliverMessages(ids)) : undefined))
      .catch((error: unknown) =>
        logLine({
          level: 'warn',
          message: 'outbox_enqueue_failed',
          request_id: c.var.requestId,
          error: error instanceof Error ? error.message : String(error),
        }),
      ),
  );
});
