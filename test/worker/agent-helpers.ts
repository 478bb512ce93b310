import { expect, vi } from 'vitest';
import { ADMIN_TOKEN, call, json } from './helpers';
import { completeProfile, review, sessionCall, signUpProvider, type TestProvider } from './provider-helpers';
import { platformDb } from './platform-db';

export type RemoteHandler = (request: Request) => Response | Promise<Response>;

export interface Connection {
  url: string;
  method: string;
  headers: Headers;
  body: string;
}

/** The remote hosts of one test, by origin (or origin + path), and every connection made. */
export const remotes = new Map<string, RemoteHandler>();
export const connections: Connection[] = [];

/** Installs the fetch stub (call in beforeEach; vi.restoreAllMocks() in afterEach removes it). */
export function installRemotes(): void {
  remotes.clear();
  connections.length = 0;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.method === 'GET' ? '' : await request.clone().text();
    connections.push({ url: request.url, method: request.method, headers: request.headers, body });
    const handler = remotes.get(url.origin + url.pathname) ?? remotes.get(url.origin);
    if (!handler) throw new TypeError(`Network connection lost (no stub for ${url.origin})`);
    return handler(request);
  });
}

/** The connections made to one origin. */
export const connectionsTo = (origin: string) => connections.filter((connection) => connection.url.startsWith(origin));

export const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** Answers after `ms`, unless the caller gives up first (its signal aborts). */
export function slowly(ms: number, answer: () => Response): RemoteHandler {
  return (request) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(answer()), ms);
      request.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new DOMException('The operation was aborted.', 'AbortError'));
      });
    });
}

/** An A2A v1.0 agent card whose JSON-RPC endpoint is `${origin}/a2a`. */
export function agentCard(origin: string, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Test agent',
    description: 'Answers test questions.',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'faq', name: 'FAQ', description: 'Answers frequent questions.', tags: ['faq'] }],
    ...overrides,
  };
}

/** The JSON-RPC request an agent received. */
export interface RpcRequest {
  id: number | string;
  method: string;
  params: { message: { role: string; parts: Array<{ text?: string; data?: Record<string, any> }> } };
}

/** A JSON-RPC agent that answers with `result(rpc)` (a v1.0 `{message}` or `{task}` result). */
export function rpcAgent(result: (rpc: RpcRequest) => unknown): RemoteHandler {
  return async (request) => {
    const rpc = (await request.json()) as RpcRequest;
    return jsonResponse({ jsonrpc: '2.0', id: rpc.id, result: result(rpc) });
  };
}

/** A v1.0 message result with a text part and, optionally, a data part. */
export const messageResult = (text: string | null, data?: Record<string, unknown>) => ({
  message: {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: 'ROLE_AGENT',
    parts: [...(text !== null ? [{ text }] : []), ...(data ? [{ data }] : [])],
  },
});

/** A v1.0 task result in a given state (TASK_STATE_COMPLETED, TASK_STATE_WORKING, …). */
export const taskResult = (state: string, text?: string) => ({
  task: {
    id: 'task-1',
    contextId: 'ctx-1',
    status: { state },
    artifacts: text ? [{ artifactId: 'a-1', parts: [{ text }] }] : [],
  },
});

/** The data part (the context) and text part of the message an agent received. */
export function partsOf(rpc: RpcRequest): { text?: string; data: Record<string, any> } {
  const parts = rpc.params.message.parts;
  return {
    text: parts.find((part) => part.text !== undefined)?.text,
    data: parts.find((part) => part.data)?.data ?? {},
  };
}

/** A new catalog domain, so that this test's agents answer only this test's executions. */
export async function newDomain(prefix = 'agents'): Promise<string> {
  const domain = `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
  expect((await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } })).status).toBe(201);
  return domain;
}

export interface ActiveSupplier extends TestProvider {
  /** The `whsec_` secret, as the approval showed it (once). */
  secret: string;
}

interface SupplierOptions {
  domain: string;
  priority?: number;
  timeoutMs?: number;
  bearerToken?: string;
  name?: string;
}

async function activate(provider: TestProvider, profile: Record<string, unknown>): Promise<ActiveSupplier> {
  const saved = await sessionCall(provider.cookie, '/api/provider/profile', { body: { ...profile, submit: true } });
  expect(saved.status, await saved.clone().text()).toBe(200);
  const approved = await review(provider.providerId, 'approve');
  expect(approved.status).toBe(200);
  const { signing_secret: secret } = await json(approved);
  expect(secret).toMatch(/^whsec_/);
  return { ...provider, secret };
}

/** An active robot at `endpoint`, through sign-up, onboarding and an admin's approval. */
export async function createActiveRobot(endpoint: string, options: SupplierOptions): Promise<ActiveSupplier> {
  return activate(await signUpProvider(), {
    ...completeProfile({ kind: 'robot', domains: [options.domain] }),
    display_name: options.name ?? 'Test robot',
    endpoint_url: endpoint,
    priority: options.priority ?? 0,
    ...(options.timeoutMs ? { timeout_ms: options.timeoutMs } : {}),
  });
}

/** An active A2A agent whose card is served at `${origin}/.well-known/agent-card.json` (stubbed here). */
export async function createActiveAgent(
  origin: string,
  options: SupplierOptions & { card?: Record<string, unknown> },
): Promise<ActiveSupplier> {
  const cardUrl = `${origin}/.well-known/agent-card.json`;
  remotes.set(cardUrl, () => jsonResponse(options.card ?? agentCard(origin, { name: options.name ?? 'Test agent' })));
  return activate(await signUpProvider(), {
    ...completeProfile({ kind: 'agent', domains: [options.domain] }),
    display_name: options.name ?? 'Test agent',
    agent_card_url: cardUrl,
    priority: options.priority ?? 0,
    ...(options.timeoutMs ? { timeout_ms: options.timeoutMs } : {}),
    ...(options.bearerToken ? { agent_bearer_token: options.bearerToken } : {}),
  });
}

/** The attempts recorded on an execution, in order. */
export async function attemptsOf(executionId: string) {
  const rows = await platformDb
    .prepare('SELECT provider_id, outcome, http_status, error FROM agent_attempts WHERE execution_id = ? ORDER BY id')
    .bind(executionId)
    .all();
  return rows.results as Array<{
    provider_id: string;
    outcome: string;
    http_status: number | null;
    error: string | null;
  }>;
}
