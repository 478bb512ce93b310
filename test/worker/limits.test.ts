import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { countRows, createTenant, execute, executeBody, expectProblem, json } from './helpers';

describe('rate limit per key', () => {
  it('the N+1th request in the window gets 429 rate_limited with Retry-After', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 3 });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await execute(tenant.token, executeBody());
      expect(response.status).toBe(200);
      expect(response.headers.get('RateLimit-Limit')).toBe('3');
      remaining.push(response.headers.get('RateLimit-Remaining') ?? '');
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await execute(tenant.token, executeBody());
    await expectProblem(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers.get('Retry-After'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await countRows('executions', tenant.workspaceId)).toBe(3);
  });

  it('is exact under concurrency: 10 at once against a limit of 4 let exactly 4 through', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 4 });
    const responses = await Promise.all(Array.from({ length: 10 }, () => execute(tenant.token, executeBody())));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
    expect(await countRows('executions', tenant.workspaceId)).toBe(4);
  });

  it('a new window opens a minute after the last one began', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 1 });
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
    await expectProblem(await execute(tenant.token, executeBody()), 429, 'rate_limited');
    await env.DB.prepare('UPDATE rate_limit_windows SET window_start = window_start - 60000 WHERE key_id = ?')
      .bind(tenant.keyId)
      .run();
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
  });

  it('keys are limited separately', async () => {
    const a = await createTenant({ rate_limit_per_minute: 1 });
    const b = await createTenant({ rate_limit_per_minute: 1 });
    expect((await execute(a.token, executeBody())).status).toBe(200);
    expect((await execute(b.token, executeBody())).status).toBe(200);
  });
});

describe('monthly quota per key', () => {
  it('charges appear in usage_applications and exhaustion gives 429 quota_exceeded', async () => {
    const tenant = await createTenant({ monthly_quota: 2 });
    const first = await json(await execute(tenant.token, executeBody()));
    expect(first.usage_applications).toEqual([
      { meter: 'executions', quantity: 1, unit: 'execution', limit: 2, remaining: 1, source: 'platform' },
    ]);
    const second = await json(await execute(tenant.token, executeBody()));
    expect(second.usage_applications[0].remaining).toBe(0);
    await expectProblem(await execute(tenant.token, executeBody()), 429, 'quota_exceeded');
    expect(await countRows('executions', tenant.workspaceId)).toBe(2);
    const meter = await env.DB.prepare('SELECT used, quota FROM usage_meters WHERE key_id = ?')
      .bind(tenant.keyId)
      .first();
    expect(meter).toEqual({ used: 2, quota: 2 });
  });

  it('is exact under concurrency: 8 at once against a quota of 3 run exactly 3', async () => {
    const tenant = await createTenant({ monthly_quota: 3 });
    const responses = await Promise.all(Array.from({ length: 8 }, () => execute(tenant.token, executeBody())));
    const ok = responses.filter((response) => response.status === 200);
    expect(ok).toHaveLength(3);
    for (const response of responses.filter((r) => r.status !== 200))
      await expectProblem(response, 429, 'quota_exceeded');
    const remaining = (await Promise.all(ok.map((response) => json(response))))
      .map((e) => e.usage_applications[0].remaining)
      .sort();
    expect(remaining).toEqual([0, 1, 2]);
    expect(await countRows('executions', tenant.workspaceId)).toBe(3);
    expect(await countRows('demands', tenant.workspaceId)).toBe(3);
  });

  it('a key without a quota is still metered, without limit or remaining', async () => {
    const tenant = await createTenant();
    const envelope = await json(await execute(tenant.token, executeBody()));
    expect(envelope.usage_applications).toEqual([
      { meter: 'executions', quantity: 1, unit: 'execution', source: 'platform' },
    ]);
  });

  it('a quota of 0 refuses at once', async () => {
    const tenant = await createTenant({ monthly_quota: 0 });
    await expectProblem(await execute(tenant.token, executeBody()), 429, 'quota_exceeded');
  });
});
