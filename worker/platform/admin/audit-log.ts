/** The admin route for the audit log: newest first, filtered, with cursor pagination. */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { listAuditLog } from '../audit';
import { auditLogSchema } from './responses';
import { defineAdminRoute } from './define';

/** Registers GET /api/admin/audit-log. */
export function registerAuditLogRoutes(app: OpenAPIHono<AppEnv>): void {
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/audit-log',
      response: auditLogSchema,
      query: z.object({
        workspace_id: z.string().startsWith('ws_').optional(),
        organization_id: z.string().startsWith('org_').optional(),
        action: z.string().max(100).optional(),
        starting_after: z.string().startsWith('aud_').optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
      status: 200,
      description: 'Audit records, newest first.',
    },
    ({ query }, c) =>
      listAuditLog(c.var.db, {
        workspaceId: query.workspace_id,
        organizationId: query.organization_id,
        action: query.action,
        startingAfter: query.starting_after,
        limit: query.limit,
      }),
  );
}
