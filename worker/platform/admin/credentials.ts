import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { scopeSchema } from '../../gateway/schemas';
import { issueApiKey, listAdminTokens, listApiKeys, mintAdminToken, revokeAdminToken, revokeApiKey } from '../identity';
import { adminAuditContext, adminJsonMiddleware, adminMiddleware, idParam, jsonBody, jsonContent, nameSchema } from './shared';

const anyJson = z.record(z.string(), z.unknown());

const issueApiKeyBody = z.strictObject({
  workspace_id: z.string().startsWith('ws_'),
  name: nameSchema,
  scopes: z.array(scopeSchema).min(1),
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional(),
  monthly_quota: z.number().int().min(0).optional(),
  expires_at: z.iso
    .datetime({ offset: true })
    .refine((value) => Date.parse(value) > Date.now(), 'Must be in the future.')
    .optional(),
});

/** API keys and admin tokens: issue, list, revoke. Tokens appear only in the issue response. */
export function registerCredentialRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/admin/api-keys',
      hide: true,
      middleware: adminJsonMiddleware,
      request: { body: jsonBody(issueApiKeyBody) },
      responses: { 201: jsonContent(anyJson, 'The key, with its token shown this once.') },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const issued = await issueApiKey(c.var.db, adminAuditContext(c), {
        workspaceId: body.workspace_id,
        name: body.name,
        scopes: body.scopes,
        rateLimitPerMinute: body.rate_limit_per_minute,
        monthlyQuota: body.monthly_quota,
        expiresAt: body.expires_at ? Date.parse(body.expires_at) : undefined,
      });
      c.header('Cache-Control', 'no-store');
      return c.json(issued, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/admin/api-keys',
      hide: true,
      middleware: adminMiddleware,
      request: { query: z.object({ workspace_id: z.string().startsWith('ws_') }) },
      responses: { 200: jsonContent(anyJson, 'Keys of the workspace, without tokens.') },
    }),
    async (c) => c.json({ data: await listApiKeys(c.var.db, c.req.valid('query').workspace_id) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/admin/api-keys/{key_id}/revoke',
      hide: true,
      middleware: adminMiddleware,
      request: { params: idParam('key_id', 'key') },
      responses: { 200: jsonContent(anyJson, 'The revoked key.') },
    }),
    async (c) => c.json(await revokeApiKey(c.var.db, adminAuditContext(c), c.req.valid('param').key_id!), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/admin/admin-tokens',
      hide: true,
      middleware: adminJsonMiddleware,
      request: { body: jsonBody(z.strictObject({ name: nameSchema })) },
      responses: { 201: jsonContent(anyJson, 'The admin token, shown this once.') },
    }),
    async (c) => {
      const minted = await mintAdminToken(c.var.db, adminAuditContext(c), c.req.valid('json').name);
      c.header('Cache-Control', 'no-store');
      return c.json(minted, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/admin/admin-tokens',
      hide: true,
      middleware: adminMiddleware,
      responses: { 200: jsonContent(anyJson, 'Admin tokens, without secrets.') },
    }),
    async (c) => c.json({ data: await listAdminTokens(c.var.db) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/admin/admin-tokens/{admin_token_id}/revoke',
      hide: true,
      middleware: adminMiddleware,
      request: { params: idParam('admin_token_id', 'adm') },
      responses: { 200: jsonContent(anyJson, 'The revoked admin token.') },
    }),
    async (c) =>
      c.json(await revokeAdminToken(c.var.db, adminAuditContext(c), c.req.valid('param').admin_token_id!), 200),
  );
}
