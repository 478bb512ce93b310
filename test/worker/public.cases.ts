import { credit, recordContract } from './billing-helpers';
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { app } from '../../worker/index';
import { growEveryTable } from './grow';
import {
  ADMIN_TOKEN,
  call,
  countRows,
  createTenant,
  execute,
  executeBody,
  expectProblem,
  json,
  writeFootprint,
} from './helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';
import { moveOrganization, shardOf } from './move-helpers';

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
    const broken = {
      prepare: () => {
        throw new Error('D1 is down');
      },
      batch: () => Promise.reject(new Error('down')),
    };
    // The directory down, or one shard down: either makes the Worker unready.
    for (const binding of ['DIRECTORY', 'DB_1']) {
      const response = await app.request(
        'http://gateway.test/healthz?deep=1',
        {},
        { ...env, [binding]: broken as unknown as D1Database },
      );
      const problem = await expectProblem(response, 503, 'service_unavailable');
      expect(problem.checks).toEqual({ d1: 'fail' });
    }
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
    const broken = {
      prepare: () => {
        throw new Error(secret);
      },
      batch: () => Promise.reject(new Error(secret)),
    };
    const logged: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void logged.push(line));
    const response = await app.request(
      'http://gateway.test/api/admin/organizations',
      { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
      {
        ...env,
        DIRECTORY: broken as unknown as D1Database,
        DB_0: broken as unknown as D1Database,
        DB_1: broken as unknown as D1Database,
      },
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
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${tenant.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      },
      env,
    );
    await app.request(
      'http://gateway.test/api/execute',
      { method: 'POST', headers: { Authorization: 'Bearer egk_wrongwrongwrongwrongwrong1' } },
      env,
    );
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
    // The whole number: a random trace id may contain any four digits.
    expect(all).not.toContain('7700 900123');
    expect(all).not.toContain('my phone');
  });
});

