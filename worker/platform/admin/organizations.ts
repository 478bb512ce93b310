/** Admin routes for organisations and workspaces: create, list, suspend or reactivate, set a default domain. */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { assertKnownDomain } from '../domains';
import {
  createOrganization,
  createWorkspace,
  listOrganizations,
  listWorkspaces,
  setDefaultDomain,
  setStatus,
} from '../identity';
import {
  newOrganizationSchema,
  organizationListSchema,
  statusChangeSchema,
  workspaceListSchema,
  workspaceSchema,
} from './responses';
import { adminAuditContext, defineAdminRoute, idParam, nameSchema } from './define';
import { advanceMove } from '../moves';

const statusBody = z.strictObject({ status: z.enum(['active', 'suspended']) });

const moveReportSchema = z
  .object({
    organization_id: z.string(),
    from_shard: z.number().int(),
    to_shard: z.number().int(),
    step: z.enum(['frozen', 'settle', 'copy', 'carry', 'verify', 'cleanup', 'done']),
    retry_after_ms: z.number().int().openapi({ description: 'Call again after this long (0: at once).' }),
    mismatches: z.array(z.object({ table: z.string(), source: z.number().int(), target: z.number().int() })),
  })
  .openapi('OrganizationMove');

/** Registers the organisation and workspace routes. */
export function registerOrganizationRoutes(app: OpenAPIHono<AppEnv>): void {
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/organizations',
      response: newOrganizationSchema,
      body: z.strictObject({ name: nameSchema, workspace_name: nameSchema.optional() }),
      status: 201,
      description: 'The organisation and its first workspace.',
    },
    ({ body }, c) =>
      createOrganization(c.var.services, adminAuditContext(c), { name: body.name, workspaceName: body.workspace_name }),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/organizations',
      response: organizationListSchema,
      status: 200,
      description: 'Organisations, newest first.',
    },
    async (_input, c) => ({
      data: await listOrganizations(c.var.db),
    }),
  );
  defineAdminRoute(
    app,
    {
      method: 'patch',
      path: '/api/admin/organizations/{organization_id}',
      response: statusChangeSchema,
      params: idParam('organization_id', 'org'),
      body: statusBody,
      status: 200,
      description: 'The new status.',
    },
    ({ params, body }, c) =>
      setStatus(c.var.db, adminAuditContext(c), { kind: 'organization', id: params.organization_id }, body.status),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/organizations/{organization_id}/move',
      response: moveReportSchema,
      params: idParam('organization_id', 'org'),
      body: z.strictObject({ to_shard: z.number().int().min(0).max(1000) }),
      status: 200,
      description:
        'Advances the organisation’s move to another shard as far as one call goes (its writes are ' +
        'refused, 503, until the switch); call again, after retry_after_ms, until step is done. A crash ' +
        'resumes where it stopped.',
    },
    ({ params, body }, c) =>
      advanceMove(c.var.services, params.organization_id, body.to_shard, c.var.services.clock.now()),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/workspaces',
      response: workspaceSchema,
      body: z.strictObject({ organization_id: z.string().startsWith('org_'), name: nameSchema }),
      status: 201,
      description: 'The new workspace.',
    },
    ({ body }, c) =>
      createWorkspace(c.var.db, adminAuditContext(c), { organizationId: body.organization_id, name: body.name }),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/workspaces',
      response: workspaceListSchema,
      query: z.object({ organization_id: z.string().startsWith('org_').optional() }),
      status: 200,
      description: 'Workspaces, newest first.',
    },
    async ({ query }, c) => ({ data: await listWorkspaces(c.var.db, query.organization_id) }),
  );
  defineAdminRoute(
    app,
    {
      method: 'patch',
      path: '/api/admin/workspaces/{workspace_id}',
      response: statusChangeSchema,
      params: idParam('workspace_id', 'ws'),
      body: statusBody,
      status: 200,
      description: 'The new status.',
    },
    ({ params, body }, c) =>
      setStatus(c.var.db, adminAuditContext(c), { kind: 'workspace', id: params.workspace_id }, body.status),
  );
  defineAdminRoute(
    app,
    {
      method: 'put',
      path: '/api/admin/workspaces/{workspace_id}/default-domain',
      response: z.object({ workspace_id: z.string(), default_domain: z.string().nullable() }),
      params: idParam('workspace_id', 'ws'),
      body: z.strictObject({ domain: z.string().min(1).max(64).nullable() }),
      status: 200,
      description:
        'The domain a demand from an assistant or agent gets when it names none and its words match no domain ' +
        "(null: none, the catalog's first).",
    },
    async ({ params, body }, c) => {
      if (body.domain !== null) await assertKnownDomain(c.var.db, body.domain);
      return setDefaultDomain(c.var.db, adminAuditContext(c), params.workspace_id, body.domain);
    },
  );
}
