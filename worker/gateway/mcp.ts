/**
 * POST /mcp: the gateway as a Model Context Protocol server (docs/design/callers.md), over
 * Streamable HTTP and stateless: each request gets its own server and transport, so nothing is
 * kept between calls and no Durable Object is needed. Authentication is /api/execute's (an API key
 * with `execute`, or an administrator naming `key_id`), checked before the SDK sees the body.
 *
 * Tools: `execute` (the execute request's fields; `domain` an enum of the catalog, read through
 * its 30-second cache) and `list_domains`. A refusal is a tool result with `isError: true` whose
 * text and `structuredContent` carry the problem's `code` and `detail`.
 */
import { type CallToolResult, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { z } from 'zod';
import { newApp } from '../lib/app';
import type { AppEnv } from '../env';
import { parseJsonBody, readJsonBody } from '../lib/body';
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
        description: `The business domain of the demand: ${catalog || 'see list_domains'}.`,
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
    .meta({ required: ['domain'] });
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
      return {
        content: [{ type: 'text', text: outcome.reply }],
        structuredContent: outcome.envelope as unknown as Record<string, unknown>,
        ...(outcome.replayed ? { _meta: { idempotent_replayed: true } } : {}),
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

/** The MCP endpoint. */
export function mcpRoutes() {
  const app = newApp('problem');
  app.post('/mcp', readJsonBody(), requireBearer('admin_or_api_key'), requireExecuteScope, parseJsonBody, async (c) => {
    // One call per request (the current MCP transport has no batches), so each is counted and limited
    // before it runs; a batch would run many calls past the limits at once.
    if (Array.isArray(c.var.jsonBody)) {
      return c.json(
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Batches are not accepted: send one JSON-RPC message per request.' },
        },
        400,
      );
    }
    const server = serverFor(c, await listDomainEntries(c.var.db));
    // Stateless, and JSON answers rather than a stream: every tool call completes in its request.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return withExecutionHeaders(c, await transport.handleRequest(c.req.raw, { parsedBody: c.var.jsonBody }));
  });
  app.on(['GET', 'DELETE'], '/mcp', postOnly);
  return app;
}