describe('D1 round trips per execution (issue 13)', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Runs one request through the app and answers its status and the round trips its request log line counts. */
  async function logged(
    path: string,
    init: { token?: string; body: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; trips: number; statements: number; body: string }> {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...init.headers };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    const response = await app.request(
      `http://gateway.test${path}`,
      { method: 'POST', headers, body: JSON.stringify(init.body) },
      env,
    );
    const body = await response.text();
    spy.mockRestore();
    const line = lines.map((text) => JSON.parse(text)).find((entry) => entry.message === 'request');
    return { status: response.status, trips: line.d1_round_trips, statements: line.d1_statements, body };
  }
  const executeLogged = (token: string, body = executeBody()) => logged('/api/execute', { token, body });

  it('is 1 on either shard: each organisation’s execution is written on its own shard only', async () => {
    const [first, second] = [await createTenant(), await createTenant()];
    if ((await shardOf(first.organizationId)) === (await shardOf(second.organizationId)))
      await moveOrganization(second.organizationId);
    for (const tenant of [first, second]) {
      await executeLogged(tenant.token);
      const warm = await executeLogged(tenant.token);
      expect(warm).toMatchObject({ status: 200, trips: 1 });
      const executionId = JSON.parse(warm.body).output.execution_id;
      const shard = await shardOf(tenant.organizationId);
      const on = async (database: D1Database) =>
        Boolean(await database.prepare('SELECT 1 FROM executions WHERE id = ?').bind(executionId).first());
      expect([await on(env.DB_0), await on(env.DB_1), await on(env.DIRECTORY)]).toEqual([
        shard === 0,
        shard === 1,
        false,
      ]);
    }
  });

  it('is 1 under a contract in force too, in as many statements when the execution is charged', async () => {
    const tenant = await createTenant();
    await executeLogged(tenant.token);
    const without = await executeLogged(tenant.token);
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 1 },
      overage: { executions: { unit_price_minor: 1 } },
    });
    await credit(contract.escrow_id, 100);
    await executeLogged(tenant.token);
    const charged = await executeLogged(tenant.token);
    expect(without).toMatchObject({ status: 200, trips: 1 });
    // The contract's meter joins the key's in one upsert, and the database writes the overage's ledger entries.
    expect(charged).toMatchObject({ status: 200, trips: 1, statements: without.statements });
    expect(JSON.parse(charged.body).usage_applications[1]).toMatchObject({ source: 'contract', charged_minor: 1 });
  });

  it('is 1 on a warm key, with and without idempotency_key, and stays 1 after 10,000 more rows in every table', {
    timeout: 120_000,
  }, async () => {
    // Another tenant's execution warms what all keys share (the catalog, the domain's experts).
    await execute((await createTenant()).token, executeBody());
    const tenant = await createTenant();
    // The first request looks the key up and reads the workspace's contracts (3 trips); then the
    // key context, the contracts, the catalog, the workspace's risk policy and the domain's experts
    // come from the isolate's caches.
    const cold = await executeLogged(tenant.token);
    expect(cold).toMatchObject({ status: 200, trips: 3 });
    const warm = await executeLogged(tenant.token);
    const warmIdempotent = await executeLogged(tenant.token, executeBody({ idempotency_key: 'rt-1' }));
    expect(warm).toMatchObject({ status: 200, trips: 1 });
    expect(warmIdempotent).toMatchObject({ status: 200, trips: 1 });

    const grown = await growEveryTable(10_000);
    expect(grown).toEqual(
      expect.arrayContaining([
        'api_keys',
        'executions',
        'audit_log',
        'idempotency_records',
        'rate_limit_windows',
        'usage_meters',
        'events',
        'leads',
        'demands',
        'conversations',
      ]),
    );
    const executions = await platformDb.prepare('SELECT count(*) AS n FROM executions').first<{ n: number }>();
    expect(executions!.n).toBeGreaterThan(10_000);

    // Warm again (the brief caches of reads that guard nothing may have expired meanwhile).
    await executeLogged(tenant.token);
    const after = await executeLogged(tenant.token);
    const afterIdempotent = await executeLogged(tenant.token, executeBody({ idempotency_key: 'rt-2' }));
    expect(after).toMatchObject({ status: 200, trips: 1, statements: warm.statements });
    expect(afterIdempotent).toMatchObject({ status: 200, trips: 1, statements: warmIdempotent.statements });
    // A replay is not an execution: it reads the stored response (and counts against the rate limit).
    const replay = await executeLogged(tenant.token, executeBody({ idempotency_key: 'rt-2' }));
    expect(replay.status).toBe(200);
    expect(replay.body).toBe(afterIdempotent.body);
  });

  it('a refusal by the batch costs one more read, not a key lookup: 2 for a 429', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 1 });
    expect((await executeLogged(tenant.token)).status).toBe(200);
    const refused = await executeLogged(tenant.token);
    expect(refused).toMatchObject({ status: 429, trips: 2 });
    expect(JSON.parse(refused.body).code).toBe('rate_limited');
  });

  it('an admin execution looks the key up by key_id: 2', async () => {
    const tenant = await createTenant();
    await execute(tenant.token, executeBody());
    expect(
      await logged('/api/execute', { token: ADMIN_TOKEN, body: executeBody({ key_id: tenant.keyId }) }),
    ).toMatchObject({ status: 200, trips: 2 });
  });

  it('a widget message is 1, and 2 when it continues a conversation', async () => {
    const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
    const created = await call('/api/integrations/channels', {
      token: tenant.token,
      body: { name: 'Trips', domain: 'consultation', allowed_origins: ['https://trips.example.com'] },
    });
    const { channel_key: channelKey } = await json(created);
    const send = (body: Record<string, unknown>) =>
      logged(`/api/public/widget/${channelKey}/intake`, {
        body,
        headers: { Origin: 'https://trips.example.com', 'CF-Connecting-IP': '203.0.113.9' },
      });
    const first = await send({ message: { text: 'Hello there' } });
    expect(first.status, first.body).toBe(200);
    const { session_id: session } = JSON.parse(first.body);
    // Each shape is sent twice and the fewer trips taken: a cached read that other tests of this
    // runtime loaded earlier may reach its TTL between two sends, and then that one send reads it again.
    const warmest = async (body: () => Record<string, unknown>) => {
      const [one, two] = [await send(body()), await send(body())];
      expect([one.status, two.status]).toEqual([200, 200]);
      return Math.min(one.trips, two.trips);
    };
    expect(await warmest(() => ({ message: { text: 'A new visitor' } }))).toBe(1);
    expect(await warmest(() => ({ session_id: session, message: { text: 'And a follow-up' } }))).toBe(2);
  });
});

describe('the bench routes', () => {
  it('are not part of the deployed Worker: 404 however it is configured', async () => {
    for (const path of ['/__bench/d1-batch', '/__bench/lead-fixture', '/__bench/lead-sweep']) {
      const request = new Request(`http://gateway.test${path}`, { method: 'POST', body: '{}' });
      expect((await app.request(request, undefined, env)).status).toBe(404);
    }
  });
});

