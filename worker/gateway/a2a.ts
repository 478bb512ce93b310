/**
 * The gateway as an A2A agent (docs/design/callers.md): its card at
 * /.well-known/agent-card.json (A2A 1.0, a skill per catalog domain, JSON-RPC at /a2a, a bearer
 * scheme) and POST /a2a, which takes `SendMessage` (1.0) and `message/send` (0.3) with the same
 * API keys as /api/execute.
 *
 * A message runs as one execution: its text part is the request's `text`, a data part carries
 * `{domain, structured_input, idempotency_key}`, and its `contextId` is the `session_id`, so the
 * turns of a context are one conversation. The answer is a message with the reply as a text part
 * and the envelope as a data part. The execution runs before the SDK sees the request, so that its
 * refusals are JSON-RPC errors (invalid params for a missing or unknown domain, with the problem
 * in `data`); the SDK then shapes the answer for the version asked and serves the other methods.
 */
import type { AgentCard, Message, Part } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { newApp } from '../lib/app';
import { type AppEnv, resolvePlatformUrls } from '../env';
import { parseJsonBody, readJsonBody } from '../lib/body';
import type { ProblemBody } from '../lib/errors';
import { type DomainEntry, listDomainEntries } from '../platform/domains';
import { requireBearer } from '../platform/identity';
import {
  type AssistantRequest,
  executeForAssistant,
  postOnly,
  requireExecuteScope,
  withExecutionHeaders,
} from './callers';

const MODES = ['text/plain', 'application/json'];
const JSON_RPC_INVALID_PARAMS = -32602;
/** JSON-RPC's range for errors an implementation defines: a refusal of the execution itself. */
const JSON_RPC_REFUSED = -32000;
const JSON_RPC_VERSION_NOT_SUPPORTED = -32009;
/** Refusals that are about the request's content, so invalid params. */
const INVALID_PARAMS_CODES = new Set(['validation_failed', 'unknown_domain', 'idempotency_key_reused']);

