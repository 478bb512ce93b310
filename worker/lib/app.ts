/**
 * The platform's error model, shared by every route group: one place turns an error into a
 * problem+json answer (machine routes) or an error page (people's pages). Each route group is
 * built with `newApp(style)` and so declares which of the two its errors are; a group of pages
 * is given the pages to render (the console's, console/shared/app.ts), so this file knows no UI.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import { resolvePlatformUrls, type AppEnv } from '../env';
import { ApiError, fieldErrorsFromZod, problemBody, type ErrorCode } from './errors';
import { logLine } from './request-context';

/** How a route group's errors look: RFC 9457 problem+json, or an HTML page. */
export type ErrorStyle = 'problem' | 'page';

/** Turns a failed zod parse of a request into the 422 problem, one entry per field. */
export function validationError(error: z.ZodError): ApiError {
  const errors = fieldErrorsFromZod(error);
  const fields = [...new Set(errors.map((entry) => entry.pointer || '(body)'))].join(', ');
  return new ApiError('validation_failed', `The request is not valid: ${fields}.`, { errors });
}

/** The problem+json response of an error, its `type` pointing at the docs. */
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
  403: 'forbidden',
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

/** How a group of pages shows an error, and a path that does not exist. */
export interface ErrorPages {
  error(c: Context<AppEnv>, error: ApiError): Response | Promise<Response>;
  notFound(c: Context<AppEnv>, path: string): Response | Promise<Response>;
}

/** Unknown routes: problem+json under /api/ (docs/design/execution.md), an HTML page elsewhere. */
function isApiPath(c: Context<AppEnv>): boolean {
  const path = new URL(c.req.url).pathname;
  return path === '/api' || path.startsWith('/api/');
}

/**
 * A Hono app with the platform's error model; `errors` says how this group's errors look. A group
 * of pages needs `pages`; a machine group given `pages` (the root app) shows them for unknown
 * paths outside /api/.
 */
export function newApp(errors: ErrorStyle = 'problem', pages?: ErrorPages): OpenAPIHono<AppEnv> {
  if (errors === 'page' && !pages) throw new Error('a group of pages needs the pages its errors are shown on');
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
  const render = (c: Context<AppEnv>, error: ApiError) =>
    errors === 'page' && pages ? pages.error(c, error) : problemResponse(c, error);

  app.onError((error, c) => {
    // A redirect thrown as an HTTPException (console routes do) is answered as is; errors that
    // carry a bare response (Hono's csrf "Forbidden") still get our problem or error page.
    if (error instanceof HTTPException && error.res && error.status < 400) return error.getResponse();
    const known = toApiError(error);
    if (known) return render(c, known);
    // Unexpected: log what engineers need, answer with nothing internal.
    logLine({
      level: 'error',
      message: 'unhandled_exception',
      request_id: c.var.requestId,
      error_name: error instanceof Error ? error.name : typeof error,
      error_message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return render(
      c,
      new ApiError('internal_error', 'Something went wrong on our side. Quote the request_id if you contact support.'),
    );
  });

  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    if (isApiPath(c) || !pages)
      return problemResponse(c, new ApiError('not_found', `No route ${c.req.method} ${path}.`));
    return pages.notFound(c, path);
  });

  return app;
}
