import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { app } from '../../worker/index';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json } from './helpers';

describe('GET /healthz', () => {
  it('answers {status, version} without touching D1', async () => {
    const response = await call('/healthz');
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ status: 'ok', version: '0.1.0' });
    expect(response.headers.get('X-D1-Queries')).toBe('0');
    expect(response.headers.get('X-Request-Id')).toMatch(/^req_/);
  });

  it('?deep=1 checks D1', async () => {
    const response = await call('/healthz?deep=1');
    expect(await json(response)).toEqual({ status: 'ok', version: '0.1.0', checks: { d1: 'ok' } });
  });

  it('?deep=1 answers 503 when D1 fails', async () => {
    const broken = { prepare: () => { throw new Error('D1 is down'); }, batch: () => Promise.reject(new Error('down')) };
    const response = await app.request('http://gateway.test/healthz?deep=1', {}, { ...env, DB: broken as unknown as D1Database });
    const problem = await expectProblem(response, 503, 'service_unavailable');
    expect(problem.checks).toEqual({ d1: 'fail' });
  });
});

describe('errors outside the gateway', () => {
  it('unknown /api/ routes are 404 problem+json', async () => {
    await expectProblem(await call('/api/nothing-here'), 404, 'not_found');
    await expectProblem(await call('/api/execute', { method: 'GET' }), 404, 'not_found');
  });

  it('unknown pages are an HTML 404 that escapes the path', async () => {
    const response = await call('/no/<script>alert(1)</script>');
    expect(response.status).toBe(404);
    expect(response.headers.get('Content-Type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('Page not found');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(response.headers.get('X-Request-Id')).toMatch(/^req_/);
  });

  it('an unexpected exception is a 500 problem with nothing internal in it', async () => {
    const secret = 'SELECT token_hash FROM api_keys -- internal detail';
    const broken = { prepare: () => { throw new Error(secret); }, batch: () => Promise.reject(new Error(secret)) };
    const logged: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void logged.push(line));
    const response = await app.request(
      'http://gateway.test/api/admin/organizations',
      { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
      { ...env, DB: broken as unknown as D1Database },
    );
    spy.mockRestore();
    const problem = await expectProblem(response, 500, 'internal_error');
    const text = JSON.stringify(problem);
    expect(text).not.toContain('SELECT');
    expect(text).not.toContain('at ');
    // Engineers still get the cause, tied to the request id.
    const errorLine = logged.map((line) => JSON.parse(line)).find((line) => line.message === 'unhandled_exception');
    expect(errorLine.request_id).toBe(problem.request_id);
  });
});

describe('request logs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('write one JSON line per request with the agreed fields, and never the token or the text', async () => {
    const tenant = await createTenant();
    const logged: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void logged.push(line));
    const body = executeBody({ text: 'my phone is +44 7700 900123', request_id: 'log-test-1' });
    await app.request(
      'http://gateway.test/api/execute',
      { method: 'POST', headers: { Authorization: `Bearer ${tenant.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
      env,
    );
    await app.request('http://gateway.test/api/execute', { method: 'POST', headers: { Authorization: 'Bearer egk_wrongwrongwrongwrongwrong1' } }, env);
    vi.restoreAllMocks();
    const lines = logged.map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      message: 'request',
      caller_request_id: 'log-test-1',
      method: 'POST',
      path: '/api/execute',
      status: 200,
      actor_kind: 'api_key',
      key_id: tenant.keyId,
    });
    expect(lines[0].request_id).toMatch(/^req_[0-9a-z]{26}$/);
    expect(lines[0].trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(typeof lines[0].duration_ms).toBe('number');
    expect(lines[1]).toMatchObject({ status: 415, actor_kind: 'anonymous', key_id: null });
    const all = logged.join('\n');
    expect(all).not.toContain(tenant.token);
    expect(all).not.toContain('egk_wrong');
    expect(all).not.toContain('7700');
  });
});

describe('D1 work per execution', () => {
  async function queriesFor(token: string, body = executeBody()): Promise<{ trips: number; statements: number }> {
    const response = await execute(token, body);
    expect(response.status).toBe(200);
    return { trips: Number(response.headers.get('X-D1-Queries')), statements: Number(response.headers.get('X-D1-Statements')) };
  }

  it('stays the same as keys, workspaces, channels and rows grow', async () => {
    const tenant = await createTenant();
    // Warm: the catalog, the workspace's risk policy and the domain's experts are cached briefly.
    await queriesFor(tenant.token);
    const before = await queriesFor(tenant.token);
    const beforeIdempotent = await queriesFor(tenant.token, executeBody({ idempotency_key: 'q-1' }));
    // Grow the data: more tenants, keys, channels and executions.
    for (let i = 0; i < 5; i++) {
      const other = await createTenant({ scopes: ['execute', 'channels:write'] });
      for (let j = 0; j < 4; j++) await execute(other.token, executeBody());
      for (let j = 0; j < 3; j++) {
        await call('/api/integrations/channels', { token: other.token, body: { name: `Site ${j}`, domain: 'consultation' } });
      }
    }
    for (let i = 0; i < 20; i++) await execute(tenant.token, executeBody());
    const after = await queriesFor(tenant.token);
    const afterIdempotent = await queriesFor(tenant.token, executeBody({ idempotency_key: 'q-2' }));
    expect(after).toEqual(before);
    expect(afterIdempotent).toEqual(beforeIdempotent);
    // Key lookup, rate-limit upsert, one batch; idempotency adds its reservation.
    expect(before.trips).toBe(3);
    expect(beforeIdempotent.trips).toBe(4);
  });

  it('an admin execution adds one lookup for key_id', async () => {
    const tenant = await createTenant();
    await execute(tenant.token, executeBody());
    const response = await execute(ADMIN_TOKEN, executeBody({ key_id: tenant.keyId }));
    expect(response.headers.get('X-D1-Queries')).toBe('3');
  });
});
