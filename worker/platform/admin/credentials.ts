/** Admin routes for API keys and admin tokens: issue, list, revoke. Tokens appear only in the issue answer. */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { setOf } from '../../lib/openapi';
import { KNOWN_SCOPES, scopeSchema } from '../access';
import {
  adminTokenSchema,
  apiKeySchema,
  issueApiKey,
  issuedAdminTokenSchema,
  issuedApiKeySchema,
  listAdminTokens,
  listApiKeys,
  mintAdminToken,
  revokeAdminToken,
  revokeApiKey,
} from '../keys';
import { adminAuditContext, defineAdminRoute, idParam, nameSchema } from './define';
import { clock } from '../../lib/clock';

const apiKeyListSchema = z.object({ data: z.array(apiKeySchema) });
const adminTokenListSchema = z.object({ data: z.array(adminTokenSchema) });

const issueApiKeyBody = z.strictObject({
  workspace_id: z.string().startsWith('ws_'),
  name: nameSchema,
  scopes: setOf(scopeSchema, KNOWN_SCOPES.length).refine((scopes) => scopes.length > 0, 'Give at least one scope.'),
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  monthly_quota: z.number().int().min(0).optional(),
  expires_at: z.iso
    .datetime({ offset: true })
    .refine((value) => Date.parse(value) > clock.now(), 'Must be in the future.')
    .optional(),
});

/** Registers the API key and admin token routes. */
export function registerCredentialRoutes(app: OpenAPIHono<AppEnv>): void {
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/api-keys',
      response: issuedApiKeySchema,
      body: issueApiKeyBody,
      status: 201,
      description: 'The key, with its token shown this once.',
      noStore: true,
    },
    ({ body }, c) =>
      issueApiKey(c.var.db, adminAuditContext(c), {
        workspaceId: body.workspace_id,
        name: body.name,
        scopes: body.scopes,
        rateLimitPerMinute: body.rate_limit_per_minute,
        monthlyQuota: body.monthly_quota,
        expiresAt: body.expires_at ? Date.parse(body.expires_at) : undefined,
      }),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/api-keys',
      response: apiKeyListSchema,
      query: z.object({ workspace_id: z.string().startsWith('ws_') }),
      status: 200,
      description: 'Keys of the workspace, without tokens.',
    },
    async ({ query }, c) => ({ data: await listApiKeys(c.var.db, query.workspace_id) }),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/api-keys/{key_id}/revoke',
      response: apiKeySchema,
      params: idParam('key_id', 'key'),
      status: 200,
      description: 'The revoked key.',
    },
    ({ params }, c) => revokeApiKey(c.var.db, adminAuditContext(c), params.key_id),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/admin-tokens',
      response: issuedAdminTokenSchema,
      body: z.strictObject({ name: nameSchema }),
      status: 201,
      description: 'The admin token, shown this once.',
      noStore: true,
    },
    ({ body }, c) => mintAdminToken(c.var.db, adminAuditContext(c), body.name),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/admin-tokens',
      response: adminTokenListSchema,
      status: 200,
      description: 'Admin tokens, without secrets.',
    },
    async (_input, c) => ({
      data: await listAdminTokens(c.var.db),
    }),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/admin-tokens/{admin_token_id}/revoke',
      response: adminTokenSchema,
      params: idParam('admin_token_id', 'adm'),
      status: 200,
      description: 'The revoked admin token.',
    },
    ({ params }, c) => revokeAdminToken(c.var.db, adminAuditContext(c), params.admin_token_id),
  );
}
