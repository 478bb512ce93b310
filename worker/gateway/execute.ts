/** POST /api/execute: a thin adapter from the HTTP request to the platform core's execution pipeline. */
import { createRoute, type RouteConfigToTypedResponse } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../env';
import { newApp, validationError } from '../lib/app';
import { parseJsonBody, readJsonBody } from '../lib/body';
import { ApiError, fieldErrorsFromZod, type ErrorCode } from '../lib/errors';
import { problemResponses } from '../lib/openapi';
import type { RateLimitOutcome } from '../lib/rate-limit';
import { requireActor, requireBearer } from '../platform/identity';
import {
  apiSource,
  executeRequestSchema,
  executeResponseSchema,
  type ExecuteRequest,
  type ExecutionContext,
  type ExecutionOutcome,
  requestFingerprint,
  runExecution,
} from '../platform/core';

/** The route contract of the specification’s "Gateway", carried into the OpenAPI description as x- extensions. */
export const executeRouteContract = {
  'x-route-id': 'brain.execute',
  'x-auth': 'admin_or_api_key',
  'x-security-scheme': 'bearerAuth',
  'x-surface': 'gateway',
  'x-stability': 'phase1_gateway',
  'x-public-phase': 'phase 1',
} as const;

/**
 * The order of checks (docs/design/execution.md): these refusals come before the workspace check, so a
 * request refused with one on a cached key is re-verified for the key's 401 alone.
 */
const REFUSED_BEFORE_TENANT_CHECK = new Set<ErrorCode>([
  'malformed_json',
  'validation_failed',
  'unsupported_execution_mode',
  'key_mismatch',
]);

export const executeRoute = createRoute({
  method: 'post',
  path: '/api/execute',
  operationId: 'execute',
  tags: ['Gateway'],
  summary: 'Run one synchronous execution',
  description:
    'Checks run in a fixed order: content type and size, bearer, body, key_id, admission (scopes), rate limit and ' +
    'quota, idempotency, then execution. The answer is a completed envelope. With `agents:invoke`, the domain’s ' +
    'agents and robots answer first (`result.handled_by`, `result.output`); when none answers, the demand becomes a ' +
    'lead (`leads:write`) or the answer is 502 `agent_unavailable`.',
  security: [{ bearerAuth: [] }],
  ...executeRouteContract,
  middleware: [
    readJsonBody(),
    requireBearer('admin_or_api_key', { cachedKeys: { refusedBeforeTenantCheck: REFUSED_BEFORE_TENANT_CHECK } }),
    parseJsonBody,
  ] as const,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: executeRequestSchema,
          example: {
            domain: 'consultation',
            execution_mode: 'sync',
            required_scopes: ['execute'],
            text: 'I need help choosing a CRM.',
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'The completed execution envelope. A replay carries `Idempotent-Replayed: true`.',
      headers: {
        'X-Request-Id': {
          schema: { type: 'string' },
          description:
            'Our id of this request (`req_…`); quote it to support. Your own `request_id` comes back in ' +
            '`output.request_id`.',
        },
        'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] }, description: 'Present on a replay.' },
        'RateLimit-Limit': { schema: { type: 'integer' } },
        'RateLimit-Remaining': { schema: { type: 'integer' } },
        'RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets.' },
      },
      content: { 'application/json': { schema: executeResponseSchema } },
    },
    ...problemResponses([400, 401, 403, 409, 413, 415, 422, 429, 500, 502, 503] as const),
  },
});

/**
 * Runs one execution as the bearer's API key: /api/execute, and the MCP and A2A adapters
 * (`via`), which build the same request from their own messages. One pipeline for all three.
 */
