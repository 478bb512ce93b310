/**
 * Interoperability against real implementations: a real A2A server built with @a2a-js/sdk's own
 * server classes, and a robot that checks every call with the npm `standardwebhooks` library.
 * Both are registered the way a provider does it (sign-up, the onboarding API, an admin's
 * approval, which shows the signing secret once) and answer /api/execute on a real local Worker, which
 * reaches them on loopback only because the test worker sets ALLOW_LOOPBACK_EGRESS.
 */
import { confirmEmailOverHttp } from './account-helpers';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { Webhook } from 'standardwebhooks';
import { normaliseAgentCard, sendA2aMessage } from '../../worker/platform/agents/a2a-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const worker = inject('workerUrl');
const adminToken = inject('adminToken');

async function api(path: string, init: { method?: string; token?: string; cookie?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { Origin: worker };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.cookie) headers.Cookie = `egw_session=${init.cookie}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${worker}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

/** A provider through the real sign-up form; returns their session cookie and provider id. */
async function signUpProvider(): Promise<{ cookie: string; providerId: string }> {
  const email = `interop.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 7)}@example.com`;
  const response = await fetch(`${worker}/auth/sign-up`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker },
    body: new URLSearchParams({ email, password: 'a long and unusual passphrase 42', role: 'provider' }).toString(),
  });
  expect(response.status).toBe(303);
  await confirmEmailOverHttp(email);
  const cookie = /egw_session=([^;]+)/.exec(response.headers.getSetCookie().join('\n'))![1]!;
  const profile = await api('/api/provider/profile', { cookie });
  return { cookie, providerId: profile.body.provider_id };
}

/** Onboarding through the API, approval by an admin, and the secret revealed once. */
async function register(
  profile: Record<string, unknown>,
  domain: string,
): Promise<{ providerId: string; secret: string }> {
  const provider = await signUpProvider();
  const saved = await api('/api/provider/profile', {
    cookie: provider.cookie,
    body: {
      display_name: 'Interop provider',
      headline: 'Answers interop tests',
      accepted_scope: { domains: [domain], topics: [] },
      languages: ['en'],
      regions: ['global'],
      ...profile,
      submit: true,
    },
  });
  expect(saved.status, saved.text).toBe(200);
  const approved = await api(`/api/admin/providers/${provider.providerId}/approve`, {
    token: adminToken,
    body: { version: saved.body.version },
  });
  expect(approved.body).toMatchObject({ status: 'active', signing_secret: expect.stringMatching(/^whsec_/) });
  return { providerId: provider.providerId, secret: approved.body.signing_secret };
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

let domain: string;
let apiKey: string;

beforeAll(async () => {
  domain = `interop-${Date.now().toString(36)}`;
  expect((await api('/api/admin/domains', { token: adminToken, body: { domain, name: 'Interop' } })).status).toBe(201);
  const org = await api('/api/admin/organizations', { token: adminToken, body: { name: 'Interop Org' } });
  const key = await api('/api/admin/api-keys', {
    token: adminToken,
    body: { workspace_id: org.body.workspace_id, name: 'interop', scopes: ['execute', 'agents:invoke', 'leads:write'] },
  });
  apiKey = key.body.token;
});

/** The text and the data part of the platform's message, as an SDK agent reads them. */
function userParts(context: { userMessage: { parts: Array<{ content?: { $case: string; value: unknown } }> } }) {
  const parts = context.userMessage.parts;
  const text = parts.map((part) => (part.content?.$case === 'text' ? String(part.content.value) : '')).join('');
  const data = parts.find((part) => part.content?.$case === 'data')?.content?.value as
    | Record<string, unknown>
    | undefined;
  return { text, data };
}

describe('a real A2A server built with @a2a-js/sdk', () => {
  let server: Server;
  let secret: string | undefined;
  const received: Array<{ headers: IncomingHttpHeaders; body: Record<string, any>; verified: boolean }> = [];

  beforeAll(async () => {
    const executor: AgentExecutor = {
      async execute(context, bus) {
        const { text, data } = userParts(context);
        const executionId = data?.execution_id;
        bus.publish(
          AgentEvent.message({
            messageId: randomUUID(),
            contextId: context.contextId,
            taskId: '',
            role: 2,
            parts: [
              {
                content: { $case: 'text', value: `Echo: ${text}` },
                metadata: undefined,
                filename: '',
                mediaType: 'text/plain',
              },
              {
                content: { $case: 'data', value: { echoed_execution: executionId, length: text.length } },
                metadata: undefined,
                filename: '',
                mediaType: 'application/json',
              },
            ],
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          }),
        );
        bus.finished();
      },
      async cancelTask() {},
    };
    const app = express();
    server = createServer(app);
    const port = await listen(server);
    const base = `http://127.0.0.1:${port}`;
    const handler = new DefaultRequestHandler(
      {
        name: 'Interop echo agent',
        description: 'Echoes what it is asked.',
        version: '2.1.0',
        supportedInterfaces: [
          { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
        ],
        capabilities: { streaming: false, pushNotifications: false, extensions: [] },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [
          {
            id: 'echo',
            name: 'Echo',
            description: 'Repeats the question.',
            tags: ['echo'],
            examples: [],
            inputModes: [],
            outputModes: [],
            securityRequirements: [],
          },
        ],
        securitySchemes: {},
        securityRequirements: [],
        signatures: [],
        provider: undefined,
      },
      new InMemoryTaskStore(),
      executor,
    );
    app.use(
      express.json({
        verify: (request, _response, buffer) =>
          ((request as unknown as { rawBody: string }).rawBody = buffer.toString('utf8')),
      }),
    );
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
    app.use(
      '/a2a/jsonrpc',
      (request, _response, next) => {
        let verified = false;
        try {
          new Webhook(secret!).verify(
            (request as unknown as { rawBody: string }).rawBody,
            request.headers as Record<string, string>,
          );
          verified = true;
        } catch {}
        received.push({ headers: request.headers, body: request.body, verified });
        next();
      },
      jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
    );
    const registered = await register(
      { kind: 'agent', agent_card_url: `${base}/.well-known/agent-card.json`, priority: 50 },
      domain,
    );
    secret = registered.secret;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(
    'is registered through the onboarding API with its card, and answers /api/execute with a signed ' + 'SendMessage',
    async () => {
      const response = await api('/api/execute', {
        token: apiKey,
        body: { domain, execution_mode: 'sync', required_scopes: [], text: 'Is this interoperable?' },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.output.result).toMatchObject({
        disposition: 'routed',
        handled_by: { kind: 'agent', name: 'Interop provider' },
        reply: 'Echo: Is this interoperable?',
        output: { echoed_execution: response.body.output.execution_id, length: 22 },
      });
      const call = received.at(-1)!;
      expect(call.verified).toBe(true);
      expect(call.body.method).toBe('SendMessage');
      expect(call.headers['a2a-version']).toBe('1.0');
    },
  );
});

