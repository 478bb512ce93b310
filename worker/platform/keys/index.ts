/**
 * API keys and admin tokens: their lifecycle (issue, list, revoke) and wire shapes. Resolving a
 * bearer to its key, and the guards, are identity's.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  issueApiKey,
  type IssueApiKeyInput,
  listAdminTokens,
  listApiKeys,
  mintAdminToken,
  revokeAdminToken,
  revokeApiKey,
} from './service';
export {
  type AdminTokenView,
  adminTokenSchema,
  type ApiKeyView,
  apiKeySchema,
  issuedAdminTokenSchema,
  issuedApiKeySchema,
} from './schemas';
