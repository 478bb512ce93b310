import { describe, expect, it, vi } from 'vitest';
import { getPage, postForm, signUpOwner } from './console-helpers';
import { ADMIN_TOKEN, call, createTenant, json, type Tenant, writeFootprint } from './helpers';
import { workerFetch } from './self';
import { platformDb } from './platform-db';

type Rpc = { jsonrpc: string; id: unknown; result?: any; error?: { code: number; message: string; data?: any } };

function rpc(token: string, body: unknown, version: '1.0' | '0.3' | string = '1.0'): Promise<Response> {
  return call('/a2a', { token, body, headers: version === '0.3' ? {} : { 'A2A-Version': version } });
}

const userMessage = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts,
  ...extra,
});

async function send(tenant: Tenant, message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const response = await rpc(tenant.token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message, ...extra },
  });
  expect(response.status).toBe(200);
  return json<Rpc>(response);
}

const consultation = (text: string) => [{ text }, { data: { domain: 'consultation' } }];

async function executions(workspaceId: string): Promise<number> {
  const row = await platformDb
    .prepare('SELECT COUNT(*) AS n FROM executions WHERE workspace_id = ?')
    .bind(workspaceId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe('A2A: refusals run nothing', () => {
  const refused: Array<[string, unknown, number, string?]> = [
    ['JSON-RPC 1.0', { jsonrpc: '1.0', id: 1, method: 'SendMessage', params: {} }, -32600],
    ['no method', { jsonrpc: '2.0', id: 1, params: {} }, -32600],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'SendMessage', params: {} }, -32600],
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }], -32600],
    ['an unknown method', { jsonrpc: '2.0', id: 1, method: 'DoThings', params: {} }, -32601],
    ['a 0.3 method on 1.0', { jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }, -32601],
    ['constructor', { jsonrpc: '2.0', id: 1, method: 'constructor', params: {} }, -32601],
    ['toString', { jsonrpc: '2.0', id: 1, method: 'toString', params: {} }, -32601],
    ['__proto__', { jsonrpc: '2.0', id: 1, method: '__proto__', params: {} }, -32601],
    ['hasOwnProperty on 0.3', { jsonrpc: '2.0', id: 1, method: 'hasOwnProperty', params: {} }, -32601, '0.3'],
    [
      'no messageId',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      },
      -32602,
    ],
    [
      'no role',
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', parts: [{ text: 'x' }] } } },
      -32602,
    ],
    ['no parts', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage([]) } }, -32602],
    [
      'an unknown taskId',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: userMessage(consultation('Hello'), { taskId: 'exe_nope' }) },
      },
      -32001,
    ],
    [
      'push notifications',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: userMessage(consultation('Hello')),
          configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' } },
        },
      },
      -32003,
    ],
    [
      'output modes the gateway has none of',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: userMessage(consultation('Hello')), configuration: { acceptedOutputModes: ['image/png'] } },
      },
      -32005,
    ],
    [
      'an unknown domain',
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage([{ data: { domain: 'x' } }]) } },
      -32602,
    ],
    [
      'a data part nested 40 levels deep (refused before any agent is called or anything stored)',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: userMessage([
            { text: 'Hi' },
            { data: { domain: 'consultation', deep: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) } },
          ]),
        },
      },
      -32700,
    ],
    [
      'an unsupported version',
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(consultation('Hi')) } },
      -32009,
      '2.0',
    ],
  ];

  it.each(refused)('%s: the JSON-RPC error, and no row written', async (_name, body, code, version) => {
    const tenant = await createTenant();
    const before = await writeFootprint(tenant.workspaceId, tenant.keyId);
    const response = await rpc(tenant.token, body, version ?? '1.0');
    expect(response.status).toBe(200);
    const answer = await json<Rpc>(response);
    expect(answer.error?.code, JSON.stringify(answer)).toBe(code);
    expect(answer.jsonrpc).toBe('2.0');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(await writeFootprint(tenant.workspaceId, tenant.keyId)).toEqual(before);
  });

  it('malformed JSON is -32700 on /a2a and on /mcp, not a problem', async () => {
    const tenant = await createTenant();
    const a2a = await call('/a2a', { token: tenant.token, body: '{"jsonrpc": "2.0", ' });
    expect(a2a.status).toBe(200);
    expect((await json<Rpc>(a2a)).error?.code).toBe(-32700);
    const mcp = await call('/mcp', {
      token: tenant.token,
      body: '{oops',
      headers: { Accept: 'application/json, text/event-stream' },
    });
    expect(mcp.status).toBe(400);
    expect((await json<Rpc>(mcp)).error?.code).toBe(-32700);
  });
});

