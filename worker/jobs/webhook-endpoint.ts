/**
 * One Durable Object per webhook endpoint: the endpoint's own outbox runner. The events queue only
 * wakes it (an RPC that sets an alarm and returns), and its alarm sends what is due, oldest first,
 * then sets the next alarm for the endpoint's next retry. A receiver that hangs or fails keeps only
 * its own alarm busy: no other endpoint, no email, no queue batch ever waits on it.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Bindings } from '../env';
import { buildServices } from '../lib/services';
import { deliverDueToEndpoint } from '../platform/webhooks';
import { enterBy, enterWhereFound } from '../platform/shards';
import { schema } from '../lib/db';

const { webhookEndpoints } = schema;
import { publishCommittedEvents } from './publish';
import { clock, platformTime } from '../lib/clock';

/** The outbox of one endpoint. */
export class WebhookEndpointOutbox extends DurableObject<Bindings> {
  /** Something may be due for the endpoint: run now (or as soon as the current run ends). */
  async wake(endpointId: string, workspaceId?: string): Promise<void> {
    await this.ctx.storage.put('endpoint', endpointId);
    // Its workspace says which shard holds its deliveries (docs/design/scale.md#the-layout).
    if (workspaceId) await this.ctx.storage.put('workspace', workspaceId);
    const alarm = await this.ctx.storage.getAlarm();
    const now = platformTime(clock.now());
    if (alarm === null || alarm > now) await this.ctx.storage.setAlarm(now);
  }

  /** Sends what is due; the next alarm is the endpoint's next due delivery (a throw is retried by the platform). */
  override async alarm(): Promise<void> {
    const endpointId = await this.ctx.storage.get<string>('endpoint');
    if (!endpointId) return;
    const services = buildServices(this.env, { kind: 'object' });
    const workspaceId = await this.ctx.storage.get<string>('workspace');
    const entered = workspaceId
      ? await enterBy(services.db, 'workspace', workspaceId)
      : await enterWhereFound(
          services.db,
          webhookEndpoints,
          webhookEndpoints.id,
          webhookEndpoints.workspaceId,
          endpointId,
        );
    if (!entered) return;
    const run = await deliverDueToEndpoint(
      {
        db: services.db,
        egress: services.egress,
        secretsKey: services.secretsKey,
        retryBaseSeconds: services.settings.WEBHOOK_RETRY_BASE_SECONDS,
      },
      endpointId,
    );
    await publishCommittedEvents(services.db, this.env);
    if (run.nextDueAt !== null) await this.ctx.storage.setAlarm(platformTime(Math.max(run.nextDueAt, clock.now())));
  }
}

/** The outbox object of an endpoint. */
export function endpointOutbox(
  namespace: DurableObjectNamespace<WebhookEndpointOutbox>,
  endpointId: string,
): DurableObjectStub<WebhookEndpointOutbox> {
  return namespace.get(namespace.idFromName(endpointId));
}
