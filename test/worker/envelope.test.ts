import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { EXACT_BRIDGE_FIELDS } from '../../worker/platform/core/schemas';
import { createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';

describe('the execution envelope', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant({ scopes: ['execute', 'leads:write', 'memory:read'] });
  });

  it('echoes the caller’s correlation ids in output; X-Request-Id and the log keep our own id', async () => {
    const log = vi.spyOn(console, 'log');
    const response = await execute(
      tenant.token,
      executeBody({ request_id: 'req-from-caller-42', trace_id: 'trace-from-caller-7' }),
    );
    const envelope = await json(response);
    expect(envelope.output.request_id).toBe('req-from-caller-42');
    expect(envelope.output.trace_id).toBe('trace-from-caller-7');
    const ours = response.headers.get('X-Request-Id');
    expect(ours).toMatch(/^req_[0-9a-z]{26}$/);
    const row = await env.DB.prepare('SELECT request_id, trace_id FROM executions WHERE id = ?')
      .bind(envelope.output.execution_id)
      .first();
    expect(row).toEqual({ request_id: 'req-from-caller-42', trace_id: 'trace-from-caller-7' });
    const audit = await env.DB.prepare('SELECT request_id FROM audit_log WHERE id = ?')
      .bind(envelope.exact_bridge.audit_id)
      .first();
    expect(audit).toEqual({ request_id: ours });
    const line = log.mock.calls
      .map(([text]) => (typeof text === 'string' && text.startsWith('{') ? JSON.parse(text) : undefined))
      .find(
        (entry) =>
          entry?.message === 'request' &&
          entry.path === '/api/execute' &&
          entry.caller_request_id === 'req-from-caller-42',
      );
    expect(line).toMatchObject({ request_id: ours, caller_request_id: 'req-from-caller-42' });
    log.mockRestore();
  });

  it('a caller cannot choose our id: two executions with the same request_id get two X-Request-Ids', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => execute(tenant.token, executeBody({ request_id: 'same-id' }))));
    expect(a!.headers.get('X-Request-Id')).not.toBe(b!.headers.get('X-Request-Id'));
  });

  it('generates correlation ids when absent', async () => {
    const response = await execute(tenant.token, executeBody());
    const envelope = await json(response);
    expect(envelope.output.request_id).toMatch(/^req_[0-9a-z]{26}$/);
    expect(envelope.output.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(response.headers.get('X-Request-Id')).toBe(envelope.output.request_id);
  });

  it('takes trace_id from a W3C traceparent header', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const envelope = await json(await execute(tenant.token, executeBody(), { traceparent }));
    expect(envelope.output.trace_id).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('ignores an invalid traceparent', async () => {
    const envelope = await json(
      await execute(tenant.token, executeBody(), {
        traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      }),
    );
    expect(envelope.output.trace_id).not.toBe('00000000000000000000000000000000');
    expect(envelope.output.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('has the completed output, usage and all eight exact_bridge strings', async () => {
    const envelope = await json(await execute(tenant.token, executeBody()));
    expect(Object.keys(envelope).sort()).toEqual(['exact_bridge', 'output', 'usage_applications']);
    expect(envelope.output.status).toBe('completed');
    expect(envelope.output.domain).toBe('consultation');
    expect(envelope.output.execution_id).toMatch(/^exe_/);
    expect(Object.keys(envelope.exact_bridge).sort()).toEqual([...EXACT_BRIDGE_FIELDS].sort());
    for (const field of EXACT_BRIDGE_FIELDS) expect(typeof envelope.exact_bridge[field]).toBe('string');
    expect(envelope.exact_bridge).toMatchObject({
      contract_id: '',
      escrow_id: '',
      org_id: tenant.organizationId,
      organization_id: tenant.organizationId,
      workspace_id: tenant.workspaceId,
      source_layer: 'brain',
    });
  });

  it('audit_id points to a real audit row of this execution', async () => {
    const response = await execute(tenant.token, executeBody({ request_id: 'audited-1' }));
    const envelope = await json(response);
    const audit = await env.DB.prepare('SELECT * FROM audit_log WHERE id = ?')
      .bind(envelope.exact_bridge.audit_id)
      .first<Record<string, unknown>>();
    expect(audit).toMatchObject({
      action: 'execution.completed',
      target_id: envelope.output.execution_id,
      workspace_id: tenant.workspaceId,
      organization_id: tenant.organizationId,
      actor_kind: 'api_key',
      actor_id: tenant.keyId,
      key_id: tenant.keyId,
      // The audit record carries our request id, as the log line does; the caller's is on the execution.
      request_id: response.headers.get('X-Request-Id'),
    });
    const audits = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM audit_log WHERE target_id = ? AND action = 'execution.completed'",
    )
      .bind(envelope.output.execution_id)
      .first<{ n: number }>();
    expect(audits?.n).toBe(1);
  });

  it('contract_id and escrow_id come from the request (the caller’s own references, without a contract)', async () => {
    const envelope = await json(
      await execute(
        tenant.token,
        executeBody({ exact_bridge: { contract_id: 'C-778', escrow_id: 'E-12', partner_ref: 'p-1' } }),
      ),
    );
    expect(envelope.exact_bridge.contract_id).toBe('C-778');
    expect(envelope.exact_bridge.escrow_id).toBe('E-12');
    const row = await env.DB.prepare('SELECT exact_bridge FROM executions WHERE id = ?')
      .bind(envelope.output.execution_id)
      .first<{ exact_bridge: string }>();
    expect(JSON.parse(row!.exact_bridge)).toEqual({ contract_id: 'C-778', escrow_id: 'E-12', partner_ref: 'p-1' });
    // The platform's own ids name a contract: without one in force here, they are refused.
    await expectProblem(
      await execute(tenant.token, executeBody({ exact_bridge: { contract_id: 'ctr_778' } })),
      422,
      'contract_mismatch',
    );
  });

  it('the consultation domain stores a real demand and answers with its id', async () => {
    const envelope = await json(
      await execute(
        tenant.token,
        executeBody({ text: 'Audit our payroll setup', attachments: [{ attachment_id: 'att_1', kind: 'pdf' }] }),
      ),
    );
    const demandId = envelope.output.result.demand_id;
    // The key holds leads:write, so the routed demand became a lead: the record the execution produced.
    expect(envelope.output.result).toMatchObject({
      disposition: 'routed',
      reasons: [],
      topic: 'general',
      urgency: 'normal',
    });
    expect(envelope.output.result.lead_id).toMatch(/^lead_/);
    expect(envelope.exact_bridge.source_record).toBe(envelope.output.result.lead_id);
    const demand = await env.DB.prepare('SELECT * FROM demands WHERE id = ?')
      .bind(demandId)
      .first<Record<string, string>>();
    expect(demand).toMatchObject({
      text: 'Audit our payroll setup',
      execution_id: envelope.output.execution_id,
      workspace_id: tenant.workspaceId,
    });
    expect(JSON.parse(demand!.attachments!)).toEqual([{ attachment_id: 'att_1', kind: 'pdf' }]);
    expect(envelope.output.result.reply).toContain(demandId);
  });

  it('two executions produce two different results', async () => {
    const [a, b] = await Promise.all([
      json(await execute(tenant.token, executeBody())),
      json(await execute(tenant.token, executeBody())),
    ]);
    expect(a.output.result.demand_id).not.toBe(b.output.result.demand_id);
  });

  it('runs with exactly required_scopes, or all of the key’s scopes when empty', async () => {
    const narrow = await json(
      await execute(tenant.token, executeBody({ required_scopes: ['execute', 'memory:read'] })),
    );
    const wide = await json(await execute(tenant.token, executeBody({ required_scopes: [] })));
    const scopesOf = async (id: string) =>
      JSON.parse(
        (await env.DB.prepare('SELECT granted_scopes FROM executions WHERE id = ?')
          .bind(id)
          .first<{ granted_scopes: string }>())!.granted_scopes,
      );
    expect(await scopesOf(narrow.output.execution_id)).toEqual(['execute', 'memory:read']);
    expect(await scopesOf(wide.output.execution_id)).toEqual(['execute', 'leads:write', 'memory:read']);
  });

  it('stores the caller’s own correlation fields', async () => {
    const envelope = await json(
      await execute(tenant.token, executeBody({ project_id: 'p1', user_id: 'u1', session_id: 's1' })),
    );
    const row = await env.DB.prepare('SELECT project_id, user_id, session_id FROM executions WHERE id = ?')
      .bind(envelope.output.execution_id)
      .first();
    expect(row).toEqual({ project_id: 'p1', user_id: 'u1', session_id: 's1' });
  });

  it('an unknown domain is 422 unknown_domain and is not executed', async () => {
    const problem = await expectProblem(
      await execute(tenant.token, executeBody({ domain: 'astrology' })),
      422,
      'unknown_domain',
    );
    expect(problem.errors[0].pointer).toBe('/domain');
  });

  it('the response is not cacheable', async () => {
    const response = await execute(tenant.token, executeBody());
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(response.headers.get('Content-Type')).toBe('application/json');
  });
});
