import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import { resolvePlatformUrls, type AppEnv } from './env';
import { ApiError, fieldErrorsFromZod, problemBody, type ErrorCode } from './lib/errors';
import { logLine } from './lib/request-context';
import { NotFoundPage } from './console/not-found';
import { setPageSecurityHeaders } from './console/security';

/** Turns a failed zod parse of a request into the 422 problem, one entry per field. */
export function validationError(error: z.ZodError, input: unknown): ApiError {
  const errors = fieldErrorsFromZod(error);
  const mode = typeof input === 'object' && input !== null ? (input as Record<string, unknown>).execution_mode : undefined;
  if (typeof mode === 'string' && mode !== 'sync' && errors.some((entry) => entry.pointer === '/execution_mode')) {
    return new ApiError('unsupported_execution_mode', `execution_mode "${mode}" is not supported; use "sync".`, {
      errors,
    });
  }
  const fields = [...new Set(errors.map((entry) => entry.pointer || '(body)'))].join(', ');
  return new ApiError('validation_failed', `The request is not valid: ${fields}.`, { errors });
}

export function problemResponse(c: Context<AppEnv>, error: ApiError): Response {
  const docsBase = c.var.settings ? resolvePlatformUrls(c.var.settings, c.req.url).baseUrl : new URL(c.req.url).origin;
  const body = problemBody(error, c.var.requestId ?? 'req_unknown', docsBase);
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { 'Content-Type': 'application/problem+json', ...error.options.headers },
  });
}

const HTTP_EXCEPTION_CODES: Record<number, ErrorCode> = {
  400: 'malformed_json',
  401: 'invalid_token',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    const code = HTTP_EXCEPTION_CODES[error.status];
    if (code) return new ApiError(code, error.message || 'The request could not be processed.');
  }
  return undefined;
}

/** A Hono app with the platform's error model; every route group is built with it. */
export function newApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const input = result.target === 'json' ? c.var.jsonBody : undefined;
        throw validationError(result.error, input);
      }
    },
  });

  app.onError((error, c) => {
    const known = toApiError(error);
    if (known) return problemResponse(c, known);
    // Unexpected: log what engineers need, answer with nothing internal.
    logLine({
      level: 'error',
      message: 'unhandled_exception',
      request_id: c.var.requestId,
      error_name: error instanceof Error ? error.name : typeof error,
      error_message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return problemResponse(
      c,
      new ApiError('internal_error', 'Something went wrong on our side. Quote the request_id if you contact support.'),
    );
  });

  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    if (path === '/api' || path.startsWith('/api/')) {
      return problemResponse(c, new ApiError('not_found', `No route ${c.req.method} ${path}.`));
    }
    setPageSecurityHeaders(c);
    return c.html(<NotFoundPage path={path} />, 404);
  });

  return app;
}
