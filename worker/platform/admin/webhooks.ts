/**
 * Admin routes for webhook endpoints (docs/design/identity-and-access.md): create (the secret is in the
 * answer only), list, disable and enable, rotate the secret, read the delivery log, redeliver.
 */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { displayText, setOf } from '../../lib/openapi';
import { EVENT_TYPES, eventTypeSchema } from '../events';
import {
  createEndpoint,
  deliveryLog,
  listEndpoints,
  redeliver,
  rotateEndpointSecret,
  setEndpointEnabled,
} from '../webhooks';
import {
  deliveryLogSchema,
  endpointEnabledSchema,
  endpointListSchema,
  newEndpointSchema,
  redeliverySchema,
  rotatedSecretSchema,
} from './responses';
import { adminAuditContext, defineAdminRoute, idParam } from './define';

const createBody = z.strictObject({
  workspace_id: z.string().startsWith('ws_'),
  url: z.string().trim().max(500),
  event_types: setOf(eventTypeSchema, EVENT_TYPES.length).refine(
    (types) => types.length > 0,
    'Subscribe to at least one event type.',
  ),
  description: displayText({ max: 200 }).optional(),
});

const webhookParam = idParam('webhook_id', 'whk');

/** Registers the webhook endpoint routes. */
export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>): void {
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/webhooks',
      response: newEndpointSchema,
      body: createBody,
      status: 201,
      description: 'The endpoint, with its whsec_ secret shown this once.',
      noStore: true,
    },
    ({ body }, c) =>
      createEndpoint(
        c.var.db,
        adminAuditContext(c),
        {
          workspaceId: body.workspace_id,
          url: body.url,
          eventTypes: body.event_types,
          ...(body.description ? { description: body.description } : {}),
        },
        c.var.services.egress,
        c.var.services.secretsKey,
      ),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/webhooks',
      response: endpointListSchema,
      query: z.object({ workspace_id: z.string().startsWith('ws_') }),
      status: 200,
      description: 'The workspace’s endpoints, without secrets.',
    },
    async ({ query }, c) => ({ data: await listEndpoints(c.var.db, query.workspace_id) }),
  );
  for (const action of ['disable', 'enable'] as const) {
    defineAdminRoute(
      app,
      {
        method: 'post',
        path: `/api/admin/webhooks/{webhook_id}/${action}`,
        response: endpointEnabledSchema,
        params: webhookParam,
        status: 200,
        description: `The endpoint, ${action}d.`,
      },
      ({ params }, c) =>
        setEndpointEnabled(c.var.db, c.env.EVENTS, adminAuditContext(c), params.webhook_id, action === 'enable'),
    );
  }
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/webhooks/{webhook_id}/rotate-secret',
      response: rotatedSecretSchema,
      params: webhookParam,
      status: 200,
      description: 'The new secret, shown this once; the old one signs for 24 h more.',
      noStore: true,
    },
    ({ params }, c) =>
      rotateEndpointSecret(c.var.db, adminAuditContext(c), params.webhook_id, c.var.services.secretsKey),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/webhooks/{webhook_id}/deliveries',
      response: deliveryLogSchema,
      params: webhookParam,
      query: z.object({
        limit: z.coerce.number().int().min(1).max(100).default(50),
        starting_after: z.string().startsWith('att_').optional(),
      }),
      status: 200,
      description: 'The delivery log: every attempt, newest first.',
    },
    ({ params, query }, c) =>
      deliveryLog(c.var.db, params.webhook_id, {
        limit: query.limit,
        ...(query.starting_after ? { startingAfter: query.starting_after } : {}),
      }),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/webhooks/{webhook_id}/deliveries/{event_id}/redeliver',
      response: redeliverySchema,
      params: z.object({
        webhook_id: z.string().startsWith('whk_').max(64),
        event_id: z.string().startsWith('evt_').max(64),
      }),
      status: 200,
      description: 'The delivery, pending again: the event is sent again now, with the same webhook-id.',
    },
    ({ params }, c) => redeliver(c.var.db, c.env.EVENTS, adminAuditContext(c), params.webhook_id, params.event_id),
  );
}
