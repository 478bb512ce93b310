import { Webhook } from 'standardwebhooks';
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
  partsOf,
  remotes,
  rpcAgent,
  taskResult,
  type RpcRequest,
} from './agent-helpers';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';
import { getPage, postForm, signUpPlatformAdmin } from './console-helpers';
import {
  completeProfile,
  createActiveExpert,
  createChannel,
  profileVersion,
  review,
  sessionCall,
  signUpProvider,
  visitorSays,
} from './provider-helpers';
import { platformDb } from './platform-db';

const ALL = ['execute', 'leads:write', 'agents:invoke', 'memory:read', 'memory:write'];

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant({ scopes: ALL });
});

/** Verifies a call's Standard Webhooks headers with the npm library, as a provider would. */
function verifies(secret: string, connection: { headers: Headers; body: string }): boolean {
  try {
    new Webhook(secret).verify(connection.body, Object.fromEntries(connection.headers));
    return true;
  } catch {
    return false;
  }
}

const run = async (domain: string, overrides: Record<string, unknown> = {}, token = tenant.token) =>
  execute(token, executeBody({ domain, text: 'How do I reset my password?', ...overrides }));

describe('an A2A agent answers', () => {
  it('sends one signed SendMessage with the text and the context, and returns its reply and output', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-one.example.com';
    const agent = await createActiveAgent(origin, { domain, name: 'Helpdesk agent' });
    remotes.set(
      `${origin}/a2a`,
      rpcAgent(() => messageResult('Use the “Forgot password” link.', { article: 'kb-12', confidence: 0.9 })),
    );

    const response = await run(domain, { request_id: 'caller-req-1', trace_id: 'trace-abc' });
    expect(response.status, await response.clone().text()).toBe(200);
    const envelope = await json(response);
    expect(envelope.output.result).toMatchObject({
      disposition: 'routed',
      handled_by: { kind: 'agent', provider_id: agent.providerId, name: 'Helpdesk agent' },
      output: { article: 'kb-12', confidence: 0.9 },
      reply: 'Use the “Forgot password” link.',
    });
    expect(envelope.output.result.lead_id).toBeUndefined();
    expect(envelope.exact_bridge.source_record).toBe(envelope.output.result.demand_id);

    const [sent] = connectionsTo(`${origin}/a2a`);
    expect(sent!.method).toBe('POST');
    expect(verifies(agent.secret, sent!)).toBe(true);
    expect(verifies(agent.secret, { ...sent!, body: sent!.body.replace('password', 'passw0rd') })).toBe(false);
    const rpc = JSON.parse(sent!.body) as RpcRequest;
    expect(rpc.method).toBe('SendMessage');
    const { text, data } = partsOf(rpc);
    expect(text).toBe('How do I reset my password?');
    expect(data).toMatchObject({
      execution_id: envelope.output.execution_id,
      domain,
      request_id: 'caller-req-1',
      trace_id: 'trace-abc',
      workspace_id: tenant.workspaceId,
    });
    expect(data.memory).toBeUndefined();
    expect(await attemptsOf(envelope.output.execution_id)).toEqual([
      { provider_id: agent.providerId, outcome: 'success', http_status: 200, error: null },
    ]);
  });

  it('accepts a completed task: artifact text becomes the reply', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-task.example.com';
    const agent = await createActiveAgent(origin, { domain });
    remotes.set(
      `${origin}/a2a`,
      rpcAgent(() => taskResult('TASK_STATE_COMPLETED', 'Done: your invoice is attached.')),
    );
    const envelope = await json(await run(domain));
    expect(envelope.output.result.handled_by.provider_id).toBe(agent.providerId);
    expect(envelope.output.result.reply).toBe('Done: your invoice is attached.');
  });

  it('speaks message/send to an agent whose card is A2A 0.3', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-legacy.example.com';
    const legacyCard = {
      protocolVersion: '0.3.0',
      name: 'Legacy agent',
      description: 'An A2A 0.3 agent.',
      url: `${origin}/rpc`,
      preferredTransport: 'JSONRPC',
      version: '0.9.0',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'answers', name: 'Answers', description: 'Answers', tags: [] }],
    };
    const agent = await createActiveAgent(origin, { domain, card: legacyCard });
    const profile = await json(await sessionCall(agent.cookie, '/api/provider/profile'));
    expect(profile.agent_card).toMatchObject({
      name: 'Legacy agent',
      protocol_version: '0.3.0',
      endpoint: `${origin}/rpc`,
    });
    remotes.set(`${origin}/rpc`, async (request) => {
      const rpc = (await request.json()) as { id: number; method: string };
      return jsonResponse({
        jsonrpc: '2.0',
        id: rpc.id,
        result: {
          kind: 'message',
          messageId: 'm1',
          role: 'agent',
          parts: [{ kind: 'text', text: 'Answered over 0.3.' }],
        },
      });
    });
    const envelope = await json(await run(domain));
    expect(envelope.output.result.reply).toBe('Answered over 0.3.');
    expect(JSON.parse(connectionsTo(`${origin}/rpc`)[0]!.body).method).toBe('message/send');
  });
});

