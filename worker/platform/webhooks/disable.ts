/**
 * Disabling an endpoint (docs/design/webhooks.md): by an administrator, by a 410 Gone, or after
 * three days of failures. Its pending deliveries are paused, not dropped.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { schema, type Database } from '../../lib/db';
import { newId } from '../../lib/ids';
import { auditInsertWhere, type AuditContext } from '../audit';

const { webhookEndpoints, webhookDeliveries } = schema;

/**
 * Disabling an active endpoint (when `condition` holds too): its state, its pending deliveries
 * paused, and the audit record, all written only with this change, so two failures that each
 * disable it record it once. Its workspace's owners see it in the console.
 */
export function disableWrites(
  db: Database,
  endpointId: string,
  reason: 'admin' | 'gone' | 'failing',
  now: number,
  condition?: SQL,
  audit?: AuditContext,
): BatchItem<'sqlite'>[] {
  const changeId = newId('evt', now);
  const applied = sql`EXISTS (SELECT 1 FROM ${webhookEndpoints} WHERE ${webhookEndpoints.id} = ${endpointId} AND
    ${webhookEndpoints.changeId} = ${changeId})`;
  return [
    db
      .update(webhookEndpoints)
      .set({ status: 'disabled', disabledReason: reason, disabledAt: now, changeId, updatedAt: now })
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.status, 'active'), condition)),
    db
      .update(webhookDeliveries)
      .set({ status: 'paused', updatedAt: now })
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending'), applied)),
    auditInsertWhere(
      db,
      audit ?? { actorKind: 'system', actorId: 'webhook-delivery', requestId: changeId },
      {
        action: 'webhook.disabled',
        targetId: endpointId,
        workspaceId: sql`(SELECT ${webhookEndpoints.workspaceId} FROM ${webhookEndpoints} WHERE
          ${webhookEndpoints.id} = ${endpointId})`,
        metadata: { reason },
      },
      applied,
      now,
    ),
  ];
}
