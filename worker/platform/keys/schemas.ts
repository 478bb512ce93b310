/** The wire shapes of API keys and admin tokens, as the admin API answers them. */
import { z } from '@hono/zod-openapi';

export const apiKeySchema = z
  .strictObject({
    key_id: z.string(),
    name: z.string(),
    workspace_id: z.string(),
    organization_id: z.string(),
    token_prefix: z.string().openapi({ description: 'The start of the token, to tell keys apart.' }),
    scopes: z.array(z.string()),
    rate_limit_per_minute: z.number().int().nullable(),
    monthly_quota: z.number().int().nullable(),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    state: z.enum(['active', 'revoked', 'expired']),
    created_at: z.string().nullable(),
  })
  .openapi('ApiKey');
export type ApiKeyView = z.infer<typeof apiKeySchema>;

/** A key as issued: the token is in this answer only. */
export const issuedApiKeySchema = apiKeySchema.extend({ token: z.string().startsWith('egk_') }).openapi('IssuedApiKey');

export const adminTokenSchema = z
  .strictObject({
    admin_token_id: z.string(),
    name: z.string(),
    token_prefix: z.string(),
    revoked_at: z.string().nullable(),
    created_by: z.string().nullable(),
    created_at: z.string().nullable(),
  })
  .openapi('AdminToken');
export type AdminTokenView = z.infer<typeof adminTokenSchema>;

/** An admin token as minted: the token is in this answer only. */
export const issuedAdminTokenSchema = adminTokenSchema
  .extend({ token: z.string().startsWith('egadm_') })
  .openapi('IssuedAdminToken');