describe('a robot answers', () => {
  it('gets the signed JSON request and its usage is appended to usage_applications', async () => {
    const domain = await newDomain();
    const endpoint = 'https://robot-one.example.com/execute';
    const robot = await createActiveRobot(endpoint, { domain, name: 'Quote robot' });
    remotes.set(endpoint, () =>
      jsonResponse({
        output: { quote: 120.5, currency: 'EUR' },
        reply: 'Your quote is €120.50.',
        usage: [{ meter: 'tokens', quantity: 812, unit: 'token' }],
      }),
    );

    const envelope = await json(await run(domain, { structured_input: { items: 3 }, session_id: 'robot-session' }));
    expect(envelope.output.result).toMatchObject({
      handled_by: { kind: 'robot', provider_id: robot.providerId },
      output: { quote: 120.5, currency: 'EUR' },
      reply: 'Your quote is €120.50.',
    });
    expect(envelope.usage_applications).toEqual([
      { meter: 'executions', quantity: 1, unit: 'execution', source: 'platform' },
      { meter: 'tokens', quantity: 812, unit: 'token', source: 'provider', provider_id: robot.providerId },
    ]);
    const [sent] = connectionsTo(endpoint);
    expect(verifies(robot.secret, sent!)).toBe(true);
    const body = JSON.parse(sent!.body);
    expect(body).toEqual({
      execution_id: envelope.output.execution_id,
      domain,
      text: 'How do I reset my password?',
      structured_input: { items: 3 },
      request_id: envelope.output.request_id,
      trace_id: envelope.output.trace_id,
      workspace_id: tenant.workspaceId,
    });
  });

  it(
    'a robot cannot forge the platform’s charge: a usage line under a platform meter makes the answer invalid, and ' +
      'the caller is charged once',
    async () => {
      const domain = await newDomain();
      const endpoint = 'https://robot-forger.example.com/execute';
      const robot = await createActiveRobot(endpoint, { domain });
      remotes.set(endpoint, () =>
        jsonResponse({
          output: {},
          reply: 'Done.',
          usage: [{ meter: 'executions', quantity: 999999, unit: 'execution' }],
        }),
      );
      const envelope = await json(await run(domain));
      expect(envelope.usage_applications).toEqual([
        { meter: 'executions', quantity: 1, unit: 'execution', source: 'platform' },
      ]);
      const [attempt] = await attemptsOf(envelope.output.execution_id);
      expect(attempt).toMatchObject({ provider_id: robot.providerId, outcome: 'invalid_answer' });
      expect(attempt!.error).toMatch(/usage\.0\.meter: is a meter of the platform/);
    },
  );

  it('an answer that is not {output, reply?, usage?} is invalid', async () => {
    const domain = await newDomain();
    const endpoint = 'https://robot-bad.example.com/execute';
    const robot = await createActiveRobot(endpoint, { domain });
    remotes.set(endpoint, () => jsonResponse({ reply: 'no output here' }));
    const envelope = await json(await run(domain));
    expect(envelope.output.result.lead_id).toBeDefined();
    const [attempt] = await attemptsOf(envelope.output.execution_id);
    expect(attempt).toMatchObject({ provider_id: robot.providerId, outcome: 'invalid_answer', http_status: 200 });
    expect(attempt!.error).toContain('output');
  });
});

