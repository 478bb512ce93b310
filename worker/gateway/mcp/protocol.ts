/**
 * The Model Context Protocol's JSON-RPC, as far as a stateless tools server needs it
 * (modelcontextprotocol.io, Streamable HTTP): a message is checked whole at the door, then
 * `initialize`, `ping`, `tools/list` and `tools/call` are answered, notifications and client
 * responses acknowledged (202), and anything else refused with JSON-RPC's own codes. No SDK: the
 * server SDK weighed 80 KiB gzip of the Worker for two tools.
 */
import { z } from 'zod';

/** The protocol revisions this server speaks, newest first (the first is offered to a newer client). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

/** JSON-RPC's and MCP's error codes. */
export const MCP_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** The transport's own refusals (a header, the Accept list). */
  transport: -32000,
} as const;

const id = z.union([z.string().max(200), z.number().int()]);

/** One JSON-RPC message from a client: a request, a notification, or a response to us. */
export const clientMessageSchema = z.union([
  z.object({
    jsonrpc: z.literal('2.0'),
    id,
    method: z.string().min(1).max(200),
    params: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    jsonrpc: z.literal('2.0'),
    method: z.string().min(1).max(200),
    params: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({ jsonrpc: z.literal('2.0'), id: id.nullable(), result: z.unknown() }),
  z.object({ jsonrpc: z.literal('2.0'), id: id.nullable(), error: z.unknown() }),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

export const initializeParamsSchema = z.object({
  protocolVersion: z.string().max(40),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  clientInfo: z.object({ name: z.string(), version: z.string() }).passthrough().optional(),
});

export const callToolParamsSchema = z.object({
  name: z.string().min(1).max(100),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** What a tool answers: its words for the model, its structured content for a program. */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A tool as `tools/list` describes it, and what calling it does. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, boolean>;
  call(args: Record<string, unknown>): Promise<ToolResult>;
}

/** A refusal of one request, in JSON-RPC's shape. */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The revision a client asks for, if spoken here; else the newest (the client then decides). */
export function negotiatedVersion(asked: string): string {
  return (PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : PROTOCOL_VERSIONS[0];
}

/**
 * The answer to one request (a result, or throws McpError): `initialize` with the server's
 * description, `ping`, and the tools.
 */
export async function answer(
  method: string,
  params: Record<string, unknown>,
  server: { info: { name: string; version: string }; instructions: string; tools: Tool[] },
): Promise<unknown> {
  switch (method) {
    case 'initialize': {
      const init = initializeParamsSchema.safeParse(params);
      if (!init.success)
        throw new McpError(MCP_ERRORS.invalidParams, 'Invalid params: initialize needs protocolVersion.');
      return {
        protocolVersion: negotiatedVersion(init.data.protocolVersion),
        // The tools are the catalog's, read per request: the list does not change within a session.
        capabilities: { tools: { listChanged: false } },
        serverInfo: server.info,
        instructions: server.instructions,
      };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return {
        tools: server.tools.map(({ name, title, description, inputSchema, annotations }) => ({
          name,
          title,
          description,
          inputSchema,
          annotations,
        })),
      };
    case 'tools/call': {
      const call = callToolParamsSchema.safeParse(params);
      if (!call.success) throw new McpError(MCP_ERRORS.invalidParams, 'Invalid params: tools/call needs a tool name.');
      const tool = server.tools.find((candidate) => candidate.name === call.data.name);
      if (!tool) throw new McpError(MCP_ERRORS.invalidParams, `Tool ${call.data.name} not found.`);
      return tool.call(call.data.arguments ?? {});
    }
    default:
      throw new McpError(MCP_ERRORS.methodNotFound, `Method not found: ${method}.`);
  }
}
