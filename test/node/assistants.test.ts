/**
 * The gateway as an MCP server and an A2A agent (issue 23), driven against `npm run dev` by the
 * official clients: @modelcontextprotocol/sdk's Client over Streamable HTTP, and @a2a-js/sdk's
 * own client from the gateway's agent card. Each call is an execution of the demo key, with its
 * envelope, its conversation and its audit record.
 */
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { type Part, type Task, TaskState } from '@a2a-js/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const worker = inject('workerUrl');
const demoApiKey = inject('demoApiKey');
const adminToken = inject('adminToken');
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** A fetch that sends the demo key, as an A2A client configured with it does. */
const withKey: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('Authorization', `Bearer ${demoApiKey}`);
  return fetch(input, { ...init, headers });
};

describe('MCP: the official client', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'gateway-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${worker}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${demoApiKey}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  it('initializes, lists execute, ask_knowledge and list_domains, with the catalog as the domain enum', async () => {
    expect(client.getServerVersion()?.name).toBe('edge-execution-gateway');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask_knowledge', 'execute', 'list_domains']);
    const execute = tools.find((tool) => tool.name === 'execute')!;
    const domain = (execute.inputSchema.properties as Record<string, { enum?: string[] }>).domain;
    expect(domain?.enum).toEqual(expect.arrayContaining(['consultation', 'faq']));
    // Hints for the client's confirmation prompts: execute acts in the world, list_domains only reads.
    expect(execute.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(tools.find((tool) => tool.name === 'list_domains')?.annotations).toMatchObject({ readOnlyHint: true });
    const listed = await client.callTool({ name: 'list_domains', arguments: {} });
    expect(listed.structuredContent).toMatchObject({
      domains: expect.arrayContaining([expect.objectContaining({ domain: 'consultation' })]),
    });
  });

  it('ask_knowledge answers from the workspace’s knowledge with its sources, or declines', async () => {
    const declined = await client.callTool({
      name: 'ask_knowledge',
      arguments: { question: 'What colour is the office cat?' },
    });
    expect(declined.isError).toBeFalsy();
    // The docs are the demo's knowledge (as npm run dev indexes them): words of theirs, not an answer.
    expect(declined.structuredContent).toMatchObject({ answer: null, declined: 'low_confidence', citations: [] });
    const answered = await client.callTool({
      name: 'ask_knowledge',
      arguments: { question: 'How do I verify a webhook signature?' },
    });
    expect(answered.structuredContent).toMatchObject({
      answer: expect.stringMatching(/^From “Webhooks”: .*HMAC/),
      declined: null,
      citations: [expect.objectContaining({ url: expect.stringMatching(/\/docs\/webhooks#verify$/) })],
    });
    const refused = await client.callTool({ name: 'ask_knowledge', arguments: {} });
    expect(refused.isError).toBe(true);
  });

  it('execute answers the reply as text and the envelope as structured content, audited as mcp', async () => {
    const result = await client.callTool({
      name: 'execute',
      arguments: { domain: 'consultation', text: 'We need help choosing a payroll provider.' },
    });
    expect(result.isError).toBeFalsy();
    const envelope = result.structuredContent as { output: { execution_id: string; result: { reply: string } } };
    expect(envelope.output.execution_id).toMatch(/^exe_/);
    expect((result.content as { text: string }[])[0]!.text).toBe(envelope.output.result.reply);
    const audit = await fetch(`${worker}/api/admin/audit-log?workspace_id=ws_demo&action=execution.completed`, {
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    const entries = (await audit.json()).data as { target_id: string; metadata: Record<string, unknown> }[];
    const entry = entries.find((candidate) => candidate.target_id === envelope.output.execution_id);
    expect(entry?.metadata).toMatchObject({ domain: 'consultation', via: 'mcp' });
  });

  it('a refusal is a tool result with isError and the problem’s code and detail', async () => {
    const result = await client.callTool({ name: 'execute', arguments: { domain: 'astrology', text: 'Hello?' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'unknown_domain', status: 422 });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^unknown_domain: No domain "astrology"/);
  });

  it('an idempotency key makes a retry return the first answer', async () => {
    const args = { domain: 'consultation', text: 'Once only, please.', idempotency_key: unique('mcp') };
    const first = await client.callTool({ name: 'execute', arguments: args });
    const again = await client.callTool({ name: 'execute', arguments: args });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(again._meta).toMatchObject({ idempotent_replayed: true });
    const changed = await client.callTool({ name: 'execute', arguments: { ...args, text: 'Something else.' } });
    expect(changed.structuredContent).toMatchObject({ code: 'idempotency_key_reused' });
  });
});

describe('A2A: the SDK’s own client, from the agent card', () => {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
    }),
  );
  const textPart = (value: string): Part => ({
    content: { $case: 'text', value },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  });
  const dataPart = (value: Record<string, unknown>): Part => ({
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  });
  const send = async (parts: Part[], contextId = '') => {
    const client = await factory.createFromUrl(worker);
    return client.sendMessage({
      tenant: '',
      message: {
        messageId: crypto.randomUUID(),
        contextId,
        taskId: '',
        role: 1,
        parts,
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
  };

  /** A task's reply (its status message's text) and envelope (its artifact's data part). */
  const answerOf = (task: Task) => ({
    reply: task.status?.message?.parts.find((part) => part.content?.$case === 'text')?.content?.value as string,
    envelope: task.artifacts[0]?.parts.find((part) => part.content?.$case === 'data')?.content?.value as {
      output: { execution_id: string; domain: string; result: { reply: string; demand_id: string } };
    },
  });

  it('serves a 1.0 card with a skill per domain, a JSON-RPC interface at /a2a and a bearer scheme', async () => {
    const card = await (await fetch(`${worker}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${worker}/a2a`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.skills.map((skill: { id: string }) => skill.id)).toEqual(
      expect.arrayContaining(['consultation', 'faq']),
    );
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    // What a 0.3 client reads from the same card.
    expect(card).toMatchObject({ url: `${worker}/a2a`, preferredTransport: 'JSONRPC', protocolVersion: '0.3.0' });
  });

  it('a message answers a completed task; a second one in the same context continues its conversation', async () => {
    const first = (await send([textPart('Our payroll run failed.'), dataPart({ domain: 'consultation' })])) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const { reply, envelope } = answerOf(first);
    expect(reply).toBe(envelope.output.result.reply);
    expect(first.id).toBe(envelope.output.execution_id);

    const second = (await send(
      [textPart('It is urgent: 40 people are waiting.'), dataPart({ domain: 'consultation' })],
      first.contextId,
    )) as Task;
    expect(second.contextId).toBe(first.contextId);
    // One conversation: the same demand, and the session is the context.
    expect(answerOf(second).envelope.output.result.demand_id).toBe(envelope.output.result.demand_id);

    // Read back through the client: the task, and the context's tasks.
    const client = await factory.createFromUrl(worker);
    const read = await client.getTask({ tenant: '', id: first.id, historyLength: 1 });
    expect(read.history).toHaveLength(1);
    const listed = await client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 10,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks.map((task) => task.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('a text-only message, as a generic client sends, gets the domain its words point to', async () => {
    const task = (await send([textPart('Which of your FAQ answers covers refunds?')])) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.metadata).toMatchObject({ domain: 'faq', domain_chosen_by: 'text' });
    expect(answerOf(task).envelope.output.domain).toBe('faq');
  });

  it('a streamed message sends the task working, its artifact, then completed', async () => {
    const client = await factory.createFromUrl(worker);
    const kinds: string[] = [];
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: {
        messageId: crypto.randomUUID(),
        contextId: '',
        taskId: '',
        role: 1,
        parts: [textPart('Stream the answer, please.'), dataPart({ domain: 'consultation' })],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    })) {
      kinds.push(event.payload?.$case ?? 'none');
    }
    expect(kinds).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
  });

  it('a message with an unknown domain is a JSON-RPC invalid-params error', async () => {
    await expect(send([textPart('Hello?'), dataPart({ domain: 'astrology' })])).rejects.toMatchObject({
      message: expect.stringContaining('unknown_domain'),
    });
    // On the wire: -32602, with the problem's code in the details.
    const response = await withKey(`${worker}/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'Hi' }, { data: { domain: 'x' } }] } },
      }),
    });
    const body = await response.json();
    expect(body.error.code).toBe(-32602);
    expect(body.error.data[0].metadata.code).toBe('unknown_domain');
  });
});
