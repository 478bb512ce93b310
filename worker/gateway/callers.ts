/**
 * What the MCP and A2A adapters share (docs/design/callers.md): both authenticate as /api/execute
 * does, need the key's `execute` scope to connect at all, and turn a message of their protocol
 * into the same execute request, run through the same pipeline (executeAsKey). Their refusals are
 * the platform's problems, carried in the protocol's own error shape.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { problemResponse, validationError } from '../lib/app';
import { type AppEnv, resolvePlatformUrls } from '../env';
import { ApiError, type ProblemBody, problemBody } from '../lib/errors';
import { problemSchema } from '../lib/openapi';
import {
  type ExecuteRequest,
  type ExecuteResponse,
  executeRequestSchema,
  executeResponseSchema,
} from '../platform/core';
import type { DomainChoice } from '../brain';
import { domainForText } from '../platform/domains';
import { requireActor, workspaceDefaultDomain } from '../platform/identity';
import { executeAsKey, rateLimitHeaders } from './execute';

/**
 * What an assistant or agent may send: the execute request's fields, less the HTTP-only ones;
 * `domain` may be left out.
 */
export type AssistantRequest = Partial<Pick<ExecuteRequest, 'domain'>> &
  Pick<ExecuteRequest, 'text' | 'session_id' | 'idempotency_key' | 'attachments'> & {
    /** Checked by the execute request's schema, as /api/execute checks them. */
    structured_input?: unknown;
    key_id?: unknown;
  };

/** An execution's answer to an assistant: the envelope and its reply, or the problem that refused it. */
export type AssistantOutcome =
  | { ok: true; envelope: ExecuteResponse; reply: string; replayed: boolean; domainChoice: DomainChoice | null }
  | { ok: false; problem: ProblemBody };

/** A stored refusal: a problem, its extensions (the meter, the contract) kept. */
const storedProblemSchema = problemSchema.loose();

/**
 * An API key must hold `execute` to use the protocol at all (an administrator names the key per
 * call, in `key_id`, and is checked then). A key without it gets the 403 /api/execute would give.
 */
export const requireExecuteScope = createMiddleware<AppEnv>(async (c, next) => {
  const actor = requireActor(c);
  if (actor.kind === 'api_key' && !actor.key.scopes.includes('execute'))
    throw new ApiError('insufficient_scope', 'The key lacks the scope(s): execute.', {
      extensions: { missing_scopes: ['execute'] },
    });
  await next();
});

/** The problem body of a refusal, as /api/execute would send it. */
export function problemOf(c: Context<AppEnv>, error: ApiError): ProblemBody {
  return problemBody(error, c.var.requestId ?? 'req_unknown', resolvePlatformUrls(c.var.settings, c.req.url).baseUrl);
}

/**
 * The domain of a request that names none: the brain's choice by its words, else the workspace's
 * default (an administrator naming no key has no workspace to ask).
 */
async function chooseFor(c: Context<AppEnv>, request: AssistantRequest): Promise<DomainChoice> {
  const actor = requireActor(c);
  const workspaceDefault =
    actor.kind === 'api_key' ? await workspaceDefaultDomain(c.var.db, actor.key.workspaceId) : null;
  const words = [request.text ?? '', JSON.stringify(request.structured_input ?? {})].join(' ');
  return domainForText(c.var.db, words, workspaceDefault);
}

/**
 * Runs one execution for an MCP tool call or an A2A message: the request is validated by the
 * execute request's own schema (all of the key's scopes, sync), so the rules are the same. A
 * request without a domain gets the one its words point to (the envelope's `output.domain`).
 */
export async function executeForAssistant(
  c: Context<AppEnv>,
  request: AssistantRequest,
  via: 'mcp' | 'a2a',
  options: Parameters<typeof executeAsKey>[3] = {},
): Promise<AssistantOutcome> {
  try {
    const domainChoice = request.domain === undefined ? await chooseFor(c, request) : null;
    const parsed = executeRequestSchema.safeParse({
      ...request,
      ...(domainChoice ? { domain: domainChoice.domain } : {}),
      execution_mode: 'sync',
      required_scopes: [],
    });
    if (!parsed.success) throw validationError(parsed.error);
    // A chosen domain is the gateway's, not the caller's: a retry may choose again, and still replay.
    const unsent = [...(options.unsent ?? []), ...(domainChoice ? (['domain'] as const) : [])];
    const outcome = await executeAsKey(c, parsed.data, via, { ...options, unsent });
    c.set('executionHeaders', rateLimitHeaders(outcome.rateLimit));
    // A replay keeps only the bytes first sent: they are read back by the schemas they were written by.
    if (outcome.status !== 200) return { ok: false, problem: storedProblemSchema.parse(JSON.parse(outcome.body)) };
    const envelope = outcome.envelope ?? executeResponseSchema.parse(JSON.parse(outcome.body));
    const reply = typeof envelope.output.result.reply === 'string' ? envelope.output.result.reply : '';
    return { ok: true, envelope, reply, replayed: outcome.replayed, domainChoice };
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.options.headers) c.set('executionHeaders', error.options.headers);
      return { ok: false, problem: problemOf(c, error) };
    }
    throw error;
  }
}

/**
 * An answer with the headers of the execution it carried (RateLimit-*, or Retry-After), so an MCP
 * or A2A caller can pace itself as an /api/execute caller does (calls that ran no execution, such
 * as initialize or a malformed message, carry none), and never cached: each answer is one
 * caller's.
 */
export function withExecutionHeaders(c: Context<AppEnv>, response: Response): Response {
  const extra = c.var.executionHeaders;
  const headers = new Headers(response.headers);
  headers.set('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** A 405 for the methods a stateless JSON-RPC endpoint does not serve (no GET stream, no session to DELETE). */
export function postOnly(c: Context<AppEnv>): Response {
  return problemResponse(
    c,
    new ApiError('method_not_allowed', `${c.req.path} takes POST only.`, { headers: { Allow: 'POST' } }),
  );
}
