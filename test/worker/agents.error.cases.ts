import { beforeAll, describe, expect, it } from 'vitest';
import {
  agentCard,
  attemptsOf,
  connectionsTo,
  createActiveAgent,
  createActiveRobot,
  jsonResponse,
  messageResult,
  newDomain,
  remotes,
  rpcAgent,
  slowly,
  taskResult,
  type RpcRequest,
} from './agent-helpers';
import { recordContract } from './billing-helpers';
import { createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';
import { createActiveExpert, sessionCall, signUpProvider } from './provider-helpers';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

const ALL = ['execute', 'leads:write', 'agents:invoke', 'memory:read', 'memory:write'];

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant({ scopes: ALL });
});

const run = async (domain: string, overrides: Record<string, unknown> = {}, token = tenant.token) =>
  execute(token, executeBody({ domain, text: 'How do I reset my password?', ...overrides }));

describe('failover', () => {
  const failures: Array<{
    name: string;
    outcome: string;
    status: number | null;
    handler: () => (request: Request) => Response | Promise<Response>;
  }> = [
    { name: 'a timeout', outcome: 'timeout', status: null, handler: () => slowly(5_000, () => jsonResponse({})) },
    {
      name: 'an HTTP 500',
      outcome: 'http_error',
      status: 500,
      handler: () => () => new Response('upstream exploded', { status: 500 }),
    },
    {
      name: 'invalid JSON',
      outcome: 'invalid_answer',
      status: 200,
      handler: () => () =>
        new Response('{"jsonrpc": "2.0", "result": ', { status: 200, headers: { 'Content-Type': 'application/json' } }),
    },
    {
      name: 'a JSON-RPC error',
      outcome: 'rpc_error',
      status: 200,
      handler: () => async (request) =>
        jsonResponse({
          jsonrpc: '2.0',
          id: ((await request.json()) as RpcRequest).id,
          error: { code: -32603, message: 'Internal error' },
        }),
    },
    {
      name: 'a task left working',
      outcome: 'not_completed',
      status: 200,
      handler: () => rpcAgent(() => taskResult('TASK_STATE_WORKING')),
    },
    {
      name: 'a task that needs input',
      outcome: 'not_completed',
      status: 200,
      handler: () => rpcAgent(() => taskResult('TASK_STATE_INPUT_REQUIRED')),
    },
    {
      name: 'an answer nested 5,000 levels deep',
      outcome: 'invalid_answer',
      status: 200,
      handler: () => {
        let deep: Record<string, unknown> = {};
        for (let level = 0; level < 5_000; level++) deep = { a: deep };
        return rpcAgent(() => messageResult('Deep.', { deep }));
      },
    },
    {
      name: 'a redirect',
      outcome: 'refused',
      status: null,
      handler: () => () => new Response(null, { status: 302, headers: { Location: 'https://elsewhere.example.com/' } }),
    },
  ];

  for (const failure of failures) {
    it(`${failure.name} fails over to the next agent, and the attempt says why`, async () => {
      const domain = await newDomain();
      const first = await createActiveAgent('https://agent-first.example.com', {
        domain,
        priority: 10,
        timeoutMs: 1000,
      });
      const second = await createActiveAgent('https://agent-second.example.com', { domain, priority: 5 });
      remotes.set('https://agent-first.example.com/a2a', failure.handler());
      remotes.set(
        'https://agent-second.example.com/a2a',
        rpcAgent(() => messageResult('The second agent answers.')),
      );

      const envelope = await json(await run(domain));
      expect(envelope.output.result.handled_by.provider_id).toBe(second.providerId);
      expect(envelope.output.result.reply).toBe('The second agent answers.');
      const attempts = await attemptsOf(envelope.output.execution_id);
      expect(attempts.map((attempt) => [attempt.provider_id, attempt.outcome])).toEqual([
        [first.providerId, failure.outcome],
        [second.providerId, 'success'],
      ]);
      if (failure.status !== null) expect(attempts[0]!.http_status).toBe(failure.status);
      // No secret and no body of the agent's answer leak into what is recorded.
      expect(attempts[0]!.error ?? '').not.toContain('whsec_');
      expect(attempts[0]!.error ?? '').not.toContain('upstream exploded');
    });
  }

  it('tries agents by priority, then by the fewest failures in the last hour, then by id', async () => {
    const domain = await newDomain();
    const low = await createActiveAgent('https://agent-low.example.com', { domain, priority: 1 });
    const flaky = await createActiveAgent('https://agent-flaky.example.com', { domain, priority: 7 });
    const steady = await createActiveAgent('https://agent-steady.example.com', { domain, priority: 7 });
    for (const origin of [
      'https://agent-low.example.com',
      'https://agent-flaky.example.com',
      'https://agent-steady.example.com',
    ]) {
      remotes.set(`${origin}/a2a`, () => new Response('down', { status: 503 }));
    }
    // flaky failed once in the last hour; steady never did.
    await platformDb
      .prepare(
        'INSERT INTO agent_attempts (id, execution_id, provider_id, workspace_id, outcome, http_status, duration_ms, ' +
          "error, created_at) VALUES ('att_seed_flaky', 'exe_seed', ?, ?, 'http_error', 500, 5, NULL, ?)",
      )
      .bind(flaky.providerId, tenant.workspaceId, clock.now() - 10 * 60 * 1000)
      .run();
    const envelope = await json(await run(domain));
    expect((await attemptsOf(envelope.output.execution_id)).map((attempt) => attempt.provider_id)).toEqual([
      steady.providerId,
      flaky.providerId,
      low.providerId,
    ]);
  });

  it(
    'when every agent fails, the demand becomes a lead for experts; without leads:write the answer is 502 ' +
      'agent_unavailable',
    async () => {
      const domain = await newDomain();
      await createActiveExpert({ domains: [domain] });
      const agent = await createActiveAgent('https://agent-down.example.com', { domain });
      remotes.set('https://agent-down.example.com/a2a', () => new Response('nope', { status: 500 }));

      const withLeads = await json(await run(domain));
      expect(withLeads.output.result).toMatchObject({ disposition: 'routed', matched_providers: 1 });
      expect(withLeads.output.result.lead_id).toMatch(/^lead_/);
      expect(withLeads.output.result.handled_by).toBeUndefined();
      expect(await attemptsOf(withLeads.output.execution_id)).toMatchObject([
        { provider_id: agent.providerId, outcome: 'http_error' },
      ]);

      const narrow = await createTenant({ scopes: ['execute', 'agents:invoke'] });
      const response = await run(domain, { idempotency_key: 'agents-down-1' }, narrow.token);
      const problem = await expectProblem(response, 502, 'agent_unavailable');
      expect(problem.attempts).toEqual([{ provider_id: agent.providerId, outcome: 'http_error' }]);
      const execution = await platformDb
        .prepare('SELECT status FROM executions WHERE id = ?')
        .bind(problem.execution_id)
        .first();
      expect(execution).toEqual({ status: 'failed' });
      expect(await attemptsOf(problem.execution_id)).toHaveLength(1);
      // Nothing charged, no demand, and the idempotency key is free for a retry.
      expect(
        await platformDb.prepare('SELECT COUNT(*) AS n FROM usage_meters WHERE key_id = ?').bind(narrow.keyId).first(),
      ).toEqual({ n: 0 });
      expect(
        await platformDb
          .prepare('SELECT COUNT(*) AS n FROM demands WHERE workspace_id = ?')
          .bind(narrow.workspaceId)
          .first(),
      ).toEqual({ n: 0 });
      remotes.set(
        'https://agent-down.example.com/a2a',
        rpcAgent(() => messageResult('Back up.')),
      );
      const retried = await run(domain, { idempotency_key: 'agents-down-1' }, narrow.token);
      expect(retried.status).toBe(200);
      expect((await json(retried)).output.result.reply).toBe('Back up.');
    },
  );

  it('without agents:invoke no agent is called: the lead path answers', async () => {
    const domain = await newDomain();
    await createActiveAgent('https://agent-unasked.example.com', { domain });
    remotes.set(
      'https://agent-unasked.example.com/a2a',
      rpcAgent(() => messageResult('Should not be asked.')),
    );
    const before = connectionsTo('https://agent-unasked.example.com/a2a').length;
    const byScope = await json(await run(domain, { required_scopes: ['execute', 'leads:write'] }));
    const noScope = await createTenant({ scopes: ['execute', 'leads:write'] });
    const byKey = await json(await run(domain, {}, noScope.token));
    for (const envelope of [byScope, byKey]) {
      expect(envelope.output.result.handled_by).toBeUndefined();
      expect(envelope.output.result.lead_id).toMatch(/^lead_/);
      expect(await attemptsOf(envelope.output.execution_id)).toEqual([]);
    }
    expect(connectionsTo('https://agent-unasked.example.com/a2a').length).toBe(before);
  });
});