describe('a robot that verifies every call with standardwebhooks', () => {
  let server: Server;
  let port: number;
  let secret = '';
  const seen: Array<{ status: number; body: string; headers: IncomingHttpHeaders }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        let status = 200;
        try {
          new Webhook(secret).verify(body, request.headers as Record<string, string>);
        } catch {
          status = 401;
        }
        seen.push({ status, body, headers: request.headers });
        response.writeHead(status, { 'Content-Type': 'application/json' });
        if (status !== 200) return response.end(JSON.stringify({ error: 'bad signature' }));
        const call = JSON.parse(body);
        response.end(
          JSON.stringify({
            output: { answered: call.execution_id },
            reply: `Robot saw: ${call.text}`,
            usage: [{ meter: 'robot_seconds', quantity: 0.2, unit: 'second' }],
          }),
        );
      });
    });
    port = await listen(server);
    secret = (
      await register({ kind: 'robot', endpoint_url: `http://127.0.0.1:${port}/execute`, priority: 99 }, `${domain}`)
    ).secret;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts the platform’s signature on every call, and the platform appends its usage', async () => {
    for (const text of ['First robot call.', 'Second robot call.']) {
      const response = await api('/api/execute', {
        token: apiKey,
        body: { domain, execution_mode: 'sync', required_scopes: [], text },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.output.result).toMatchObject({
        handled_by: { kind: 'robot' },
        reply: `Robot saw: ${text}`,
        output: { answered: response.body.output.execution_id },
      });
      expect(response.body.usage_applications).toContainEqual({
        meter: 'robot_seconds',
        quantity: 0.2,
        unit: 'second',
        source: 'provider',
        provider_id: response.body.output.result.handled_by.provider_id,
      });
    }
    expect(seen.map((call) => call.status)).toEqual([200, 200]);
  });

  it('refuses a tampered body under the same headers', async () => {
    const original = seen.at(-1)!;
    const tampered = original.body.replace('Second robot call.', 'Send me every lead.');
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
      headers[name] = String(original.headers[name]);
    const replay = await fetch(`http://127.0.0.1:${port}/execute`, { method: 'POST', headers, body: tampered });
    expect(replay.status).toBe(401);
    const untouched = await fetch(`http://127.0.0.1:${port}/execute`, { method: 'POST', headers, body: original.body });
    expect(untouched.status).toBe(200);
  });
});

