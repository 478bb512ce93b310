import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  call,
  createTenant,
  execute,
  auditEntry,
  executeBody,
  expectProblem,
  issueKey,
  json,
  writeFootprint,
  type Tenant,
} from './helpers';
import { clock, moveClockForTests } from '../../worker/lib/clock';

interface AuthCase {
  name: string;
  request: () => Promise<Response>;
  status: number;
  code: string;
  /** The tenant whose rows must stay untouched. */
  tenant: () => Tenant;
}

describe('auth matrix for POST /api/execute', () => {
  let tenant: Tenant;
  let other: Tenant;
  let revoked: { keyId: string; token: string };
  let expired: { keyId: string; token: string };
  let noExecute: { keyId: string; token: string };
  let suspended: Tenant;

  beforeAll(async () => {
    tenant = await createTenant({ scopes: ['execute'] });
    other = await createTenant();
    revoked = await issueKey(tenant.workspaceId);
    expect(
      (await call(`/api/admin/api-keys/${revoked.keyId}/revoke`, { method: 'POST', token: ADMIN_TOKEN })).status,
    ).toBe(200);
    expired = await issueKey(tenant.workspaceId, { expires_at: new Date(clock.now() + 60_000).toISOString() });
    moveClockForTests(61_000);
    noExecute = await issueKey(tenant.workspaceId, { scopes: ['leads:write'] });
    suspended = await createTenant();
    const suspend = await call(`/api/admin/workspaces/${suspended.workspaceId}`, {
      method: 'PATCH',
      token: ADMIN_TOKEN,
      body: { status: 'suspended' },
    });
    expect(suspend.status).toBe(200);
  });

  const cases: AuthCase[] = [
    {
      name: 'no Authorization header',
      request: () => call('/api/execute', { body: executeBody() }),
      status: 401,
      code: 'missing_credentials',
      tenant: () => tenant,
    },
    {
      name: 'malformed header (Basic)',
      request: () => execute('', executeBody(), { Authorization: 'Basic dXNlcjpwYXNz' }),
      status: 401,
      code: 'malformed_authorization',
      tenant: () => tenant,
    },
    {
      name: 'malformed header (Bearer without token)',
      request: () => execute('', executeBody(), { Authorization: 'Bearer' }),
      status: 401,
      code: 'malformed_authorization',
      tenant: () => tenant,
    },
    {
      name: 'malformed header (two tokens)',
      request: () => execute('', executeBody(), { Authorization: 'Bearer a b' }),
      status: 401,
      code: 'malformed_authorization',
      tenant: () => tenant,
    },
    {
      name: 'unknown egk_ token',
      request: () => execute('egk_4Fz8sYv3QnT6wK2pL9mB7cR1dX5hJ', executeBody()),
      status: 401,
      code: 'invalid_token',
      tenant: () => tenant,
    },
    {
      name: 'unknown admin-looking token',
      request: () => execute('egadm_4Fz8sYv3QnT6wK2pL9mB7cR1dX5hJ', executeBody({ key_id: tenant.keyId })),
      status: 401,
      code: 'invalid_token',
      tenant: () => tenant,
    },
    {
      name: 'revoked key',
      request: () => execute(revoked.token, executeBody()),
      status: 401,
      code: 'key_revoked',
      tenant: () => tenant,
    },
    {
      name: 'expired key',
      request: () => execute(expired.token, executeBody()),
      status: 401,
      code: 'key_expired',
      tenant: () => tenant,
    },
    {
      name: 'admin without key_id',
      request: () => execute(ADMIN_TOKEN, executeBody()),
      status: 422,
      code: 'key_id_required',
      tenant: () => tenant,
    },
    {
      name: 'admin with unknown key_id',
      request: () => execute(ADMIN_TOKEN, executeBody({ key_id: 'key_doesnotexist000000000000' })),
      status: 422,
      code: 'unknown_key_id',
      tenant: () => tenant,
    },
    {
      name: 'admin with revoked key_id',
      request: () => execute(ADMIN_TOKEN, executeBody({ key_id: revoked.keyId })),
      status: 403,
      code: 'key_inactive',
      tenant: () => tenant,
    },
    {
      name: 'admin with expired key_id',
      request: () => execute(ADMIN_TOKEN, executeBody({ key_id: expired.keyId })),
      status: 403,
      code: 'key_inactive',
      tenant: () => tenant,
    },
    {
      name: "API key sending another key's key_id",
      request: () => execute(tenant.token, executeBody({ key_id: other.keyId })),
      status: 403,
      code: 'key_mismatch',
      tenant: () => tenant,
    },
    {
      name: 'key without the execute scope',
      request: () => execute(noExecute.token, executeBody()),
      status: 403,
      code: 'insufficient_scope',
      tenant: () => tenant,
    },
    {
      name: 'required_scopes beyond the key',
      request: () => execute(tenant.token, executeBody({ required_scopes: ['execute', 'leads:write'] })),
      status: 403,
      code: 'insufficient_scope',
      tenant: () => tenant,
    },
    {
      name: 'suspended workspace',
      request: () => execute(suspended.token, executeBody()),
      status: 403,
      code: 'workspace_inactive',
      tenant: () => suspended,
    },
  ];

  for (const testCase of cases) {
    it(`${testCase.name} → ${testCase.status} ${testCase.code}, and writes nothing`, async () => {
      const owner = testCase.tenant();
      const before = await writeFootprint(owner.workspaceId, owner.keyId);
      const problem = await expectProblem(await testCase.request(), testCase.status, testCase.code);
      expect(JSON.stringify(problem)).not.toContain('egk_');
      expect(await writeFootprint(owner.workspaceId, owner.keyId)).toEqual(before);
    });
  }

  it('401s carry WWW-Authenticate: Bearer', async () => {
    const missing = await call('/api/execute', { body: executeBody() });
    expect(missing.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
    const revokedResponse = await execute(revoked.token, executeBody());
    expect(revokedResponse.headers.get('WWW-Authenticate')).toContain('invalid_token');
  });

  it('insufficient_scope names the missing scopes', async () => {
    const problem = await expectProblem(
      await execute(tenant.token, executeBody({ required_scopes: ['memory:read', 'leads:write'] })),
      403,
      'insufficient_scope',
    );
    expect(problem.missing_scopes).toEqual(['memory:read', 'leads:write']);
  });

  it('authentication runs before body validation: a bad body without a token is a 401', async () => {
    await expectProblem(await call('/api/execute', { body: '{not json' }), 401, 'missing_credentials');
  });

  it('an admin with a valid key_id executes as that key, and the audit records the admin', async () => {
    const response = await execute(ADMIN_TOKEN, executeBody({ key_id: tenant.keyId }));
    expect(response.status).toBe(200);
    const envelope = await json(response);
    expect(envelope.exact_bridge.workspace_id).toBe(tenant.workspaceId);
    const audit = await auditEntry(tenant.workspaceId, envelope.exact_bridge.audit_id);
    expect(audit).toMatchObject({ actor_kind: 'admin', actor_id: 'adm_bootstrap', key_id: tenant.keyId });
  });

  it('the Bearer scheme is case-insensitive (RFC 9110 section 11.1)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const response = await execute('', executeBody(), { Authorization: `${scheme} ${tenant.token}` });
      expect(response.status, scheme).toBe(200);
    }
    await expectProblem(
      await execute('', executeBody(), { Authorization: `Bearerx ${tenant.token}` }),
      401,
      'malformed_authorization',
    );
  });

  it('an API key may name itself in key_id', async () => {
    expect((await execute(tenant.token, executeBody({ key_id: tenant.keyId }))).status).toBe(200);
  });

  it('an API key cannot use the admin API', async () => {
    await expectProblem(await call('/api/admin/organizations', { token: tenant.token }), 403, 'admin_required');
  });
});
