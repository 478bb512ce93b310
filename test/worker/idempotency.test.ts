import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createTenant, execute, executeBody, expectProblem, issueKey, json } from './helpers';
import { moveClockForTests } from '../../worker/lib/clock';
import { IDEMPOTENCY_TTL_MS } from '../../worker/platform/core/idempotency';

async function executionsWithKey(keyId: string, idempotencyKey: string): Promise<number> {
  const row = await env.DB.prepare('SELECT COUNT(*) AS n FROM executions WHERE key_id = ? AND idempotency_key = ?')
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
    const first = await execute(tenant.token, executeBody({ idempotency_key: 'k', request_id: 'r1', trace_id: 't1' }));
    const firstText = await first.text();
    const retry = await execute(tenant.token, executeBody({ idempotency_key: 'k', request_id: 'r2', trace_id: 't2' }));
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
    const demands = await env.DB.prepare(
      'SELECT COUNT(*) AS n FROM demands WHERE execution_id IN (SELECT id FROM executions WHERE key_id = ?)',
    )
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
    const second = await execute(b.token, executeBody({ idempotency_key: 'shared-key', text: 'A different request.' }));
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
