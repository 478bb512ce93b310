import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, auditEntry, call, createTenant, execute, executeBody, expectProblem, json } from './helpers';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

describe('provisioning: organisations and workspaces', () => {
  it('POST /api/admin/organizations answers 201 {organization_id, workspace_id}', async () => {
    const response = await call('/api/admin/organizations', {
      token: ADMIN_TOKEN,
      body: { name: 'Acme', workspace_name: 'Production' },
    });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body.organization_id).toMatch(/^org_[0-9a-z]{26}$/);
    expect(body.workspace_id).toMatch(/^ws_[0-9a-z]{26}$/);
    expect(body.workspace_name).toBe('Production');
    const listed = await json(
      await call(`/api/admin/workspaces?organization_id=${body.organization_id}`, { token: ADMIN_TOKEN }),
    );
    expect(listed.data.map((w: { workspace_id: string }) => w.workspace_id)).toEqual([body.workspace_id]);
  });

  it('POST /api/admin/workspaces answers 201 {workspace_id}, and 404 for an unknown organisation', async () => {
    const tenant = await createTenant();
    const response = await call('/api/admin/workspaces', {
      token: ADMIN_TOKEN,
      body: { organization_id: tenant.organizationId, name: 'Staging' },
    });
    expect(response.status).toBe(201);
    expect((await json(response)).workspace_id).toMatch(/^ws_/);
    await expectProblem(
      await call('/api/admin/workspaces', { token: ADMIN_TOKEN, body: { organization_id: 'org_missing', name: 'x' } }),
      404,
      'not_found',
    );
  });

  it('suspending an organisation stops its keys; reactivating restores them', async () => {
    const tenant = await createTenant();
    const patch = (status: string) =>
      call(`/api/admin/organizations/${tenant.organizationId}`, {
        method: 'PATCH',
        token: ADMIN_TOKEN,
        body: { status },
      });
    expect((await patch('suspended')).status).toBe(200);
    await expectProblem(await execute(tenant.token, executeBody()), 403, 'workspace_inactive');
    expect((await patch('active')).status).toBe(200);
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
  });

  it('admin bodies are validated like the gateway’s', async () => {
    const problem = await expectProblem(
      await call('/api/admin/organizations', { token: ADMIN_TOKEN, body: { name: '' } }),
      422,
      'validation_failed',
    );
    expect(problem.errors[0].pointer).toBe('/name');
    await expectProblem(
      await call('/api/admin/organizations', { token: ADMIN_TOKEN, body: '{' }),
      400,
      'malformed_json',
    );
  });
});