describe('round trips on the agent path (issue 13)', () => {
  it('commits admission before the call, then the execution: 3 at most, memory and idempotency included', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-trips.example.com';
    await createActiveAgent(origin, { domain });
    remotes.set(
      `${origin}/a2a`,
      rpcAgent(() => messageResult('Answered.')),
    );
    let calls = 0;
    // The warm path's count: the fewest of three runs, since another test file in this isolate may
    // clear a shared cache (a provider's change forgets the agent supply) in the middle of one.
    const trips = async (overrides: (attempt: number) => Record<string, unknown>) => {
      const counts: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await run(domain, overrides(attempt));
        calls++;
        expect(response.status, await response.clone().text()).toBe(200);
        counts.push(Number(response.headers.get('X-D1-Queries')));
      }
      return Math.min(...counts);
    };
    await trips(() => ({}));
    // The preflight (guard, rate limit, reservation, candidates) and the final batch.
    expect(await trips(() => ({}))).toBe(2);
    expect(await trips((attempt) => ({ idempotency_key: `agent-trips-1-${attempt}` }))).toBe(2);
    // A conversation adds its read; its memory comes with the candidates.
    await trips(() => ({ session_id: 'trips-1' }));
    expect(await trips((attempt) => ({ session_id: 'trips-1', idempotency_key: `agent-trips-2-${attempt}` }))).toBe(3);
    expect(connectionsTo(`${origin}/a2a`)).toHaveLength(calls);
  });
});

describe('memory', () => {
  /** An agent that echoes what memory it was given. */
  async function memoryAgent(domain: string, origin: string) {
    const agent = await createActiveAgent(origin, { domain });
    remotes.set(
      `${origin}/a2a`,
      rpcAgent((rpc) => messageResult(`turns:${(partsOf(rpc).data.memory ?? []).length}`)),
    );
    const memoryOf = (index: number) =>
      partsOf(JSON.parse(connectionsTo(`${origin}/a2a`)[index]!.body)).data.memory as
        | Array<{ role: string; text: string }>
        | undefined;
    return { agent, memoryOf };
  }

  it(
    'memory:write keeps the turns of a session; memory:read hands them to the agent; each needs its own ' + 'scope',
    async () => {
      const domain = await newDomain();
      const { memoryOf } = await memoryAgent(domain, 'https://agent-memory.example.com');
      const both = await createTenant({ scopes: ['execute', 'agents:invoke', 'memory:read', 'memory:write'] });
      await run(domain, { session_id: 's-1', text: 'My order is 4411.' }, both.token);
      const second = await json(await run(domain, { session_id: 's-1', text: 'Where is it?' }, both.token));
      expect(second.output.result.reply).toBe('turns:2');
      expect(memoryOf(1)).toMatchObject([
        { role: 'visitor', text: 'My order is 4411.' },
        { role: 'agent', text: 'turns:0' },
      ]);

      // Without memory:read, nothing is handed over (the turns are still kept).
      await run(
        domain,
        { session_id: 's-1', text: 'Third.', required_scopes: ['execute', 'agents:invoke', 'memory:write'] },
        both.token,
      );
      expect(memoryOf(2)).toBeUndefined();
      // Without memory:write, the turn is not kept: the next read does not see it.
      await run(
        domain,
        { session_id: 's-1', text: 'Not remembered.', required_scopes: ['execute', 'agents:invoke', 'memory:read'] },
        both.token,
      );
      await run(domain, { session_id: 's-1', text: 'What do you remember?' }, both.token);
      expect(memoryOf(4)!.map((turn) => turn.text)).not.toContain('Not remembered.');
      expect(memoryOf(4)!.map((turn) => turn.text)).toContain('Third.');
    },
  );

  it('memory belongs to one workspace: another workspace’s session id finds nothing', async () => {
    const domain = await newDomain();
    const { memoryOf } = await memoryAgent(domain, 'https://agent-tenant.example.com');
    const [a, b] = [await createTenant({ scopes: ALL }), await createTenant({ scopes: ALL })];
    await run(domain, { session_id: 'shared-id', text: 'Secret of workspace A.' }, a.token);
    const fromB = await json(await run(domain, { session_id: 'shared-id', text: 'What did A say?' }, b.token));
    expect(fromB.output.result.reply).toBe('turns:0');
    expect(memoryOf(1) ?? []).toEqual([]);
  });

  it('is bounded: the last 20 turns, at most 16 KB', async () => {
    const domain = await newDomain();
    const { memoryOf } = await memoryAgent(domain, 'https://agent-bounded.example.com');
    const writer = await createTenant({ scopes: ALL });
    for (let i = 0; i < 12; i++) await run(domain, { session_id: 'long', text: `Turn ${i}` }, writer.token);
    const count = connectionsTo('https://agent-bounded.example.com/a2a').length;
    expect(memoryOf(count - 1)).toHaveLength(20);
    // The call of turn 11 gets the 20 newest earlier messages: turns 1 to 10 and their answers.
    expect(memoryOf(count - 1)![0]!.text).toBe('Turn 1');
    expect(memoryOf(count - 1)!.at(-2)!.text).toBe('Turn 10');
    // Three 7 KB turns: only the newest that fit in 16 KB are handed over.
    const big = (i: number) => `Paragraph ${i} about the order and its delivery. `.repeat(150).slice(0, 7000);
    for (let i = 0; i < 3; i++) await run(domain, { session_id: 'big', text: big(i) }, writer.token);
    await run(domain, { session_id: 'big', text: 'And now?' }, writer.token);
    const memory = memoryOf(connectionsTo('https://agent-bounded.example.com/a2a').length - 1)!;
    expect(new TextEncoder().encode(memory.map((turn) => turn.text).join('')).length).toBeLessThanOrEqual(16 * 1024);
    expect(memory.at(-2)!.text).toBe(big(2));
    expect(memory.some((turn) => turn.text === big(0))).toBe(false);
  });
});