describe('A2A: messages answer tasks', () => {
  it('a 1.0 message answers a completed task: the reply as status message, the envelope as artifact', async () => {
    const tenant = await createTenant();
    const answer = await send(tenant, userMessage(consultation('Our payroll run failed.')));
    const task = answer.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.id).toMatch(/^exe_/);
    expect(task.contextId).toBeTruthy();
    const [text, data] = task.artifacts[0].parts;
    expect(data.data.output.execution_id).toBe(task.id);
    expect(text.text).toBe(data.data.output.result.reply);
    expect(task.status.message.role).toBe('ROLE_AGENT');
    expect(task.history.map((message: { role: string }) => message.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
  });

  it('a 0.3 message/send answers a bare task in 0.3 shapes, and a file part is read without Buffer', async () => {
    const tenant = await createTenant();
    const response = await rpc(
      tenant.token,
      {
        jsonrpc: '2.0',
        id: 'a',
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'legacy-1',
            role: 'user',
            parts: [
              { kind: 'text', text: 'See the attached invoice.' },
              { kind: 'data', data: { domain: 'consultation' } },
              { kind: 'file', file: { bytes: btoa('invoice'), name: 'invoice.txt', mimeType: 'text/plain' } },
            ],
          },
        },
      },
      '0.3',
    );
    const task = (await json<Rpc>(response)).result;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0].parts.map((part: { kind: string }) => part.kind)).toEqual(['text', 'data']);
    expect(task.history[0].parts[2]).toMatchObject({ kind: 'file', file: { name: 'invoice.txt' } });
  });

  it('a retry of the same message without a contextId replays the first answer, also 10 at once', async () => {
    const tenant = await createTenant();
    const message = userMessage(consultation('Retry me safely.'));
    const first = await send(tenant, message);
    const again = await send(tenant, message);
    expect(again.error, JSON.stringify(again.error)).toBeUndefined();
    expect(again.result.task.id).toBe(first.result.task.id);
    expect(again.result.task.contextId).toBe(first.result.task.contextId);
    const concurrent = userMessage(consultation('Ten at once.'));
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(tenant, concurrent)));
    expect(answers.every((answer) => answer.result?.task)).toBe(true);
    expect(new Set(answers.map((answer) => answer.result.task.id)).size).toBe(1);
    expect(await executions(tenant.workspaceId)).toBe(2);
  });

  it('a key first used on /api/execute or MCP is refused over A2A as reused, send and stream alike', async () => {
    const tenant = await createTenant();
    const text = 'Help with a CRM, once.';
    const first = await call('/api/execute', {
      token: tenant.token,
      body: { domain: 'consultation', execution_mode: 'sync', required_scopes: [], text, idempotency_key: 'k-api' },
    });
    expect(first.status).toBe(200);
    const mcp = await call('/mcp', {
      token: tenant.token,
      headers: { Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'execute', arguments: { domain: 'consultation', text, idempotency_key: 'k-mcp' } },
      },
    });
    expect(mcp.status).toBe(200);
    for (const key of ['k-api', 'k-mcp']) {
      const message = () => userMessage([{ text }, { data: { domain: 'consultation', idempotency_key: key } }]);
      const sent = await send(tenant, message());
      expect(sent.error?.code, JSON.stringify(sent)).toBe(-32602);
      expect(sent.error?.message).toContain('idempotency_key_reused');
      const streamed = await rpc(tenant.token, {
        jsonrpc: '2.0',
        id: 2,
        method: 'SendStreamingMessage',
        params: { message: message() },
      });
      const events = await streamed.text();
      expect(events).toContain('idempotency_key_reused');
      expect(events).not.toContain('-32603');
    }
    expect(await executions(tenant.workspaceId)).toBe(2);
  });

  it('a text-only message gets the domain its words point to, or the workspace default, and says which', async () => {
    const slug = `tax-${crypto.randomUUID().slice(0, 6)}`;
    const created = await call('/api/admin/domains', {
      token: ADMIN_TOKEN,
      body: { domain: slug, name: 'Tax returns', description: 'VAT, income tax and payroll tax filings.' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const tenant = await createTenant();
    const byWords = (await send(tenant, userMessage([{ text: 'Can you file my VAT return before Friday?' }]))).result
      .task;
    expect(byWords.metadata).toEqual({ domain: slug, domain_chosen_by: 'text' });
    expect(byWords.artifacts[0].parts[1].data.output.domain).toBe(slug);

    const setDefault = await call(`/api/admin/workspaces/${tenant.workspaceId}/default-domain`, {
      method: 'PUT',
      token: ADMIN_TOKEN,
      body: { domain: slug },
    });
    expect(await json(setDefault)).toEqual({ workspace_id: tenant.workspaceId, default_domain: slug });
    const byDefault = (await send(tenant, userMessage([{ text: 'Qwzx blorp?' }]))).result.task;
    expect(byDefault.metadata).toEqual({ domain: slug, domain_chosen_by: 'default' });

    const unknown = await call(`/api/admin/workspaces/${tenant.workspaceId}/default-domain`, {
      method: 'PUT',
      token: ADMIN_TOKEN,
      body: { domain: 'astrology' },
    });
    expect(unknown.status).toBe(422);
  });

  it('the owner sets the default domain in the console; a choice outside the catalog is refused', async () => {
    const owner = await signUpOwner();
    const saved = await postForm(
      `/integrations/settings?ws=${owner.workspaceId}`,
      { default_domain: 'consultation', blocked_terms: '' },
      { cookie: owner.cookie },
    );
    expect(saved.status).toBe(303);
    const row = await platformDb
      .prepare('SELECT default_domain FROM workspaces WHERE id = ?')
      .bind(owner.workspaceId)
      .first();
    expect(row).toEqual({ default_domain: 'consultation' });
    const audit = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM audit_log WHERE workspace_id = ? AND action = ?')
      .bind(owner.workspaceId, 'workspace.default_domain_changed')
      .first();
    expect(audit).toEqual({ n: 1 });
    const page = await (await getPage(`/integrations?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(page).toMatch(/<option value="consultation" selected/);
    const refused = await postForm(
      `/integrations/settings?ws=${owner.workspaceId}`,
      { default_domain: 'astrology', blocked_terms: '' },
      { cookie: owner.cookie },
    );
    expect(refused.status).toBe(422);
  });

  it('accepted output modes tailor the artifact: text only, or JSON only', async () => {
    const tenant = await createTenant();
    const textOnly = await send(tenant, userMessage(consultation('Only words, please.')), {
      configuration: { acceptedOutputModes: ['text/plain'] },
    });
    expect(textOnly.result.task.artifacts[0].parts).toEqual([expect.objectContaining({ text: expect.any(String) })]);
    const jsonOnly = await send(tenant, userMessage(consultation('Only data, please.')), {
      configuration: { acceptedOutputModes: ['application/json'] },
    });
    expect(Object.keys(jsonOnly.result.task.artifacts[0].parts[0])).toContain('data');
    expect(jsonOnly.result.task.artifacts[0].parts).toHaveLength(1);
  });
});

describe('A2A: tasks', () => {
  it('a task keeps its newest turns within bounds: 25 turns of 99 KB all answer, and pages stay small', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 1000 });
    const bulk = 'x'.repeat(99 * 1024);
    const turn = (index: number, task?: { id: string; contextId: string }) =>
      userMessage(
        [{ text: `Turn ${index}.` }, { data: { domain: 'consultation', structured_input: { bulk } } }],
        task ? { taskId: task.id, contextId: task.contextId } : {},
      );
    const first = (await send(tenant, turn(0))).result.task;
    for (let index = 1; index < 25; index++) {
      const answer = await send(tenant, turn(index, first));
      expect(answer.error, `turn ${index}`).toBeUndefined();
    }
    const read = await json<Rpc>(
      await rpc(tenant.token, { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: first.id } }),
    );
    const history = read.result.history as Array<{ role: string; parts: Array<{ text?: string }> }>;
    expect(history.length).toBeLessThanOrEqual(40);
    expect(JSON.stringify(history).length).toBeLessThan(600 * 1024);
    // The newest turn is kept, and the order is the turns' order.
    expect(history.at(-2)?.parts[0]?.text).toBe('Turn 24.');
    expect(history.at(-1)?.role).toBe('ROLE_AGENT');
    // A page of several such tasks stays near 1 MB, and says there is more.
    for (let index = 0; index < 3; index++) {
      const other = (await send(tenant, turn(100 + index))).result.task;
      for (let more = 1; more < 6; more++) await send(tenant, turn(100 + index + more, other));
    }
    const page = await rpc(tenant.token, { jsonrpc: '2.0', id: 3, method: 'ListTasks', params: { pageSize: 10 } });
    const text = await page.text();
    expect(text.length).toBeLessThan(1.6 * 1024 * 1024);
    const listed = (JSON.parse(text) as Rpc).result;
    expect(listed.tasks.length).toBeGreaterThanOrEqual(1);
    expect(listed.tasks.length).toBeLessThan(4);
    expect(listed.nextPageToken).toBeTruthy();
  });

  it('GetTask with historyLength, a continued task, ListTasks by context with pages, CancelTask refused', async () => {
    const tenant = await createTenant();
    const first = (await send(tenant, userMessage(consultation('First turn.')))).result.task;
    const continued = (
      await send(tenant, userMessage(consultation('Second turn.'), { taskId: first.id, contextId: first.contextId }))
    ).result.task;
    expect(continued.id).toBe(first.id);
    expect(continued.history).toHaveLength(4);
    await send(tenant, userMessage(consultation('Another task, same context.'), { contextId: first.contextId }));
    await send(tenant, userMessage(consultation('Elsewhere.')));

    const get = async (params: Record<string, unknown>) =>
      json<Rpc>(await rpc(tenant.token, { jsonrpc: '2.0', id: 2, method: 'GetTask', params }));
    const read = (await get({ id: first.id, historyLength: 1 })).result;
    expect(read.history).toHaveLength(1);
    expect(read.history[0].role).toBe('ROLE_AGENT');
    expect((await get({ id: first.id, historyLength: 0 })).result.history).toEqual([]);

    const list = async (params: Record<string, unknown>) =>
      json<Rpc>(await rpc(tenant.token, { jsonrpc: '2.0', id: 3, method: 'ListTasks', params }));
    const page1 = (await list({ contextId: first.contextId, pageSize: 1 })).result;
    expect(page1).toMatchObject({ pageSize: 1, totalSize: 2 });
    expect(page1.nextPageToken).toBeTruthy();
    const page2 = (await list({ contextId: first.contextId, pageSize: 1, pageToken: page1.nextPageToken })).result;
    expect(page2.tasks).toHaveLength(1);
    expect(page2.tasks[0].id).not.toBe(page1.tasks[0].id);
    expect((await list({})).result.totalSize).toBe(3);
    expect((await list({ pageSize: 0 })).error?.code).toBe(-32602);
    expect((await list({ statusTimestampAfter: '-1' })).error?.code).toBe(-32602);
    expect((await list({ statusTimestampAfter: '2000-01-01T00:00:00Z' })).result.totalSize).toBe(3);

    const cancel = await json<Rpc>(
      await rpc(tenant.token, { jsonrpc: '2.0', id: 4, method: 'CancelTask', params: { id: first.id } }),
    );
    expect(cancel.error?.code).toBe(-32002);
    // A streaming method answers in events, its refusal too.
    const subscribe = await rpc(tenant.token, {
      jsonrpc: '2.0',
      id: 5,
      method: 'SubscribeToTask',
      params: { id: first.id },
    });
    expect(subscribe.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    expect((await events(subscribe))[0]?.error?.code).toBe(-32004);
  });

  it('another workspace’s task does not exist here: TaskNotFound, and nothing runs', async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const task = (await send(owner, userMessage(consultation('Mine.')))).result.task;
    for (const method of ['GetTask', 'CancelTask']) {
      const answer = await json<Rpc>(
        await rpc(other.token, { jsonrpc: '2.0', id: 1, method, params: { id: task.id } }),
      );
      expect(answer.error?.code).toBe(-32001);
    }
    const subscribe = await rpc(other.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SubscribeToTask',
      params: { id: task.id },
    });
    expect((await events(subscribe))[0]?.error?.code).toBe(-32001);
    const before = await writeFootprint(other.workspaceId, other.keyId);
    const hijack = await send(other, userMessage(consultation('Theirs now.'), { taskId: task.id }));
    expect(hijack.error?.code).toBe(-32001);
    expect(await writeFootprint(other.workspaceId, other.keyId)).toEqual(before);
    const list = await json<Rpc>(await rpc(other.token, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }));
    expect(list.result.tasks).toEqual([]);
  });

  it('push notification methods answer -32003, the extended card -32007', async () => {
    const tenant = await createTenant();
    for (const method of ['CreateTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs']) {
      const answer = await json<Rpc>(await rpc(tenant.token, { jsonrpc: '2.0', id: 1, method, params: {} }));
      expect(answer.error?.code).toBe(-32003);
    }
    const card = await json<Rpc>(
      await rpc(tenant.token, { jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }),
    );
    expect(card.error?.code).toBe(-32007);
  });
});

/** The data lines of a server-sent event stream, parsed. */
async function events(response: Response): Promise<Rpc[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Rpc);
}

describe('A2A: streaming', () => {
  it('SendStreamingMessage streams the task working, its artifact, then completed', async () => {
    const tenant = await createTenant();
    const response = await rpc(tenant.token, {
      jsonrpc: '2.0',
      id: 9,
      method: 'SendStreamingMessage',
      params: { message: userMessage(consultation('Stream it.')) },
    });
    expect(response.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    const [task, artifact, status] = (await events(response)).map((event) => event.result);
    expect(task.task.status.state).toBe('TASK_STATE_WORKING');
    expect(artifact.artifactUpdate).toMatchObject({ taskId: task.task.id, lastChunk: true });
    expect(status.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('every stream ends, read whole or cut after its first bytes: each leaves one task and one execution', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 1000 });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const response = await rpc(tenant.token, {
          jsonrpc: '2.0',
          id: index,
          method: 'SendStreamingMessage',
          params: { message: userMessage(consultation(`Stream number ${index}.`)) },
        });
        const reader = response.body!.getReader();
        await reader.read();
        if (index % 2 === 0) {
          await reader.cancel();
          return 'cut';
        }
        for (;;) if ((await reader.read()).done) return 'ended';
      }),
    );
    expect(outcomes.filter((outcome) => outcome === 'ended')).toHaveLength(10);
    await vi.waitUntil(async () => (await executions(tenant.workspaceId)) === 20, { timeout: 5000, interval: 50 });
    const tasks = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM a2a_tasks WHERE workspace_id = ?')
      .bind(tenant.workspaceId)
      .first<{ n: number }>();
    expect(tasks?.n).toBe(20);
  });

  it('0.3 message/stream ends with a final status-update; a refusal is one error event', async () => {
    const tenant = await createTenant();
    const stream = await rpc(
      tenant.token,
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'message/stream',
        params: {
          message: {
            messageId: 'm',
            role: 'user',
            parts: [
              { kind: 'text', text: 'Hi' },
              { kind: 'data', data: { domain: 'consultation' } },
            ],
          },
        },
      },
      '0.3',
    );
    const kinds = (await events(stream)).map((event) => event.result.kind);
    expect(kinds).toEqual(['task', 'artifact-update', 'status-update']);

    const before = await writeFootprint(tenant.workspaceId, tenant.keyId);
    const refused = await rpc(tenant.token, {
      jsonrpc: '2.0',
      id: 10,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'x', parts: [{ text: 'no role' }] } },
    });
    const [error] = await events(refused);
    expect(error?.error?.code).toBe(-32602);
    expect(await writeFootprint(tenant.workspaceId, tenant.keyId)).toEqual(before);
  });
});

describe('the agent card', () => {
  it('serves 1.0 interfaces and the fields a 0.3 client reads', async () => {
    const response = await call('/.well-known/agent-card.json');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const card = await json(response);
    expect(card.url).toBe('http://gateway.test/a2a');
    expect(card.preferredTransport).toBe('JSONRPC');
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.supportedInterfaces.map((entry: { protocolVersion: string }) => entry.protocolVersion)).toEqual([
      '1.0',
      '0.3',
    ]);
    // A scheme has one shape, 1.0's (the kit checks for one member); 0.3 reads `security` for its name.
    expect(Object.keys(card.securitySchemes.bearer)).toEqual(['httpAuthSecurityScheme']);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(card.security).toEqual([{ bearer: [] }]);
    expect(card).not.toHaveProperty('iconUrl');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    // The same card beside the endpoint, for clients given the endpoint's URL as the agent's.
    expect(await json(await call('/a2a/.well-known/agent-card.json'))).toEqual(card);
  });
});

describe('MCP: transport rules', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const accept = { Accept: 'application/json, text/event-stream' };

  it('a foreign Origin is 403 before anything runs; the platform’s own and none are served', async () => {
    const tenant = await createTenant();
    const foreign = await call('/mcp', {
      token: tenant.token,
      body: initialize,
      headers: { ...accept, Origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await json<Rpc>(foreign)).error?.code).toBe(-32600);
    // A name rebound to this server (DNS rebinding): the page's Origin matches the Host, neither is ours.
    const rebound = await workerFetch('http://evil.example/mcp', {
      method: 'POST',
      headers: {
        ...accept,
        Authorization: `Bearer ${tenant.token}`,
        'Content-Type': 'application/json',
        Origin: 'http://evil.example',
      },
      body: JSON.stringify(initialize),
    });
    expect(rebound.status).toBe(403);
    const own = await call('/mcp', {
      token: tenant.token,
      body: initialize,
      headers: { ...accept, Origin: 'http://gateway.test' },
    });
    expect(own.status).toBe(200);
    const none = await call('/mcp', { token: tenant.token, body: initialize, headers: accept });
    expect((await json<Rpc>(none)).result.capabilities.tools).toEqual({ listChanged: false });
  });

  it('execute without a domain picks one and says so in _meta', async () => {
    const tenant = await createTenant();
    const response = await call('/mcp', {
      token: tenant.token,
      headers: accept,
      body: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'execute', arguments: { text: 'Could an expert help with a consultation?' } },
      },
    });
    const result = (await json<Rpc>(response)).result;
    expect(result.isError).toBeFalsy();
    expect(result._meta).toMatchObject({ domain: 'consultation', domain_chosen_by: 'text' });
    expect(result.structuredContent.output.domain).toBe('consultation');
  });
});