describe('provisioning: API keys', () => {
  it('issues an egk_ key shown once, stored only as its SHA-256', async () => {
    const tenant = await createTenant({
      scopes: ['execute', 'channels:read'],
      rate_limit_per_minute: 100,
      monthly_quota: 1000,
    });
    expect(tenant.token).toMatch(/^egk_[1-9A-HJ-NP-Za-km-z]{30,}$/);
    const row = await platformDb
      .prepare('SELECT * FROM api_keys WHERE id = ?')
      .bind(tenant.keyId)
      .first<Record<string, unknown>>();
    expect(row!.token_hash).toBe(await sha256Hex(tenant.token));
    expect(JSON.stringify(row)).not.toContain(tenant.token.slice(4));
    expect(row!.token_prefix).toBe(tenant.token.slice(0, 10));

    const listed = await json(
      await call(`/api/admin/api-keys?workspace_id=${tenant.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    expect(listed.data).toHaveLength(1);
    const [key] = listed.data;
    expect(key).toMatchObject({
      key_id: tenant.keyId,
      scopes: ['execute', 'channels:read'],
      rate_limit_per_minute: 100,
      monthly_quota: 1000,
      state: 'active',
      organization_id: tenant.organizationId,
    });
    expect(JSON.stringify(listed)).not.toContain(tenant.token);
    expect(key.token).toBeUndefined();
  });

  it('revokes at once; revoking again answers the same', async () => {
    const tenant = await createTenant();
    const revoke = () => call(`/api/admin/api-keys/${tenant.keyId}/revoke`, { method: 'POST', token: ADMIN_TOKEN });
    const first = await json(await revoke());
    expect(first.state).toBe('revoked');
    await expectProblem(await execute(tenant.token, executeBody()), 401, 'key_revoked');
    const second = await json(await revoke());
    expect(second.revoked_at).toBe(first.revoked_at);
    const revocations = await platformDb
      .prepare("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'api_key.revoked' AND target_id = ?")
      .bind(tenant.keyId)
      .first<{ n: number }>();
    expect(revocations?.n).toBe(1);
  });

  it('refuses unknown scopes, past expiry and unknown workspaces', async () => {
    const tenant = await createTenant();
    const issue = (body: Record<string, unknown>) =>
      call('/api/admin/api-keys', {
        token: ADMIN_TOKEN,
        body: { workspace_id: tenant.workspaceId, name: 'k', scopes: ['execute'], ...body },
      });
    expect((await expectProblem(await issue({ scopes: ['root'] }), 422, 'validation_failed')).errors[0].pointer).toBe(
      '/scopes/0',
    );
    expect(
      (await expectProblem(await issue({ expires_at: '2001-01-01T00:00:00Z' }), 422, 'validation_failed')).errors[0]
        .pointer,
    ).toBe('/expires_at');
    await expectProblem(await issue({ workspace_id: 'ws_missing' }), 404, 'not_found');
    await expectProblem(
      await call('/api/admin/api-keys/key_missing/revoke', { method: 'POST', token: ADMIN_TOKEN }),
      404,
      'not_found',
    );
  });

  it('a key with a future expiry works until then, and not after', async () => {
    const expiresAt = clock.now() + 3_600_000;
    const tenant = await createTenant({ expires_at: new Date(expiresAt).toISOString() });
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
    const stored = await platformDb
      .prepare('SELECT expires_at FROM api_keys WHERE id = ?')
      .bind(tenant.keyId)
      .first<{ expires_at: number }>();
    expect(stored!.expires_at).toBe(expiresAt);
    // The hour passes.
    moveClockForTests(3_600_001);
    await expectProblem(await execute(tenant.token, executeBody()), 401, 'key_expired');
  });
});

describe('provisioning: admin tokens', () => {
  it('mints an egadm_ token that acts as an administrator, until revoked', async () => {
    const minted = await json(await call('/api/admin/admin-tokens', { token: ADMIN_TOKEN, body: { name: 'ops' } }));
    expect(minted.token).toMatch(/^egadm_[1-9A-HJ-NP-Za-km-z]{30,}$/);
    const tenant = await createTenant();
    const envelope = await json(await execute(minted.token, executeBody({ key_id: tenant.keyId })));
    const audit = await auditEntry(tenant.workspaceId, envelope.exact_bridge.audit_id);
    expect(audit).toMatchObject({ actor_kind: 'admin', actor_id: minted.admin_token_id });

    const listed = await json(await call('/api/admin/admin-tokens', { token: minted.token }));
    expect(JSON.stringify(listed)).not.toContain(minted.token);

    expect(
      (await call(`/api/admin/admin-tokens/${minted.admin_token_id}/revoke`, { method: 'POST', token: ADMIN_TOKEN }))
        .status,
    ).toBe(200);
    await expectProblem(await call('/api/admin/organizations', { token: minted.token }), 401, 'invalid_token');
  });
});

describe('the audit log', () => {
  it('records provisioning, filters by workspace and action, and pages with a cursor', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 3; i++) await execute(tenant.token, executeBody());
    const all = await json(
      await call(`/api/admin/audit-log?workspace_id=${tenant.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    const actions = all.data.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual([
      'execution.completed',
      'execution.completed',
      'execution.completed',
      'api_key.issued',
      'organization.created',
    ]);

    const page1 = await json(
      await call(`/api/admin/audit-log?workspace_id=${tenant.workspaceId}&limit=2`, { token: ADMIN_TOKEN }),
    );
    expect(page1.data).toHaveLength(2);
    expect(page1.has_more).toBe(true);
    const page2 = await json(
      await call(
        `/api/admin/audit-log?workspace_id=${tenant.workspaceId}&limit=2&starting_after=${page1.next_cursor}`,
        { token: ADMIN_TOKEN },
      ),
    );
    expect(page2.data.map((entry: { audit_id: string }) => entry.audit_id)).toEqual(
      all.data.slice(2, 4).map((entry: { audit_id: string }) => entry.audit_id),
    );

    const issued = await json(
      await call(`/api/admin/audit-log?workspace_id=${tenant.workspaceId}&action=api_key.issued`, {
        token: ADMIN_TOKEN,
      }),
    );
    expect(issued.data).toHaveLength(1);
    expect(issued.data[0]).toMatchObject({ actor_kind: 'admin', actor_id: 'adm_bootstrap', target_id: tenant.keyId });
  });

  it('merges executions’ entries (read from their rows) with the others, in order, across pages', async () => {
    const tenant = await createTenant();
    await execute(tenant.token, executeBody());
    await call('/api/admin/api-keys', {
      token: ADMIN_TOKEN,
      body: { workspace_id: tenant.workspaceId, name: 'second', scopes: ['execute'] },
    });
    await execute(tenant.token, executeBody());
    const all = await json(
      await call(`/api/admin/audit-log?workspace_id=${tenant.workspaceId}`, { token: ADMIN_TOKEN }),
    );
    expect(all.data.map((entry: { action: string }) => entry.action)).toEqual([
      'execution.completed',
      'api_key.issued',
      'execution.completed',
      'api_key.issued',
      'organization.created',
    ]);
    const paged: string[] = [];
    let cursor = '';
    do {
      const page = await json(
        await call(`/api/admin/audit-log?workspace_id=${tenant.workspaceId}&limit=1${cursor}`, { token: ADMIN_TOKEN }),
      );
      paged.push(...page.data.map((entry: { audit_id: string }) => entry.audit_id));
      cursor = page.has_more ? `&starting_after=${page.next_cursor}` : '';
    } while (cursor);
    expect(paged).toEqual(all.data.map((entry: { audit_id: string }) => entry.audit_id));
    const executions = await json(
      await call(`/api/admin/audit-log?workspace_id=${tenant.workspaceId}&action=execution.completed`, {
        token: ADMIN_TOKEN,
      }),
    );
    expect(executions.data).toHaveLength(2);
    expect(executions.data[0]).toMatchObject({ actor_kind: 'api_key', key_id: tenant.keyId });
  });

  it('rejects a bad limit with 422 naming it', async () => {
    const problem = await expectProblem(
      await call('/api/admin/audit-log?limit=0', { token: ADMIN_TOKEN }),
      422,
      'validation_failed',
    );
    expect(problem.errors[0].pointer).toBe('/limit');
  });
});