describe('connecting an agent', () => {
  const cardUrl = 'https://agent-card.example.com/.well-known/agent-card.json';
  const save = (cookie: string) =>
    sessionCall(cookie, '/api/provider/profile', { body: { kind: 'agent', agent_card_url: cardUrl } });

  it(
    'fetches and validates the card when the profile is saved, and shows its name, skills and protocol ' + 'version',
    async () => {
      const provider = await signUpProvider();
      remotes.set(cardUrl, () => jsonResponse(agentCard('https://agent-card.example.com', { name: 'Billing agent' })));
      const profile = await json(await save(provider.cookie));
      expect(profile.agent_card).toMatchObject({
        name: 'Billing agent',
        protocol_version: '1.0',
        protocol_binding: 'JSONRPC',
        endpoint: 'https://agent-card.example.com/a2a',
        skills: [{ id: 'faq', name: 'FAQ', description: 'Answers frequent questions.' }],
      });
    },
  );

  const broken: Array<[string, () => Response, RegExp]> = [
    ['a 404', () => new Response('not here', { status: 404 }), /HTTP 404/],
    [
      'HTML instead of JSON',
      () => new Response('<html></html>', { status: 200, headers: { 'Content-Type': 'text/html' } }),
      /not answer with JSON/,
    ],
    [
      'a card without a name',
      () => jsonResponse({ ...agentCard('https://agent-card.example.com'), name: '' }),
      /no name/,
    ],
    [
      'a card without interfaces',
      () => jsonResponse({ ...agentCard('https://agent-card.example.com'), supportedInterfaces: [] }),
      /no interface/,
    ],
    [
      'a gRPC-only card',
      () =>
        jsonResponse(
          agentCard('https://agent-card.example.com', {
            supportedInterfaces: [
              { url: 'https://agent-card.example.com/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
            ],
          }),
        ),
      /GRPC/,
    ],
    ['a JSON array', () => jsonResponse([1, 2]), /not a JSON object/],
    [
      'a card too large',
      () => jsonResponse({ ...agentCard('https://agent-card.example.com'), description: 'x'.repeat(300_000) }),
      /larger than/,
    ],
    [
      'a timeout',
      () => {
        throw new DOMException('timed out', 'TimeoutError');
      },
      /did not send the card within 10 s/,
    ],
  ];
  for (const [name, answer, reason] of broken) {
    it(`refuses ${name}, naming the reason`, async () => {
      const provider = await signUpProvider();
      remotes.set(cardUrl, answer);
      const problem = await expectProblem(await save(provider.cookie), 422, 'validation_failed');
      expect(problem.errors).toHaveLength(1);
      expect(problem.errors[0].pointer).toBe('/agent_card_url');
      expect(problem.errors[0].detail).toMatch(reason);
      expect(
        await platformDb
          .prepare('SELECT agent_card_url, agent_card FROM providers WHERE id = ?')
          .bind(provider.providerId)
          .first(),
      ).toEqual({ agent_card_url: null, agent_card: null });
    });
  }
});

describe('operations', () => {
  it(
    'the health view shows calls, success rate, p50 and p95, the breaker and the last errors, to the provider and ' +
      'to admins',
    async () => {
      const domain = await newDomain();
      const origin = 'https://agent-health.example.com';
      const agent = await createActiveAgent(origin, { domain });
      let calls = 0;
      remotes.set(
        `${origin}/a2a`,
        rpcAgent(() => {
          calls++;
          if (calls % 4 === 0) throw new Error('unreachable');
          return messageResult(`Answer ${calls}`);
        }),
      );
      // 3 answers, then the 4th call fails (the handler throws: a broken connection).
      for (let i = 0; i < 4; i++) await run(domain);
      const mine = await json(await sessionCall(agent.cookie, '/api/provider/health'));
      expect(mine).toMatchObject({
        provider_id: agent.providerId,
        window_hours: 24,
        calls: 4,
        successes: 3,
        success_rate: 0.75,
        skipped: 0,
        circuit: { state: 'closed', consecutive_failures: 1 },
      });
      expect(mine.p50_ms).toBeGreaterThanOrEqual(0);
      expect(mine.p95_ms).toBeGreaterThanOrEqual(mine.p50_ms);
      expect(mine.last_errors).toHaveLength(1);
      expect(mine.last_errors[0]).toMatchObject({
        outcome: 'network_error',
        execution_id: expect.stringMatching(/^exe_/),
      });
      const admins = await json(await call(`/api/admin/providers/${agent.providerId}/health`, { token: ADMIN_TOKEN }));
      expect(admins).toEqual(mine);
      // …and on the admin console's review page.
      const platformAdmin = await signUpPlatformAdmin();
      const reviewPage = await (await getPage(`/admin/providers/${agent.providerId}`, platformAdmin.cookie)).text();
      expect(reviewPage).toContain('Last 24 hours');
      expect(reviewPage).toContain('75 %');
      expect(reviewPage).toContain('connection failed');
    },
  );

  it('an admin can suspend a failing agent: it is not called from the next execution on', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-suspended.example.com';
    const agent = await createActiveAgent(origin, { domain });
    remotes.set(`${origin}/a2a`, () => new Response('down', { status: 500 }));
    await run(domain);
    expect((await review(agent.providerId, 'suspend', 'Failing since this morning.')).status).toBe(200);
    const envelope = await json(await run(domain));
    expect(connectionsTo(`${origin}/a2a`)).toHaveLength(1);
    expect(await attemptsOf(envelope.output.execution_id)).toEqual([]);
    // Its health stays visible to the provider while suspended.
    expect((await sessionCall(agent.cookie, '/api/provider/health')).status).toBe(200);
  });
});

