// The local demo tenant (PRODUCT.md section 0). Idempotent: every statement leaves an
// existing row as it is, so a second run changes nothing. Never runs on deploy.
import { sha256Hex } from './lib.mjs';

export const DEMO = {
  organizationId: 'org_demo',
  workspaceId: 'ws_demo',
  keyId: 'key_demo',
};

const quote = (value) => (value === null ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`);

export function seedSql({ demoApiKey, now = Date.now() }) {
  if (!/^egk_[1-9A-HJ-NP-Za-km-z]{20,}$/.test(demoApiKey)) {
    throw new Error('DEMO_API_KEY in .dev.vars must look like egk_ followed by at least 20 base58 characters.');
  }
  const scopes = JSON.stringify(['execute', 'leads:write', 'channels:read', 'channels:write', 'memory:read', 'memory:write']);
  return `
INSERT INTO organizations (id, name, status, created_at) VALUES (${quote(DEMO.organizationId)}, 'Demo Company', 'active', ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO workspaces (id, organization_id, name, status, created_at) VALUES (${quote(DEMO.workspaceId)}, ${quote(DEMO.organizationId)}, 'Demo workspace', 'active', ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO api_keys (id, workspace_id, name, token_hash, token_prefix, scopes, created_by, created_at)
  VALUES (${quote(DEMO.keyId)}, ${quote(DEMO.workspaceId)}, 'Demo key (local)', ${quote(sha256Hex(demoApiKey))}, ${quote(demoApiKey.slice(0, 10))}, ${quote(scopes)}, 'seed', ${now})
  ON CONFLICT(id) DO UPDATE SET token_hash = excluded.token_hash, token_prefix = excluded.token_prefix
  WHERE api_keys.token_hash <> excluded.token_hash;
`;
}