/** The gateway's agent card, with one skill per domain of the catalog. */
export function gatewayAgentCard(baseUrl: string, domains: DomainEntry[]): AgentCard {
  const endpoint = `${baseUrl}/a2a`;
  return {
    name: 'Edge Execution Gateway',
    description:
      'Hands a demand to the platform’s agents, robots and human experts, and answers with an audited execution ' +
      'envelope. Send a text part, and a data part with {"domain": …}; the contextId is the conversation.',
    version: '1.0.0',
    provider: { organization: 'Edge Execution Gateway', url: baseUrl },
    documentationUrl: `${baseUrl}/docs/a2a`,
    iconUrl: '',
    supportedInterfaces: [
      { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: domains.map((entry) => ({
      id: entry.domain,
      name: entry.name,
      description: entry.description ?? `Demands about ${entry.name.toLowerCase()}.`,
      tags: [entry.domain],
      examples: [],
      inputModes: MODES,
      outputModes: MODES,
      securityRequirements: [],
    })),
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { scheme: 'Bearer', bearerFormat: 'egk_…', description: 'An API key with the execute scope.' },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    signatures: [],
  } as AgentCard;
}

/**
 * The card as JSON: the SDK's model writes a security scheme as a tagged union (`$case`), the
 * wire format as the member it is (`{"httpAuthSecurityScheme": …}`).
 */
function cardJson(card: AgentCard): Record<string, unknown> {
  const schemes = Object.fromEntries(
    Object.entries(card.securitySchemes).map(([name, { scheme }]) => [
      name,
      scheme ? { [scheme.$case]: scheme.value } : {},
    ]),
  );
  return { ...card, securitySchemes: schemes };
}

/** A part of a message in either wire format (1.0: `{text}`/`{data}`; 0.3: `{kind, text}`/`{kind, data}`). */
type WirePart = { text?: unknown; data?: unknown };

/** What a SendMessage or message/send carries, read from either wire format. */
function demandOf(message: { parts?: unknown; contextId?: unknown }): {
  text: string;
  data: Record<string, unknown>;
} {
  const parts = Array.isArray(message.parts) ? (message.parts as WirePart[]) : [];
  const text = parts
    .map((part) => (typeof part?.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
  const data = parts.find((part) => part?.data && typeof part.data === 'object' && !Array.isArray(part.data))?.data;
  return { text, data: (data ?? {}) as Record<string, unknown> };
}

function jsonRpcError(id: unknown, code: number, message: string, data?: unknown): Response {
  return Response.json({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } });
}

/** A refusal as a JSON-RPC error: the problem's code and detail, the problem itself in `data`. */
function refusalOf(id: unknown, problem: ProblemBody, legacy: boolean): Response {
  const code = INVALID_PARAMS_CODES.has(problem.code) ? JSON_RPC_INVALID_PARAMS : JSON_RPC_REFUSED;
  // 1.0 carries details as google.rpc-style entries; 0.3 takes any value.
  const data = legacy
    ? problem
    : [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: problem.code.toUpperCase(),
          domain: 'edge-execution-gateway',
          metadata: { code: problem.code, detail: problem.detail, request_id: problem.request_id },
        },
      ];
  return jsonRpcError(id, code, `${problem.code}: ${problem.detail}`, data);
}

/** The agent's reply to one message: the execution's reply, then its envelope. */
function replyMessage(contextId: string, reply: string, envelope: unknown): Message {
  const part = (content: Part['content'], mediaType: string): Part => ({
    content,
    metadata: undefined,
    filename: '',
    mediaType,
  });
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId: '',
    role: 2, // ROLE_AGENT
    parts: [part({ $case: 'text', value: reply }, 'text/plain'), part({ $case: 'data', value: envelope }, MODES[1]!)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Handles one JSON-RPC request to /a2a. */
async function handleA2a(c: Context<AppEnv>): Promise<Response> {
  const body = c.var.jsonBody as { id?: unknown; method?: unknown; params?: { message?: Record<string, unknown> } };
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return jsonRpcError(null, -32600, 'Invalid Request: send one JSON-RPC request object.');
  const version = c.req.header('A2A-Version') ?? '0.3';
  const domains = await listDomainEntries(c.var.db);
  const { baseUrl } = resolvePlatformUrls(c.var.settings, c.req.url);
  const card = gatewayAgentCard(baseUrl, domains);
  try {
    validateVersion(version, card, 'JSONRPC');
  } catch {
    return jsonRpcError(body.id, JSON_RPC_VERSION_NOT_SUPPORTED, `A2A version ${version} is not supported.`);
  }
  const legacy = version === '0.3';
  let answer: Message | undefined;
  const message = body.params?.message;
  if ((body.method === 'SendMessage' || body.method === 'message/send') && message && typeof message === 'object') {
    const { text, data } = demandOf(message);
    const domain = typeof data.domain === 'string' ? data.domain : '';
    if (!domains.some((entry) => entry.domain === domain)) {
      const known = domains.map((entry) => entry.domain).join(', ');
      const detail = domain ? `No domain "${domain}" in the catalog. Known: ${known}.` : `Name a domain: ${known}.`;
      return refusalOf(
        body.id,
        {
          type: `${baseUrl}/docs/protocol#error-unknown_domain`,
          title: 'Unknown domain',
          status: 422,
          detail: `A data part must carry {"domain": …}. ${detail}`,
          code: 'unknown_domain',
          request_id: c.var.requestId,
        },
        legacy,
      );
    }
    // The context is the conversation: a message without one starts a new one, and learns its id.
    const contextId =
      typeof message.contextId === 'string' && message.contextId ? message.contextId : crypto.randomUUID();
    message.contextId = contextId;
    const request: AssistantRequest = {
      domain,
      session_id: contextId,
      ...(text ? { text } : {}),
      ...(data.structured_input !== undefined ? { structured_input: data.structured_input as never } : {}),
      ...(data.idempotency_key !== undefined ? { idempotency_key: data.idempotency_key as never } : {}),
      ...(data.key_id !== undefined ? { key_id: data.key_id as never } : {}),
    };
    const outcome = await executeForAssistant(c, request, 'a2a');
    if (!outcome.ok) return refusalOf(body.id, outcome.problem, legacy);
    answer = replyMessage(contextId, outcome.reply, outcome.envelope);
  }
  // The SDK shapes the answer for the version asked, and serves (or refuses) every other method.
  const executor: AgentExecutor = {
    async execute(_context, bus) {
      if (answer) bus.publish(AgentEvent.message(answer));
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const context = new ServerCallContext({ requestedVersion: version });
  const result = legacy
    ? await new LegacyJsonRpcTransportHandler(handler).handle(body, context)
    : await new JsonRpcTransportHandler(handler).handle(body, context);
  if (Symbol.asyncIterator in Object(result))
    return jsonRpcError(body.id, -32004, 'Streaming is not supported: use SendMessage.');
  return Response.json(result);
}

/** The A2A routes. */
export function a2aRoutes() {
  const app = newApp('problem');
  app.get('/.well-known/agent-card.json', async (c) => {
    const card = gatewayAgentCard(
      resolvePlatformUrls(c.var.settings, c.req.url).baseUrl,
      await listDomainEntries(c.var.db),
    );
    return c.json(cardJson(card), 200, { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
  });
  app.post('/a2a', readJsonBody(), requireBearer('admin_or_api_key'), requireExecuteScope, parseJsonBody, async (c) =>
    withExecutionHeaders(c, await handleA2a(c)),
  );
  app.on(['GET', 'DELETE'], '/a2a', postOnly);
  return app;
}
