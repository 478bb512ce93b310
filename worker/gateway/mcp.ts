/**
 * POST /mcp: the gateway as a Model Context Protocol server (docs/design/callers.md), over
 * Streamable HTTP and stateless: each request gets its own server and transport, so nothing is
 * kept between calls and no Durable Object is needed. Authentication is /api/execute's (an API key
 * with `execute`, or an administrator naming `key_id`), checked before the SDK sees the body.
 *
 * Tools: `execute` (the execute request's fields; `domain` an enum of the catalog, read through
 * its 30-second cache, and optional: without it the gateway picks one and says so in `_meta`) and
 * `list_domains`. A refusal is a tool result with `isError: true` whose text and
 * `structuredContent` carry the problem's `code` and `detail`. A browser page of another origin is
 * refused (403) before anything runs, as the transport's rules ask against DNS rebinding.
 */
import { type CallToolResult, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { z } from 'zod';
import { newApp } from '../lib/app';
import { type AppEnv, isOwnHost, resolvePlatformUrls } from '../env';
import { bodyJson, readJsonBody } from '../lib/body';
import { type DomainEntry, listDomainEntries } from '../platform/domains';
import { requireBearer } from '../platform/identity';
import {
  type AssistantRequest,
  executeForAssistant,
  postOnly,
  requireExecuteScope,
  withExecutionHeaders,
} from './callers';

/** The server's name and version, as MCP clients show them. */
export const MCP_SERVER_INFO = { name: 'edge-execution-gateway', version: '1.0.0' } as const;

const EXECUTE_DESCRIPTION =
  'Hand a demand to the platform: its agents and robots answer first; when none does, it becomes a lead for a ' +
  'human expert (with the key’s leads:write). Returns the reply as text and the whole execution envelope ' +
  '(execution_id, result, usage, audit ids) as structured content. Pass the same session_id to continue a ' +
  'conversation, and an idempotency_key to make a retry safe.';

/**
 * A field advertised with its JSON Schema, but accepted as anything by the SDK: the pipeline checks
 * it with the execute request's own schema, so a wrong value is refused with the platform's problem
 * (`unknown_domain`, or `validation_failed` with a pointer per field), not the SDK's generic message.
 */
const checkedByPipeline = (jsonSchema: Record<string, unknown>) => z.unknown().optional().meta(jsonSchema);

function executeInput(domains: DomainEntry[]) {
  const slugs = domains.map((entry) => entry.domain);
  const catalog = domains.map((entry) => `${entry.domain} (${entry.name})`).join(', ');
  return z
    .object({
      domain: checkedByPipeline({
        type: 'string',
        ...(slugs.length ? { enum: slugs } : {}),
        description:
          `The business domain of the demand: ${catalog || 'see list_domains'}. Leave it out to let the gateway ` +
          'choose by the words (the answer’s _meta says which it chose).',
      }),
      text: checkedByPipeline({ type: 'string', description: 'The demand in words, as the person wrote it.' }),
      structured_input: checkedByPipeline({ type: 'object', description: 'Structured fields for the domain.' }),
      session_id: checkedByPipeline({
        type: 'string',
        description: 'Your conversation id: the same one continues a conversation.',
      }),
      idempotency_key: checkedByPipeline({
        type: 'string',
        description: 'A retry with the same key returns the first answer.',
      }),
      key_id: checkedByPipeline({ type: 'string', description: 'Administrator tokens only: the API key to act as.' }),
    })
    .meta({ required: [] });
}

/** A refusal as a tool result: the model reads the code and detail, a program the problem object. */
function refusal(problem: { code: string; detail: string }): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${problem.code}: ${problem.detail}` }],
    structuredContent: problem as unknown as Record<string, unknown>,
  };
}

/** One request's MCP server: its tools act as the request's bearer. */
function serverFor(c: Context<AppEnv>, domains: DomainEntry[]): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    // The tools are the catalog's, read per request: the list does not change within a session.
    capabilities: { tools: { listChanged: false } },
    instructions:
      'Use list_domains to see what the platform handles, then execute to hand a demand to its agents and experts.',
  });
  server.registerTool(
    'execute',
    {
      title: 'Hand a demand to experts and agents',
      description: EXECUTE_DESCRIPTION,
      inputSchema: executeInput(domains),
      // It acts in the world (a lead, an agent's call) and is not idempotent without a key.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (input): Promise<CallToolResult> => {
      // Unchecked so far (see checkedByPipeline): executeForAssistant validates it as /api/execute does.
      const outcome = await executeForAssistant(c, input as AssistantRequest, 'mcp');
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
  );
  server.registerTool(
    'list_domains',
    {
      title: 'List the domains',
      description: 'The business domains the platform takes demands for (the catalog), with their names.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (): Promise<CallToolResult> => ({
      content: [{ type: 'text', text: domains.map((entry) => `${entry.domain}: ${entry.name}`).join('\n') }],
      structuredContent: {
        domains: domains.map(({ domain, name, description }) => ({ domain, name, description })),
      },
    }),
  );
  return server;
}

/** A JSON-RPC error that answers no request in particular (`id` null). */
function rpcError(code: number, message: string, status: 400 | 403): Response {
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
      const server = serverFor(c, await listDomainEntries(c.var.db));
      // Stateless, and JSON answers rather than a stream: every tool call completes in its request.
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      return withExecutionHeaders(c, await transport.handleRequest(c.req.raw, { parsedBody: read.value }));
    },
  );
  app.on(['GET', 'DELETE'], '/mcp', postOnly);
  return app;
}