describe('the circuit breaker', () => {
  it('opens after 5 failures in a row, skips the agent for a minute, and closes on the next answer', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-breaker.example.com';
    const agent = await createActiveAgent(origin, { domain });
    remotes.set(`${origin}/a2a`, () => new Response('down', { status: 503 }));
    for (let i = 0; i < 5; i++) await run(domain);
    expect(connectionsTo(`${origin}/a2a`)).toHaveLength(5);
    const health = await platformDb
      .prepare('SELECT consecutive_failures, open_until FROM provider_health WHERE provider_id = ?')
      .bind(agent.providerId)
      .first<{ consecutive_failures: number; open_until: number }>();
    expect(health!.consecutive_failures).toBe(5);
    expect(health!.open_until).toBeGreaterThan(clock.now() + 50_000);

    // Open: the next execution skips it without a connection, and says so.
    const skipped = await json(await run(domain));
    expect(connectionsTo(`${origin}/a2a`)).toHaveLength(5);
    expect(await attemptsOf(skipped.output.execution_id)).toMatchObject([
      { provider_id: agent.providerId, outcome: 'circuit_open' },
    ]);
    expect(skipped.output.result.lead_id).toMatch(/^lead_/);

    // A minute later, it is tried again; an answer closes it.
    moveClockForTests(60_001);
    remotes.set(
      `${origin}/a2a`,
      rpcAgent(() => messageResult('Recovered.')),
    );
    const recovered = await json(await run(domain));
    expect(recovered.output.result.reply).toBe('Recovered.');
    expect(
      await platformDb
        .prepare('SELECT consecutive_failures, open_until FROM provider_health WHERE provider_id = ?')
        .bind(agent.providerId)
        .first(),
    ).toEqual({ consecutive_failures: 0, open_until: 0 });
  });

  it('a decline (TASK_STATE_REJECTED) fails over but does not count against the breaker', async () => {
    const domain = await newDomain();
    const agent = await createActiveAgent('https://agent-declines.example.com', { domain });
    remotes.set(
      'https://agent-declines.example.com/a2a',
      rpcAgent(() => taskResult('TASK_STATE_REJECTED')),
    );
    for (let i = 0; i < 6; i++) {
      const envelope = await json(await run(domain));
      expect(await attemptsOf(envelope.output.execution_id)).toMatchObject([
        { provider_id: agent.providerId, outcome: 'declined' },
      ]);
    }
    expect(
      await platformDb
        .prepare('SELECT consecutive_failures FROM provider_health WHERE provider_id = ?')
        .bind(agent.providerId)
        .first(),
    ).toEqual({ consecutive_failures: 0 });
  });
});