export async function executeAsKey(
  c: Context<AppEnv>,
  body: ExecuteRequest,
  via?: ExecutionContext['via'],
  options: {
    /** Fields the caller did not send (the gateway made them up), left out of the idempotency fingerprint. */
    unsent?: Array<keyof ExecuteRequest>;
    recordWith?: ExecutionContext['recordWith'];
  } = {},
): Promise<ExecutionOutcome> {
  // The caller's request_id is echoed in output and logged beside ours, never instead of ours;
  // its trace_id joins its trace, as a traceparent header would.
  if (body.request_id) c.set('callerRequestId', body.request_id);
  if (body.trace_id) c.set('traceId', body.trace_id);
  return runExecution(
    c.var.services,
    apiSource({
      principal: {
        kind: 'api_key',
        actor: requireActor(c),
        ...(body.key_id !== undefined ? { keyId: body.key_id } : {}),
      },
      domain: body.domain,
      requiredScopes: body.required_scopes,
      ...(body.session_id !== undefined ? { sessionId: body.session_id } : {}),
      ...(body.idempotency_key !== undefined
        ? {
            idempotency: {
              key: body.idempotency_key,
              // A key belongs to the surface that first used it: an A2A retry must find its task,
              // which an /api/execute answer has none of, so the surface is part of the fingerprint.
              fingerprint: await requestFingerprint({
                ...sent(body, options.unsent),
                ...(via ? { surface: via } : {}),
              }),
            },
          }
        : {}),
    }),
    { domain: body.domain, text: body.text, structuredInput: body.structured_input, attachments: body.attachments },
    {
      outputRequestId: body.request_id ?? c.var.requestId,
      traceId: c.var.traceId,
      correlation: { projectId: body.project_id, userId: body.user_id, sessionId: body.session_id },
      ...(body.exact_bridge ? { exactBridge: body.exact_bridge } : {}),
      ...(via ? { via } : {}),
      ...(options.recordWith ? { recordWith: options.recordWith } : {}),
    },
  );
}

/** The request as its caller sent it: without the fields the gateway made up for it. */
function sent(body: ExecuteRequest, unsent: Array<keyof ExecuteRequest> = []): ExecuteRequest {
  const copy = { ...body };
  for (const field of unsent) delete copy[field];
  return copy;
}

/** An `execution_mode` other than `sync` has its own code (docs/design/execution.md, step 3). */
function executeValidationError(error: z.ZodError, input: unknown): ApiError {
  const mode =
    typeof input === 'object' && input !== null ? (input as Record<string, unknown>).execution_mode : undefined;
  const errors = fieldErrorsFromZod(error);
  if (typeof mode === 'string' && mode !== 'sync' && errors.some((entry) => entry.pointer === '/execution_mode')) {
    return new ApiError('unsupported_execution_mode', `execution_mode "${mode}" is not supported; use "sync".`, {
      errors,
    });
  }
  return validationError(error);
}

/** The key's rate-limit window after an execution, as every execute caller is told it. */
export function rateLimitHeaders(rateLimit: RateLimitOutcome): Record<string, string> {
  return {
    'RateLimit-Limit': String(rateLimit.limit),
    'RateLimit-Remaining': String(rateLimit.remaining),
    'RateLimit-Reset': String(rateLimit.resetSeconds),
  };
}

/** The gateway's execute route. */
export function executeRoutes() {
  const app = newApp('problem');
  app.openapi(
    executeRoute,
    async (c) => {
      const outcome = await executeAsKey(c, c.req.valid('json'));
      const headers = new Headers({
        'Content-Type': 'application/json',
        'Cache-Control': 'no-store',
        ...rateLimitHeaders(outcome.rateLimit),
      });
      if (outcome.replayed) headers.set('Idempotent-Replayed', 'true');
      // The body is already JSON text (a replay must send the stored bytes unchanged), so it is
      // returned as is; its shape is executeResponseSchema by construction.
      return new Response(outcome.body, { status: outcome.status, headers }) as unknown as RouteConfigToTypedResponse<
        typeof executeRoute
      >;
    },
    (result, c): undefined => {
      if (!result.success) throw executeValidationError(result.error, c.var.jsonBody);
      return undefined;
    },
  );
  return app;
}
