/**
 * POST /mcp: the gateway as a Model Context Protocol server (docs/design/callers.md), over
 * Streamable HTTP and stateless: each request gets its own server and transport, so nothing is
 * kept between calls and no Durable Object is needed. Authentication is /api/execute's (an API key
 * with `execute`, or an administrator naming `key_id`), checked before the message is read
 * (protocol.ts: the JSON-RPC of it, written here rather than taken from the server SDK).
 *
 * Tools: `execute` (the execute request's fields; `domain` an enum of the catalog, read through
 * its 30-second cache, and optional: without it the gateway picks one and says so in `_meta`) and
 * `list_domains`. A refusal is a tool result with `isError: true` whose text and
 * `structuredContent` carry the problem's `code` and `detail`. A browser page of another origin is
 * refused (403) before anything runs, as the transport's rules ask against DNS rebinding.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { newApp } from '../../lib/app';
import { type AppEnv, isOwnHost, resolvePlatformUrls } from '../../env';
import { bodyJson, readJsonBody } from '../../lib/body';
import { type DomainEntry, listDomainEntries } from '../../platform/domains';
import { requireActor, requireBearer } from '../../platform/identity';
import { askKnowledge } from '../../platform/knowledge';
import { ApiError } from '../../lib/errors';
import { isLanguage } from '../../lib/i18n';
import {
  type AssistantRequest,
  executeForAssistant,
  postOnly,
  requireExecuteScope,
  withExecutionHeaders,
} from '../callers';
import {
  answer,
  clientMessageSchema,
  MCP_ERRORS,
  McpError,
  PROTOCOL_VERSIONS,
  type Tool,
  type ToolResult,
} from './protocol';

/** The server's name and version, as MCP clients show them. */
export const MCP_SERVER_INFO = { name: 'edge-execution-gateway', version: '1.0.0' } as const;

const EXECUTE_DESCRIPTION =
  'Hand a demand to the platform: its agents and robots answer first; when none does, it becomes a lead for a ' +
  'human expert (with the key’s leads:write). Returns the reply as text and the whole execution envelope ' +
  '(execution_id, result, usage, audit ids) as structured content. Pass the same session_id to continue a ' +
  'conversation, and an idempotency_key to make a retry safe.';

/** The `execute` tool's input, as JSON Schema: the pipeline checks each field with the execute request's schema. */
function executeInput(domains: DomainEntry[]): Record<string, unknown> {
  const slugs = domains.map((entry) => entry.domain);
  const catalog = domains.map((entry) => `${entry.domain} (${entry.name})`).join(', ');
  return {
    type: 'object',
    properties: {
      domain: {
        type: 'string',
        ...(slugs.length ? { enum: slugs } : {}),
        description:
          `The business domain of the demand: ${catalog || 'see list_domains'}. Leave it out to let the gateway ` +
          'choose by the words (the answer’s _meta says which it chose).',
      },
      text: { type: 'string', description: 'The demand in words, as the person wrote it.' },
      structured_input: { type: 'object', description: 'Structured fields for the domain.' },
      session_id: { type: 'string', description: 'Your conversation id: the same one continues a conversation.' },
      idempotency_key: { type: 'string', description: 'A retry with the same key returns the first answer.' },
      key_id: { type: 'string', description: 'Administrator tokens only: the API key to act as.' },
    },
    required: [],
  };
}

const EXECUTE_FIELDS = new Set(['domain', 'text', 'structured_input', 'session_id', 'idempotency_key', 'key_id']);

/** A refusal as a tool result: the model reads the code and detail, a program the problem object. */
function refusal(problem: { code: string; detail: string }): ToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${problem.code}: ${problem.detail}` }],
    structuredContent: problem as unknown as Record<string, unknown>,
  };
}

/** The ask_knowledge tool: the key's workspace's knowledge, with `knowledge:read`. */
async function askKnowledgeTool(c: Context<AppEnv>, input: Record<string, unknown>): Promise<ToolResult> {
  const actor = requireActor(c);
  if (actor.kind !== 'api_key')
    return refusal({ code: 'validation_failed', detail: 'ask_knowledge reads an API key’s workspace: use one.' });
  if (!actor.key.scopes.includes('knowledge:read'))
    return refusal({ code: 'insufficient_scope', detail: 'The key lacks the scope: knowledge:read.' });
  const question = typeof input.question === 'string' ? input.question.trim().slice(0, 2000) : '';
  if (!question) return refusal({ code: 'validation_failed', detail: 'question: a question is required.' });
  const language = isLanguage(input.language) ? input.language : 'en';
  let answer: Awaited<ReturnType<typeof askKnowledge>>;
  try {
    answer = await askKnowledge(c.var.db, actor.key.workspaceId, question, {
      language,
      model: c.var.services.answerModel,
      limit: {
        caller: `api_key:${actor.key.id}`,
        workspaceId: actor.key.workspaceId,
        perCaller: actor.key.rateLimitPerMinute,
      },
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'rate_limited')
      return refusal({ code: error.code, detail: error.message });
    throw error;
  }
  const sources = answer.citations.map((citation) => `- ${citation.title}${citation.url ? `: ${citation.url}` : ''}`);
  const text = answer.answer
    ? [answer.answer, ...(sources.length ? ['', 'Sources:', ...sources] : [])].join('\n')
    : `Declined (${answer.declined}): the workspace's knowledge does not answer this. No answer is guessed.`;
  return { content: [{ type: 'text', text }], structuredContent: answer as unknown as Record<string, unknown> };
}