describe('remote bodies are read as streams and cut at their limit (issue 17)', () => {
  const cardUrl = 'https://agent-huge.example.com/.well-known/agent-card.json';

  /** A body of `total` bytes without a declared length, made only as it is read. */
  function chunkedBody(total: number) {
    const seen = { pulled: 0, cancelled: false };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (seen.pulled >= total) return controller.close();
        seen.pulled += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    return { stream, seen };
  }

  it('a 16 MB card sent without a declared length is refused after 256 KB, and its connection is closed', async () => {
    const provider = await signUpProvider();
    const { stream, seen } = chunkedBody(16 * 1024 * 1024);
    remotes.set(cardUrl, () => new Response(stream, { headers: { 'Content-Type': 'application/json' } }));
    const problem = await expectProblem(
      await sessionCall(provider.cookie, '/api/provider/profile', { body: { kind: 'agent', agent_card_url: cardUrl } }),
      422,
      'validation_failed',
    );
    expect(problem.errors[0].detail).toMatch(/larger than 256 KB/);
    expect(seen.pulled).toBeLessThanOrEqual(256 * 1024 + 2 * 64 * 1024);
    expect(seen.cancelled).toBe(true);
  });

  it(
    'a robot answer of 16 MB without a declared length fails as invalid_answer after 1 MB, and is not read ' +
      'further',
    async () => {
      const domain = await newDomain();
      const endpoint = 'https://robot-huge.example.com/run';
      const robot = await createActiveRobot(endpoint, { domain });
      const { stream, seen } = chunkedBody(16 * 1024 * 1024);
      remotes.set(endpoint, () => new Response(stream, { headers: { 'Content-Type': 'application/json' } }));
      const envelope = await json(await run(domain));
      expect(await attemptsOf(envelope.output.execution_id)).toMatchObject([
        {
          provider_id: robot.providerId,
          outcome: 'invalid_answer',
          error: expect.stringMatching(/larger than 1024 KB/),
        },
      ]);
      expect(seen.pulled).toBeLessThanOrEqual(1024 * 1024 + 2 * 64 * 1024);
      expect(seen.cancelled).toBe(true);
    },
  );

  it('a card that sends its headers and then one byte a second gets a 422 reason, not a 500', async () => {
    const { fetchAgentCard } = await import('../../worker/platform/agents/card');
    let timer: ReturnType<typeof setInterval> | null = null;
    remotes.set(cardUrl, () => {
      const trickle = new ReadableStream<Uint8Array>({
        start(controller) {
          timer = setInterval(() => controller.enqueue(new Uint8Array([0x20])), 100);
        },
        cancel() {
          if (timer) clearInterval(timer);
        },
      });
      return new Response(trickle, { headers: { 'Content-Type': 'application/json' } });
    });
    const started = clock.now();
    const check = await fetchAgentCard(cardUrl, { allowLoopback: false }, clock.now(), { timeoutMs: 400 });
    if (timer) clearInterval(timer);
    expect(check).toEqual({ ok: false, detail: 'The card URL did not send the card within 0.4 s.' });
    expect(clock.now() - started).toBeLessThan(2_000);
  });

  it('card fetches are limited to 10 in 10 minutes per provider (429 with Retry-After)', async () => {
    const provider = await signUpProvider();
    remotes.set(cardUrl, () => jsonResponse(agentCard('https://agent-huge.example.com')));
    for (let attempt = 0; attempt < 10; attempt++) {
      expect(
        (
          await sessionCall(provider.cookie, '/api/provider/profile', {
            body: { kind: 'agent', agent_card_url: cardUrl },
          })
        ).status,
      ).toBe(200);
    }
    const limited = await sessionCall(provider.cookie, '/api/provider/profile', {
      body: { kind: 'agent', agent_card_url: cardUrl },
    });
    await expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(connectionsTo(cardUrl)).toHaveLength(10);
    // Other fields still save: only the fetch is limited.
    expect(
      (await sessionCall(provider.cookie, '/api/provider/profile', { body: { headline: 'Still editable' } })).status,
    ).toBe(200);
  });
});

