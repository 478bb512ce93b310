import { beforeAll, describe, expect, it, vi } from 'vitest';
import { EXACT_BRIDGE_FIELDS } from '../../worker/platform/core/schemas';
import {
  auditEntries,
  auditEntry,
  createTenant,
  execute,
  executeBody,
  expectProblem,
  json,
  type Tenant,
  issueKey,
} from './helpers';
import { moveClockForTests } from '../../worker/lib/clock';
import { IDEMPOTENCY_TTL_MS } from '../../worker/platform/core/idempotency';
import { platformDb } from './platform-db';

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
    const row = await platformDb
      .prepare('SELECT request_id, trace_id FROM executions WHERE id = ?')
      .bind(envelope.output.execution_id)
      .first();
    expect(row).toEqual({ request_id: 'req-from-caller-42', trace_id: 'trace-from-caller-7' });
    const audit = await auditEntry(tenant.workspaceId, envelope.exact_bridge.audit_id);
    expect(audit?.request_id).toBe(ours);
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
    const audit = await auditEntry(tenant.workspaceId, envelope.exact_bridge.audit_id);
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
    expect(audit?.metadata).toEqual({
      domain: 'consultation',
      source_record: expect.any(String),
      scopes: expect.any(Array),
    });
    // One entry, read from the execution row: nothing of it is copied into audit_log.
    const entries = await auditEntries(tenant.workspaceId);
    expect(entries.filter((entry) => entry.target_id === envelope.output.execution_id)).toHaveLength(1);
    const copied = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM audit_log WHERE target_id = ?')
      .bind(envelope.output.execution_id)
      .first<{ n: number }>();
    expect(copied?.n).toBe(0);
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
    const row = await platformDb
      .prepare('SELECT exact_bridge FROM executions WHERE id = ?')
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
    const demand = await platformDb
      .prepare('SELECT * FROM demands WHERE id = ?')
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
    // As its audit entry says them (kept as bits of the known scopes on the execution row).
    const scopesOf = async (envelope: Record<string, any>) =>
      (
        (await auditEntry(tenant.workspaceId, envelope.exact_bridge.audit_id))?.metadata as
          | { scopes?: string[] }
          | undefined
      )?.scopes;
    expect(await scopesOf(narrow)).toEqual(['execute', 'memory:read']);
    expect(await scopesOf(wide)).toEqual(['execute', 'leads:write', 'memory:read']);
  });

  it('stores the caller’s own correlation fields', async () => {
    const envelope = await json(
      await execute(tenant.token, executeBody({ project_id: 'p1', user_id: 'u1', session_id: 's1' })),
    );
    const row = await platformDb
      .prepare('SELECT project_id, user_id, session_id FROM executions WHERE id = ?')
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

describe('idempotency keys', () => {
  async function executionsWithKey(keyId: string, idempotencyKey: string): Promise<number> {
    const row = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM executions WHERE key_id = ? AND idempotency_key = ?')
      .bind(keyId, idempotencyKey)
      .first<{ n: number }>();
    return row?.n ?? 0;
  }

  describe('idempotency', () => {
    it('a replay is byte-identical and carries Idempotent-Replayed: true', async () => {
      const tenant = await createTenant();
      const body = executeBody({ idempotency_key: 'order-1001', request_id: 'caller-req-1' });
      const first = await execute(tenant.token, body);
      expect(first.status).toBe(200);
      expect(first.headers.get('Idempotent-Replayed')).toBeNull();
      const firstText = await first.text();

      const replay = await execute(tenant.token, body);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
      expect(await replay.text()).toBe(firstText);
      expect(await executionsWithKey(tenant.keyId, 'order-1001')).toBe(1);
    });

    it('a retry with new correlation ids still replays (they are not part of the fingerprint)', async () => {
      const tenant = await createTenant();
      const first = await execute(
        tenant.token,
        executeBody({ idempotency_key: 'k', request_id: 'r1', trace_id: 't1' }),
      );
      const firstText = await first.text();
      const retry = await execute(
        tenant.token,
        executeBody({ idempotency_key: 'k', request_id: 'r2', trace_id: 't2' }),
      );
      expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
      expect(await retry.text()).toBe(firstText);
    });

    it('the fingerprint ignores key order', async () => {
      const tenant = await createTenant();
      const body = executeBody({ idempotency_key: 'ordered', structured_input: { a: 1, b: { c: 2, d: 3 } } });
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      reordered.structured_input = { b: { d: 3, c: 2 }, a: 1 };
      await execute(tenant.token, body);
      const replay = await execute(tenant.token, reordered);
      expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    });

    it('the same key with a different body is 422 idempotency_key_reused', async () => {
      const tenant = await createTenant();
      expect((await execute(tenant.token, executeBody({ idempotency_key: 'dup' }))).status).toBe(200);
      const problem = await expectProblem(
        await execute(tenant.token, executeBody({ idempotency_key: 'dup', text: 'Something else entirely.' })),
        422,
        'idempotency_key_reused',
      );
      expect(problem.errors[0].pointer).toBe('/idempotency_key');
      expect(await executionsWithKey(tenant.keyId, 'dup')).toBe(1);
    });

    it('10 concurrent requests with one idempotency key execute exactly once', async () => {
      const tenant = await createTenant();
      const body = executeBody({ idempotency_key: 'concurrent-1' });
      const responses = await Promise.all(Array.from({ length: 10 }, () => execute(tenant.token, body)));
      const statuses = responses.map((response) => response.status);
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      expect(statuses).toContain(200);
      const successes = await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.text()));
      expect(new Set(successes).size).toBe(1);
      for (const response of responses.filter((r) => r.status === 409)) {
        const problem = await expectProblem(response, 409, 'idempotency_in_progress');
        expect(response.headers.get('Retry-After')).toBe('1');
        expect(problem.code).toBe('idempotency_in_progress');
      }
      expect(await executionsWithKey(tenant.keyId, 'concurrent-1')).toBe(1);
      const demands = await platformDb
        .prepare('SELECT COUNT(*) AS n FROM demands WHERE execution_id IN (SELECT id FROM executions WHERE key_id = ?)')
        .bind(tenant.keyId)
        .first<{ n: number }>();
      expect(demands?.n).toBe(1);
      // After the first completes, every retry replays it.
      const later = await execute(tenant.token, body);
      expect(later.headers.get('Idempotent-Replayed')).toBe('true');
      expect(await later.text()).toBe(successes[0]);
    });

    it('two keys in different workspaces using the same idempotency_key do not collide', async () => {
      const a = await createTenant();
      const b = await createTenant();
      const first = await json(await execute(a.token, executeBody({ idempotency_key: 'shared-key' })));
      const second = await execute(
        b.token,
        executeBody({ idempotency_key: 'shared-key', text: 'A different request.' }),
      );
      expect(second.status).toBe(200);
      expect(second.headers.get('Idempotent-Replayed')).toBeNull();
      const secondEnvelope = await json(second);
      expect(secondEnvelope.output.execution_id).not.toBe(first.output.execution_id);
      expect(secondEnvelope.exact_bridge.workspace_id).toBe(b.workspaceId);
    });

    it('two keys in one workspace keep separate idempotency spaces too', async () => {
      const tenant = await createTenant();
      const second = await issueKey(tenant.workspaceId);
      await execute(tenant.token, executeBody({ idempotency_key: 'per-key' }));
      const response = await execute(second.token, executeBody({ idempotency_key: 'per-key' }));
      expect(response.headers.get('Idempotent-Replayed')).toBeNull();
    });

    it('failures before execution are not stored: a retry after fixing the scope runs', async () => {
      const tenant = await createTenant({ scopes: ['execute'] });
      const body = executeBody({ idempotency_key: 'fix-me', required_scopes: ['leads:write'] });
      await expectProblem(await execute(tenant.token, body), 403, 'insufficient_scope');
      const fixed = await execute(tenant.token, { ...body, required_scopes: ['execute'] });
      expect(fixed.status).toBe(200);
      expect(fixed.headers.get('Idempotent-Replayed')).toBeNull();
    });

    it('a replay of a metered key repeats the exact usage it reported', async () => {
      const tenant = await createTenant({ monthly_quota: 5 });
      const first = await execute(tenant.token, executeBody({ idempotency_key: 'metered' }));
      const firstText = await first.text();
      expect(JSON.parse(firstText).usage_applications).toEqual([
        { meter: 'executions', quantity: 1, unit: 'execution', limit: 5, remaining: 4, source: 'platform' },
      ]);
      const replay = await execute(tenant.token, executeBody({ idempotency_key: 'metered' }));
      expect(await replay.text()).toBe(firstText);
      // A replay charges nothing more.
      const next = await json(await execute(tenant.token, executeBody()));
      expect(next.usage_applications[0].remaining).toBe(3);
    });

    it('a record past its 24 hours may be used again', async () => {
      const tenant = await createTenant();
      await execute(tenant.token, executeBody({ idempotency_key: 'old' }));
      moveClockForTests(IDEMPOTENCY_TTL_MS);
      const response = await execute(
        tenant.token,
        executeBody({ idempotency_key: 'old', text: 'A new request a day later.' }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('Idempotent-Replayed')).toBeNull();
    });
  });
});