describe('a warm cache never outlives a refusal (issue 13)', () => {
  /** Changes D1 behind the isolate's back, as another isolate or region would: the cache is not told. */
  const sql = (query: string, ...values: unknown[]) =>
    platformDb
      .prepare(query)
      .bind(...values)
      .run();

  it('a revoked key is refused on the very next request, whatever it sends', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 2; i++) expect((await execute(tenant.token, executeBody())).status).toBe(200);
    await sql('UPDATE api_keys SET revoked_at = ? WHERE id = ?', clock.now(), tenant.keyId);
    await expectProblem(await execute(tenant.token, executeBody()), 401, 'key_revoked');
    await sql('UPDATE api_keys SET revoked_at = NULL WHERE id = ?', tenant.keyId);
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
    await sql('UPDATE api_keys SET revoked_at = ? WHERE id = ?', clock.now(), tenant.keyId);
    // Refusals answered before the batch are re-checked fresh, so the order of checks holds: the bearer first.
    await expectProblem(await execute(tenant.token, { domain: 42 }), 401, 'key_revoked');
    await expectProblem(
      await execute(tenant.token, executeBody({ required_scopes: ['channels:write'] })),
      401,
      'key_revoked',
    );
    expect(await writeFootprint(tenant.workspaceId, tenant.keyId)).toMatchObject({ executions: 3 });
  });

  it(
    'the guard is answered before the rate limit: a revoked key, or a suspended workspace, over its ' + 'limit',
    async () => {
      const tenant = await createTenant({ rate_limit_per_minute: 2 });
      for (let i = 0; i < 2; i++) expect((await execute(tenant.token, executeBody())).status).toBe(200);
      await expectProblem(await execute(tenant.token, executeBody()), 429, 'rate_limited');
      await sql(`UPDATE workspaces SET status = 'suspended' WHERE id = ?`, tenant.workspaceId);
      await expectProblem(await execute(tenant.token, executeBody()), 403, 'workspace_inactive');
      await sql('UPDATE api_keys SET revoked_at = ? WHERE id = ?', clock.now(), tenant.keyId);
      await expectProblem(await execute(tenant.token, executeBody()), 401, 'key_revoked');
      expect(await countRows('executions', tenant.workspaceId)).toBe(2);
    },
  );

  it('a suspended workspace, or organisation, is refused on the very next request', async () => {
    for (const [table, column] of [
      ['workspaces', 'workspaceId'],
      ['organizations', 'organizationId'],
    ] as const) {
      const tenant = await createTenant();
      for (let i = 0; i < 2; i++) expect((await execute(tenant.token, executeBody())).status).toBe(200);
      await sql(`UPDATE ${table} SET status = 'suspended' WHERE id = ?`, tenant[column]);
      await expectProblem(await execute(tenant.token, executeBody()), 403, 'workspace_inactive');
      await expectProblem(
        await execute(tenant.token, executeBody({ idempotency_key: 'after-suspension' })),
        403,
        'workspace_inactive',
      );
      await expectProblem(
        await execute(tenant.token, executeBody({ required_scopes: ['channels:write'] })),
        403,
        'workspace_inactive',
      );
      // The body's own errors come before the workspace check, and still do.
      await expectProblem(await execute(tenant.token, { domain: 42 }), 422, 'validation_failed');
      expect(await countRows('executions', tenant.workspaceId)).toBe(2);
      await sql(`UPDATE ${table} SET status = 'active' WHERE id = ?`, tenant[column]);
      expect((await execute(tenant.token, executeBody())).status).toBe(200);
    }
  });

  it('a channel disabled, or an origin taken off its list, refuses the very next widget message', async () => {
    const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
    const created = await call('/api/integrations/channels', {
      token: tenant.token,
      body: {
        name: 'Guarded',
        domain: 'consultation',
        allowed_origins: ['https://guarded.example.com', 'https://other.example.com'],
      },
    });
    const { channel_key: channelKey } = await json(created);
    const send = (origin: string) =>
      call(`/api/public/widget/${channelKey}/intake`, {
        body: { message: { text: 'Hello' } },
        headers: { Origin: origin, 'CF-Connecting-IP': '203.0.113.10' },
      });
    expect((await send('https://guarded.example.com')).status).toBe(200);
    expect((await send('https://guarded.example.com')).status).toBe(200);
    await sql(
      `UPDATE channels SET allowed_origins = '["https://other.example.com"]' WHERE channel_key = ?`,
      channelKey,
    );
    await expectProblem(await send('https://guarded.example.com'), 403, 'origin_not_allowed');
    expect((await send('https://other.example.com')).status).toBe(200);
    await sql(`UPDATE channels SET status = 'disabled' WHERE channel_key = ?`, channelKey);
    await expectProblem(await send('https://other.example.com'), 404, 'not_found');
    expect(await countRows('executions', tenant.workspaceId)).toBe(3);
  });
});
