import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, countRows, createTenant, execute, executeBody, expectProblem, json, ORIGIN } from './helpers';
import { workerFetch } from './self';
import { platformDb } from './platform-db';

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
    await platformDb
      .prepare('UPDATE rate_limit_windows SET window_start = window_start - 60000 WHERE key_id = ?')
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
    const meter = await platformDb
      .prepare('SELECT used, quota FROM usage_meters WHERE key_id = ?')
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

/** A JSON-RPC request to /mcp or /a2a, as a client sends it. */
function rpc(path: '/mcp' | '/a2a', token: string, body: unknown, headers: Record<string, string> = {}) {
  return workerFetch(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const toolCall = (args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'execute', arguments: { domain: 'consultation', text: 'Need help with a CRM.', ...args } },
});
/** A 0.3 `message/send` (no A2A-Version header), in the 0.3 wire format. */
const legacySend = (data: Record<string, unknown>, contextId?: string) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      messageId: crypto.randomUUID(),
      role: 'user',
      ...(contextId ? { contextId } : {}),
      parts: [
        { kind: 'text', text: 'Need help with a CRM.' },
        { kind: 'data', data },
      ],
    },
  },
});

describe('MCP and A2A callers: the limits and admission of /api/execute', () => {
  it('one rate limit counts tool calls and messages alike, with its headers; a refusal is rate_limited', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 2 });
    const listed = await rpc('/mcp', tenant.token, { jsonrpc: '2.0', id: 0, method: 'tools/list' });
    // Only a call that ran an execution tells the window.
    expect(listed.headers.get('RateLimit-Remaining')).toBeNull();
    const firstResponse = await rpc('/mcp', tenant.token, toolCall({}));
    expect(firstResponse.headers.get('RateLimit-Limit')).toBe('2');
    expect(firstResponse.headers.get('RateLimit-Remaining')).toBe('1');
    expect(Number(firstResponse.headers.get('RateLimit-Reset'))).toBeGreaterThan(0);
    const first = await json(firstResponse);
    expect(first.result.isError).toBeFalsy();
    const a2aResponse = await rpc('/a2a', tenant.token, legacySend({ domain: 'consultation' }));
    expect(a2aResponse.headers.get('RateLimit-Remaining')).toBe('0');
    const a2a = await json(a2aResponse);
    expect(a2a.result.kind).toBe('task');
    const limitedToolResponse = await rpc('/mcp', tenant.token, toolCall({}));
    expect(Number(limitedToolResponse.headers.get('Retry-After'))).toBeGreaterThan(0);
    const limitedTool = await json(limitedToolResponse);
    expect(limitedTool.result).toMatchObject({ isError: true, structuredContent: { code: 'rate_limited' } });
    const limitedMessageResponse = await rpc('/a2a', tenant.token, legacySend({ domain: 'consultation' }));
    expect(Number(limitedMessageResponse.headers.get('Retry-After'))).toBeGreaterThan(0);
    const limitedMessage = await json(limitedMessageResponse);
    expect(limitedMessage.error).toMatchObject({ code: -32000, data: { code: 'rate_limited', status: 429 } });
    expect(await countRows('executions', tenant.workspaceId)).toBe(2);
  });

  it('an administrator names the key in key_id; without it, the refusal is key_id_required', async () => {
    const tenant = await createTenant();
    const refused = await json(await rpc('/mcp', ADMIN_TOKEN, toolCall({})));
    expect(refused.result.structuredContent).toMatchObject({ code: 'key_id_required' });
    const acting = await json(await rpc('/mcp', ADMIN_TOKEN, toolCall({ key_id: tenant.keyId })));
    expect(acting.result.structuredContent.exact_bridge.workspace_id).toBe(tenant.workspaceId);
  });

  it('a key without leads:write makes no lead, over MCP as over HTTP', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const answer = await json(await rpc('/mcp', tenant.token, toolCall({})));
    expect(answer.result.structuredContent.output.result.lead_id).toBeUndefined();
    expect(await countRows('leads', tenant.workspaceId)).toBe(0);
  });

  it('a wrong or missing argument is the platform’s own refusal, with a pointer to the field', async () => {
    const tenant = await createTenant();
    const wrongType = await json(await rpc('/mcp', tenant.token, toolCall({ text: 42, session_id: ['s'] })));
    expect(wrongType.result).toMatchObject({ isError: true, structuredContent: { code: 'validation_failed' } });
    const pointers = wrongType.result.structuredContent.errors.map((error: { pointer: string }) => error.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/text', '/session_id']));
    const wrongDomain = await json(
      await rpc('/mcp', tenant.token, { ...toolCall({}), params: { name: 'execute', arguments: { domain: 7 } } }),
    );
    expect(wrongDomain.result).toMatchObject({ isError: true });
    expect(wrongDomain.result.structuredContent.code).toBe('validation_failed');
    expect(wrongDomain.result.structuredContent.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: '/domain' })]),
    );
    expect(await countRows('executions', tenant.workspaceId)).toBe(0);
    // The advertised schema still says what each field is.
    const listed = await json(await rpc('/mcp', tenant.token, { jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    const execute = listed.result.tools.find((tool: { name: string }) => tool.name === 'execute');
    expect(execute.inputSchema).toMatchObject({
      properties: { domain: { type: 'string' }, text: { type: 'string' }, structured_input: { type: 'object' } },
    });
  });

  it('a 0.3 message/send answers in 0.3; its contextId is the conversation', async () => {
    const tenant = await createTenant();
    const first = await json(await rpc('/a2a', tenant.token, legacySend({ domain: 'consultation' })));
    expect(first.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const [text, data] = first.result.artifacts[0].parts;
    expect(text).toMatchObject({ kind: 'text' });
    expect(data.data.output.result.reply).toBe(text.text);
    const again = await json(
      await rpc('/a2a', tenant.token, legacySend({ domain: 'consultation' }, first.result.contextId)),
    );
    expect(again.result.artifacts[0].parts[1].data.output.result.demand_id).toBe(data.data.output.result.demand_id);
    const missing = await json(await rpc('/a2a', tenant.token, legacySend({ domain: 'no-such-domain' })));
    expect(missing.error).toMatchObject({ code: -32602, data: { code: 'unknown_domain' } });
    const unsupported = await json(await rpc('/a2a', tenant.token, legacySend({}), { 'A2A-Version': '9.9' }));
    expect(unsupported.error.code).toBe(-32009);
  });

  it('a JSON-RPC batch is refused whole: nothing in it runs', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 10_000 });
    const batch = Array.from({ length: 10 }, (_, index) => ({ ...toolCall({}), id: index + 1 }));
    const response = await rpc('/mcp', tenant.token, batch);
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: -32600 });
    expect(await countRows('executions', tenant.workspaceId)).toBe(0);
  });

  it('GET and DELETE on /mcp and /a2a are 405, not a stream or a session', async () => {
    for (const path of ['/mcp', '/a2a'])
      for (const method of ['GET', 'DELETE']) {
        const response = await workerFetch(`${ORIGIN}${path}`, { method });
        await expectProblem(response, 405, 'method_not_allowed');
        expect(response.headers.get('Allow')).toBe('POST');
      }
  });

  it('200 malformed JSON-RPC bodies get a 4xx or a JSON-RPC error, never a 5xx', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 10_000 });
    const values: unknown[] = [null, 0, -1, 1e308, '', 'x', true, [], {}, [1], { a: 1 }, '\u0000', 'é'.repeat(300)];
    const shapes = (value: unknown): unknown[] => [
      value,
      { jsonrpc: value, id: 1, method: 'tools/call' },
      { jsonrpc: '2.0', id: value, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: value },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: value },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute', arguments: value } },
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: value } },
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { parts: value } } },
    ];
    const bodies = [
      ...values.flatMap(shapes),
      '{',
      '[{"jsonrpc":"2.0"}',
      JSON.stringify(toolCall({ domain: 'faq', text: '' })),
    ].slice(0, 100);
    expect(bodies.length).toBe(100);
    const statuses = await Promise.all(
      bodies.flatMap((body) =>
        (['/mcp', '/a2a'] as const).map(async (path) => {
          const response = await rpc(path, tenant.token, body, path === '/a2a' ? { 'A2A-Version': '1.0' } : {});
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    expect(statuses).toHaveLength(200);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });
});