describe("the platform's A2A client against the SDK's servers, in each wire", () => {
  let server: Server;
  let base = '';
  const seen: Array<{ path: string; version: string | undefined; body: Record<string, any> }> = [];

  beforeAll(async () => {
    // A message for a question, a completed task with an artifact when asked for one.
    const executor: AgentExecutor = {
      async execute(context, bus) {
        const { text, data } = userParts(context);
        const parts = [
          {
            content: { $case: 'text' as const, value: `Echo: ${text}` },
            metadata: undefined,
            filename: '',
            mediaType: '',
          },
          {
            content: { $case: 'data' as const, value: { seen: data ?? null } },
            metadata: undefined,
            filename: '',
            mediaType: 'application/json',
          },
        ];
        if (!text.includes('task')) {
          bus.publish(
            AgentEvent.message({
              messageId: randomUUID(),
              contextId: context.contextId,
              taskId: '',
              role: 2,
              parts,
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            }),
          );
        } else {
          bus.publish(
            AgentEvent.task({
              id: context.taskId,
              contextId: context.contextId,
              status: { state: text.includes('reject') ? 7 : 3, message: undefined, timestamp: undefined },
              artifacts: [
                { artifactId: 'a1', name: 'answer', description: '', parts, metadata: undefined, extensions: [] },
              ],
              history: [],
              metadata: undefined,
            }),
          );
        }
        bus.finished();
      },
      async cancelTask() {},
    };
    const app = express();
    server = createServer(app);
    const port = await listen(server);
    base = `http://127.0.0.1:${port}`;
    const iface = (path: string, protocolBinding: string, protocolVersion: string) => ({
      url: `${base}${path}`,
      protocolBinding,
      protocolVersion,
      tenant: '',
    });
    const handler = new DefaultRequestHandler(
      {
        name: 'Four wires',
        description: 'Answers in each binding and version.',
        version: '1.0.0',
        supportedInterfaces: [
          iface('/rpc', 'JSONRPC', '1.0'),
          iface('/rpc', 'JSONRPC', '0.3'),
          iface('/rest', 'HTTP+JSON', '1.0'),
          iface('/rest', 'HTTP+JSON', '0.3'),
        ],
        capabilities: { streaming: false, pushNotifications: false, extensions: [] },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
        securitySchemes: {},
        securityRequirements: [],
        signatures: [],
        provider: undefined,
      },
      new InMemoryTaskStore(),
      executor,
    );
    app.use(express.json());
    app.use((request, _response, next) => {
      seen.push({ path: request.path, version: request.headers['a2a-version'] as string, body: request.body });
      next();
    });
    const options = {
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      legacyCompat: { enabled: true },
    };
    app.use('/rpc', jsonRpcHandler(options));
    app.use('/rest', restHandler(options));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const wires = [
    ['JSONRPC', '1.0', '/rpc'],
    ['JSONRPC', '0.3', '/rpc'],
    ['HTTP+JSON', '1.0', '/rest/message:send'],
    ['HTTP+JSON', '0.3', '/rest/v1/message:send'],
  ] as const;
  for (const [protocolBinding, protocolVersion, path] of wires) {
    it(`${protocolBinding} ${protocolVersion}: a message, a completed task and a rejected one`, async () => {
      const target = {
        url: `${base}${protocolBinding === 'JSONRPC' ? '/rpc' : '/rest'}`,
        protocolBinding,
        protocolVersion,
        tenant: '',
      };
      const data = { execution_id: 'exe_1', nested: { list: [1, 2] } };
      const message = await sendA2aMessage(target, { messageId: randomUUID(), text: 'Hello', data }, fetch);
      expect(message).toEqual({ kind: 'message', parts: [{ text: 'Echo: Hello' }, { data: { seen: data } }] });
      expect(seen.at(-1)).toMatchObject({ path, version: protocolVersion });

      const task = await sendA2aMessage(target, { messageId: randomUUID(), text: 'a task', data }, fetch);
      expect(task).toEqual({
        kind: 'task',
        state: 'completed',
        parts: [{ text: 'Echo: a task' }, { data: { seen: data } }],
      });
      const rejected = await sendA2aMessage(target, { messageId: randomUUID(), text: 'reject the task', data }, fetch);
      expect(rejected).toMatchObject({ kind: 'task', state: 'rejected' });
    });
  }

  it('normalises a 0.3 card to the interfaces a 1.0 card lists', () => {
    const card = normaliseAgentCard({
      name: 'Old',
      url: 'https://agent.example.com/rpc',
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://agent.example.com/rest', transport: 'HTTP+JSON' }],
      capabilities: {},
    });
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://agent.example.com/rpc', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3.0' },
      { url: 'https://agent.example.com/rest', protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card).not.toHaveProperty('url');
    const current = {
      name: 'New',
      supportedInterfaces: [{ url: 'https://a.example.com', protocolBinding: 'JSONRPC' }],
    };
    expect(normaliseAgentCard(current)).toBe(current);
  });
});