describe('chat with an agent in the widget', () => {
  it(
    'the agent answers the visitor with memory; a handoff makes a lead that carries the whole conversation, agent ' +
      'turns included',
    async () => {
      const domain = await newDomain();
      const origin = 'https://agent-widget.example.com';
      const owner = await createTenant({ scopes: ['execute', 'leads:write', 'channels:read', 'channels:write'] });
      const channel = await createChannel(owner.token, { domain });
      const expert = await createActiveExpert({ domains: [domain] });
      const agent = await createActiveAgent(origin, { domain, name: 'Northwind FAQ agent' });
      remotes.set(
        `${origin}/a2a`,
        rpcAgent((rpc) => {
          const { text, data } = partsOf(rpc);
          return messageResult(
            text?.includes('hours')
              ? 'We are open 9–17, Monday to Friday.'
              : `You asked before: ${(data.memory ?? [])[0]?.text ?? 'nothing'}`,
          );
        }),
      );

      const first = await visitorSays(channel, { message: { text: 'What are your opening hours?' } });
      expect(first).toMatchObject({
        reply: 'We are open 9–17, Monday to Friday.',
        answered_by: { kind: 'agent', name: 'Northwind FAQ agent' },
        next: 'continue',
      });
      expect(first.lead_id).toBeUndefined();
      const second = await visitorSays(channel, {
        session_id: first.session_id,
        message: { text: 'And on Saturday?' },
      });
      expect(second.reply).toBe('You asked before: What are your opening hours?');
      expect(second.reference).toBe(first.reference);

      // The visitor asks for a person: no agent is called, the lead is made, and it shows every turn.
      const callsBefore = connectionsTo(`${origin}/a2a`).length;
      const handoff = await visitorSays(channel, {
        session_id: first.session_id,
        trigger: 'handoff',
        message: { text: 'I would like to talk to a person.' },
      });
      expect(handoff.answered_by).toBeUndefined();
      expect(handoff.lead_id).toMatch(/^lead_/);
      expect(connectionsTo(`${origin}/a2a`).length).toBe(callsBefore);
      // Until a person claims the lead, the agent still answers what it can (docs/design/live.md).
      const after = await visitorSays(channel, { session_id: first.session_id, message: { text: 'Are you there?' } });
      expect(after.answered_by).toEqual({ kind: 'agent', name: 'Northwind FAQ agent' });
      expect(connectionsTo(`${origin}/a2a`).length).toBe(callsBefore + 1);

      const lead = await json(await sessionCall(expert.cookie, `/api/provider/workbench/leads/${handoff.lead_id}`));
      expect(lead.messages.map((message: { role: string; text: string }) => [message.role, message.text])).toEqual([
        ['visitor', 'What are your opening hours?'],
        ['agent', 'We are open 9–17, Monday to Friday.'],
        ['visitor', 'And on Saturday?'],
        ['agent', 'You asked before: What are your opening hours?'],
        ['visitor', 'I would like to talk to a person.'],
        ['system', handoff.reply],
        ['visitor', 'Are you there?'],
        ['agent', after.reply],
      ]);
      const authors = await platformDb
        .prepare(
          "SELECT DISTINCT author_id FROM messages WHERE role = 'agent' AND " +
            'conversation_id = (SELECT conversation_id ' +
            'FROM leads WHERE id = ?)',
        )
        .bind(handoff.lead_id)
        .all();
      expect(authors.results).toEqual([{ author_id: agent.providerId }]);
    },
  );

  it('an agent answer without text is not enough for a visitor: the next agent or the lead path answers', async () => {
    const domain = await newDomain();
    const owner = await createTenant({ scopes: ['execute', 'leads:write', 'channels:read', 'channels:write'] });
    const channel = await createChannel(owner.token, { domain });
    const agent = await createActiveAgent('https://agent-dataonly.example.com', { domain });
    remotes.set(
      'https://agent-dataonly.example.com/a2a',
      rpcAgent(() => messageResult(null, { only: 'data' })),
    );
    const answer = await visitorSays(channel, { message: { text: 'Hello?' } });
    expect(answer.answered_by).toBeUndefined();
    expect(answer.lead_id).toMatch(/^lead_/);
    const attempt = await platformDb
      .prepare('SELECT outcome FROM agent_attempts WHERE provider_id = ?')
      .bind(agent.providerId)
      .first();
    expect(attempt).toEqual({ outcome: 'invalid_answer' });
  });
});

