import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { createOrganization, createWorkspace, listOrganizations, listWorkspaces, setStatus } from '../identity';
import { adminAuditContext, adminJsonMiddleware, adminMiddleware, idParam, jsonBody, jsonContent, nameSchema } from './shared';

const statusBody = z.strictObject({ status: z.enum(['active', 'suspended']) });
const anyJson = z.record(z.string(), z.unknown());

export function registerOrganizationRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/admin/organizations',
      hide: true,
      middleware: adminJsonMiddleware,
      request: { body: jsonBody(z.strictObject({ name: nameSchema, workspace_name: nameSchema.optional() })) },
      responses: { 201: jsonContent(anyJson, 'The organisation and its first workspace.') },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const created = await createOrganization(c.var.db, adminAuditContext(c), { name: body.name, workspaceName: body.workspace_name });
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/admin/organizations',
      hide: true,
      middleware: adminMiddleware,
      responses: { 200: jsonContent(anyJson, 'Organisations, newest first.') },
    }),
    async (c) => c.json({ data: await listOrganizations(c.var.db) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/admin/organizations/{organization_id}',
      hide: true,
      middleware: adminJsonMiddleware,
      request: { params: idParam('organization_id', 'org'), body: jsonBody(statusBody) },
      responses: { 200: jsonContent(anyJson, 'The new status.') },
    }),
    async (c) => {
      const { organization_id: id } = c.req.valid('param');
      const result = await setStatus(c.var.db, adminAuditContext(c), { kind: 'organization', id: id! }, c.req.valid('json').status);
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/admin/workspaces',
      hide: true,
      middleware: adminJsonMiddleware,
      request: { body: jsonBody(z.strictObject({ organization_id: z.string().startsWith('org_'), name: nameSchema })) },
      responses: { 201: jsonContent(anyJson, 'The new workspace.') },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const created = await createWorkspace(c.var.db, adminAuditContext(c), { organizationId: body.organization_id, name: body.name });
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/admin/workspaces',
      hide: true,
      middleware: adminMiddleware,
      request: { query: z.object({ organization_id: z.string().startsWith('org_').optional() }) },
      responses: { 200: jsonContent(anyJson, 'Workspaces, newest first.') },
    }),
    async (c) => c.json({ data: await listWorkspaces(c.var.db, c.req.valid('query').organization_id) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/admin/workspaces/{workspace_id}',
      hide: true,
      middleware: adminJsonMiddleware,
      request: { params: idParam('workspace_id', 'ws'), body: jsonBody(statusBody) },
      responses: { 200: jsonContent(anyJson, 'The new status.') },
    }),
    async (c) => {
      const { workspace_id: id } = c.req.valid('param');
      const result = await setStatus(c.var.db, adminAuditContext(c), { kind: 'workspace', id: id! }, c.req.valid('json').status);
      return c.json(result, 200);
    },
  );
}
