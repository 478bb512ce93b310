/**
 * From the outbox to the queue (docs/design/webhooks.md). The events a change wrote (their
 * deliveries made by the fan-out trigger in the same statement) are handed, after the commit, to
 * the events queue, only for workspaces that have an endpoint; if that send fails the cron sweep
 * finds the deliveries anyway. Nothing is sent from the request itself.
 */
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { schema, type Database } from '../../lib/db';
import { TtlCache } from '../../lib/ttl-cache';
import type { CommittedEvent } from '../events';

const { webhookEndpoints } = schema;

/** The queue message that asks for the deliveries of some events (the consumer parses it with this). */
export const deliverMessageSchema = z.object({
  kind: z.literal('webhook.deliver'),
  event_ids: z.array(z.string().startsWith('evt_').max(64)).min(1).max(100),
  /** Only this endpoint's delivery (a redelivery, the sweep). */
  endpoint_id: z.string().startsWith('whk_').max(64).optional(),
  /** The events' workspace: its organisation's shard holds them (messages sent before it was added lack it). */
  workspace_id: z.string().startsWith('ws_').max(64).optional(),
});
export type DeliverMessage = z.infer<typeof deliverMessageSchema>;

/**
 * Whether a workspace has an active endpoint, cached briefly: most workspaces have none, and
 * their events need no queue message. A new endpoint is seen within the TTL (this isolate's
 * creation clears it at once), and the sweep covers any gap.
 */
const endpointsCache = new TtlCache<boolean>(10_000, 1000);

async function hasEndpoints(db: Database, workspaceId: string): Promise<boolean> {
  return endpointsCache.get(workspaceId, db, async () => {
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

/** Messages for a list of one workspace's event ids, 50 a message, for one endpoint or all. */
export function deliverMessages(eventIds: string[], workspaceId: string, endpointId?: string): DeliverMessage[] {
  const messages: DeliverMessage[] = [];
  for (let start = 0; start < eventIds.length; start += 50)
    messages.push({
      kind: 'webhook.deliver',
      event_ids: eventIds.slice(start, start + 50),
      workspace_id: workspaceId,
      ...(endpointId ? { endpoint_id: endpointId } : {}),
    });
  return messages;
}

/**
 * After a commit: the committed events of workspaces with an active endpoint go to the queue as
 * delivery messages. Any gap (a failed send, a new endpoint not yet seen) the sweep covers.
 */
export async function enqueueForDelivery(
  db: Database,
  queue: Queue<unknown>,
  committed: CommittedEvent[],
): Promise<number> {
  // One lookup per workspace, however many events (a sweep may commit thousands for one).
  const workspaces = [...new Set(committed.map((event) => event.workspaceId))];
  const withEndpoints = new Set(
    (await Promise.all(workspaces.map(async (id) => ((await hasEndpoints(db, id)) ? id : null)))).filter(Boolean),
  );
  const delivered = committed.filter((event) => withEndpoints.has(event.workspaceId));
  const messages = [...withEndpoints].flatMap((workspaceId) =>
    deliverMessages(
      delivered.filter((event) => event.workspaceId === workspaceId).map((event) => event.id),
      workspaceId as string,
    ),
  );
  if (messages.length > 0) await enqueueDeliveries(queue, messages);
  return delivered.length;
}