describe('the provider console for agents and robots', () => {
  it(
    'the profile step fetches the agent card and shows its name, skills and protocol; a broken card names the ' +
      'reason',
    async () => {
      const provider = await signUpProvider();
      expect((await postForm('/provider/onboarding/kind', { kind: 'agent' }, { cookie: provider.cookie })).status).toBe(
        303,
      );
      const cardUrl = 'https://agent-console.example.com/.well-known/agent-card.json';
      remotes.set(cardUrl, () =>
        jsonResponse(agentCard('https://agent-console.example.com', { name: 'Console agent' })),
      );
      const fields = {
        display_name: 'Console agent',
        headline: 'Answers from the console',
        agent_card_url: cardUrl,
        priority: '3',
        timeout_seconds: '8',
        agent_bearer_token: 'console-token-123',
      };
      expect((await postForm('/provider/onboarding/profile', fields, { cookie: provider.cookie })).status).toBe(303);
      const page = await (await getPage('/provider/onboarding?step=profile', provider.cookie)).text();
      expect(page).toContain('Card found: Console agent');
      expect(page).toContain('A2A 1.0 over JSON-RPC');
      expect(page).toContain('Answers frequent questions.');
      expect(page).toContain('A token is stored, encrypted');
      expect(page).not.toContain('console-token-123');
      const row = await platformDb
        .prepare('SELECT timeout_ms, priority FROM providers WHERE id = ?')
        .bind(provider.providerId)
        .first();
      expect(row).toEqual({ timeout_ms: 8000, priority: 3 });

      remotes.set(cardUrl, () => new Response('gone', { status: 410 }));
      const refused = await postForm('/provider/onboarding/profile', fields, { cookie: provider.cookie });
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain('The card URL answered HTTP 410');
      const tooSlow = await postForm(
        '/provider/onboarding/profile',
        { ...fields, timeout_seconds: '40' },
        { cookie: provider.cookie },
      );
      expect(tooSlow.status).toBe(422);
      expect(await tooSlow.text()).toContain('At most 25 seconds');
    },
  );

  it('the robot profile step shows the exact request and answer formats', async () => {
    const provider = await signUpProvider();
    await postForm('/provider/onboarding/kind', { kind: 'robot' }, { cookie: provider.cookie });
    const page = await (await getPage('/provider/onboarding?step=profile', provider.cookie)).text();
    for (const fragment of [
      'webhook-signature',
      '&quot;execution_id&quot;',
      '&quot;structured_input&quot;',
      '&quot;output&quot;',
      '&quot;usage&quot;',
      '&quot;memory&quot;',
    ])
      expect(page).toContain(fragment);
  });

  it(
    'operations: the approval shows the secret once, the provider rotates it for one only they have seen, and the ' +
      'health is there',
    async () => {
      const domain = await newDomain();
      const provider = await signUpProvider();
      const saved = await sessionCall(provider.cookie, '/api/provider/profile', {
        body: {
          ...completeProfile({ kind: 'robot', domains: [domain] }),
          endpoint_url: 'https://robot-ops.example.com/run',
          submit: true,
        },
      });
      expect(saved.status).toBe(200);
      const before = await (await getPage('/provider/operations', provider.cookie)).text();
      expect(before).toContain('It is issued when the platform team approves you.');

      // A platform admin approves in the console: the answer shows the secret, once.
      const platformAdmin = await signUpPlatformAdmin();
      const approval = await postForm(
        `/admin/providers/${provider.providerId}/approve`,
        { version: String(await profileVersion(provider.providerId)) },
        { cookie: platformAdmin.cookie },
      );
      expect(approval.status).toBe(200);
      expect(approval.headers.get('Cache-Control')).toBe('no-store');
      const secret = /whsec_[A-Za-z0-9+/=]+/.exec(await approval.text())![0];
      expect(
        await (await getPage(`/admin/providers/${provider.providerId}`, platformAdmin.cookie)).text(),
      ).not.toContain('whsec_');
      expect(await (await getPage('/provider/operations', provider.cookie)).text()).not.toContain('whsec_');

      const rotated = await (
        await postForm('/provider/operations/secret/rotate', {}, { cookie: provider.cookie })
      ).text();
      const fresh = /whsec_[A-Za-z0-9+/=]+/.exec(rotated)![0];
      expect(fresh).not.toBe(secret);
      expect(rotated).toContain('Your previous secret also signs until');

      remotes.set('https://robot-ops.example.com/run', () => new Response('no', { status: 503 }));
      await run(domain);
      const health = await (await getPage('/provider/operations', provider.cookie)).text();
      expect(health).toContain('HTTP error');
      expect(health).toContain('0 %');
    },
  );
});
