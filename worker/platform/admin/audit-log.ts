import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { listAuditLog } from '../identity';
import { adminMiddleware, jsonContent } from './shared';

export function registerAuditLogRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/admin/audit-log',
      hide: true,
      middleware: adminMiddleware,
      request: {
        query: z.object({
          workspace_id: z.string().startsWith('ws_').optional(),
          organization_id: z.string().startsWith('org_').optional(),
          action: z.string().max(100).optional(),
          starting_after: z.string().startsWith('aud_').optional(),
          limit: z.coerce.number().int().min(1).max(200).default(50),
        }),
      },
      responses: { 200: jsonContent(z.record(z.string(), z.unknown()), 'Audit records, newest first.') },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const page = await listAuditLog(c.var.db, {
        workspaceId: query.workspace_id,
        organizationId: query.organization_id,
        action: query.action,
        startingAfter: query.starting_after,
        limit: query.limit,
      });
      return c.json(page, 200);
    },
  );
}