describe('an execution refused after its agent call', () => {
  it('still records the call and its effect on the agent’s health', async () => {
    const owner = await createTenant({ scopes: ALL, rate_limit_per_minute: 100 });
    await recordContract(owner.workspaceId, { allowances: { executions: 1 } });
    const domain = await newDomain();
    const agent = await createActiveAgent('https://agent-meanwhile.example.com', { domain });
    // While the agent works, another request of the workspace uses the month's one execution.
    remotes.set(
      'https://agent-meanwhile.example.com/a2a',
      rpcAgent(() => messageResult('Answered, but too late.')),
    );
    const handler = remotes.get('https://agent-meanwhile.example.com/a2a')!;
    remotes.set('https://agent-meanwhile.example.com/a2a', async (request) => {
      expect((await execute(owner.token, executeBody({ text: 'Meanwhile.' }))).status).toBe(200);
      return handler(request);
    });
    await expectProblem(await run(domain, {}, owner.token), 402, 'entitlement_exceeded');
    const attempts = await platformDb
      .prepare('SELECT outcome FROM agent_attempts WHERE provider_id = ?')
      .bind(agent.providerId)
      .all<{ outcome: string }>();
    expect(attempts.results).toEqual([{ outcome: 'success' }]);
    const executions = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM executions WHERE workspace_id = ?')
      .bind(owner.workspaceId)
      .first<{ n: number }>();
    expect(executions?.n).toBe(1);
  });
});