/** The tools of one request: they act as the request's bearer. */
function toolsFor(c: Context<AppEnv>, domains: DomainEntry[]): Tool[] {
  return [
    {
      name: 'execute',
      title: 'Hand a demand to experts and agents',
      description: EXECUTE_DESCRIPTION,
      inputSchema: executeInput(domains),
      // It acts in the world (a lead, an agent's call) and is not idempotent without a key.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      call: async (input) => {
        // The tool's own fields only, unchecked so far: executeForAssistant validates them as /api/execute
        // does, with the platform's problems (a pointer per field), not a generic message.
        const fields = Object.fromEntries(Object.entries(input).filter(([name]) => EXECUTE_FIELDS.has(name)));
        const outcome = await executeForAssistant(c, fields as AssistantRequest, 'mcp');
        if (!outcome.ok) return refusal(outcome.problem);
        const choice = outcome.domainChoice;
        const meta = {
          ...(outcome.replayed ? { idempotent_replayed: true } : {}),
          ...(choice ? { domain: choice.domain, domain_chosen_by: choice.by } : {}),
        };
        return {
          content: [{ type: 'text', text: outcome.reply }],
          structuredContent: outcome.envelope as unknown as Record<string, unknown>,
          ...(Object.keys(meta).length ? { _meta: meta } : {}),
        };
      },
    },
    {
      name: 'ask_knowledge',
      title: 'Ask the workspace’s knowledge',
      description:
        'Answers a question from the workspace’s own knowledge (its help pages, documents and Q&A), with the ' +
        'sources, or declines when they do not cover it (no answer is guessed). Needs the key’s knowledge:read scope.',
      inputSchema: {
        type: 'object',
        properties: {
          question: { type: 'string', description: 'The question, as a person asks it.', maxLength: 2000 },
          language: { type: 'string', description: 'The language to answer in (en, de, fr, es…); English if none.' },
        },
        required: ['question'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      call: async (input) => askKnowledgeTool(c, input),
    },
    {
      name: 'list_domains',
      title: 'List the domains',
      description: 'The business domains the platform takes demands for (the catalog), with their names.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
      call: async () => ({
        content: [{ type: 'text', text: domains.map((entry) => `${entry.domain}: ${entry.name}`).join('\n') }],
        structuredContent: {
          domains: domains.map(({ domain, name, description }) => ({ domain, name, description })),
        },
      }),
    },
  ];
}

/** A JSON-RPC error that answers no request in particular (`id` null). */
function rpcError(code: number, message: string, status: 400 | 403 | 406): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status });
}

/**
 * A browser sends its page's Origin. One that is not the platform's own is refused, and so is any
 * browser request under a name that is not ours (a page whose name was rebound to a local server,
 * DNS rebinding, calls under its own name). Clients that are not browsers send no Origin.
 */
const refuseForeignOrigin = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header('Origin');
  const ownOrigin = new URL(resolvePlatformUrls(c.var.settings, c.req.url).baseUrl).origin;
  if (origin && (origin !== ownOrigin || !isOwnHost(c.var.settings, c.req.url)))
    return rpcError(-32600, `Origin ${origin} may not call this server: MCP clients send no Origin.`, 403);
  await next();
});

/** The MCP endpoint. */
export function mcpRoutes() {
  const app = newApp('problem');
  app.post(
    '/mcp',
    refuseForeignOrigin,
    readJsonBody(),
    requireBearer('admin_or_api_key'),
    requireExecuteScope,
    async (c) => {
      const read = await bodyJson(c);
      if (!read.ok) return rpcError(-32700, `Parse error: ${read.error.message}`, 400);
      // One call per request (the current MCP transport has no batches), so each is counted and limited
      // before it runs; a batch would run many calls past the limits at once.
      if (Array.isArray(read.value)) {
        return rpcError(-32600, 'Batches are not accepted: send one JSON-RPC message per request.', 400);
      }
      // Stateless, and JSON answers rather than a stream: every tool call completes in its request.
      const accept = c.req.header('Accept') ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
        return rpcError(
          MCP_ERRORS.transport,
          'Not Acceptable: Client must accept both application/json and text/event-stream',
          406,
        );
      const version = c.req.header('MCP-Protocol-Version');
      if (version && !(PROTOCOL_VERSIONS as readonly string[]).includes(version))
        return rpcError(
          MCP_ERRORS.transport,
          `Bad Request: Unsupported protocol version: ${version} (supported versions: ${PROTOCOL_VERSIONS.join(', ')})`,
          400,
        );
      const message = clientMessageSchema.safeParse(read.value);
      if (!message.success)
        return rpcError(MCP_ERRORS.invalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message.', 400);
      // A notification or a client's response: acknowledged, nothing to answer.
      if (!('id' in message.data) || !('method' in message.data))
        return withExecutionHeaders(c, new Response(null, { status: 202 }));
      const request = message.data;
      try {
        const result = await answer(request.method, request.params ?? {}, {
          info: MCP_SERVER_INFO,
          instructions:
            'Use list_domains to see what the platform handles, then execute to hand a demand to its agents ' +
            'and experts.',
          tools: toolsFor(c, await listDomainEntries(c.var.db)),
        });
        return withExecutionHeaders(c, Response.json({ jsonrpc: '2.0', id: request.id, result }));
      } catch (error) {
        if (!(error instanceof McpError)) throw error;
        return withExecutionHeaders(
          c,
          Response.json({ jsonrpc: '2.0', id: request.id, error: { code: error.code, message: error.message } }),
        );
      }
    },
  );
  app.on(['GET', 'DELETE'], '/mcp', postOnly);
  return app;
}
