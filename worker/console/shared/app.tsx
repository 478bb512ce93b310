/** @jsxImportSource hono/jsx */
/** The console's route groups: the platform's error model, with errors shown as the console's pages. */
import type { Context } from 'hono';
import { type ErrorPages, newApp } from '../../lib/app';
import type { AppEnv } from '../../env';
import type { ApiError } from '../../lib/errors';
import { ErrorPage, NotFoundPage } from './not-found';
import { pageSecurityHeaders } from './security';

/** Errors on pages are pages: the same status and message, in HTML, with the request id. */
export const consoleErrorPages: ErrorPages = {
  error(c: Context<AppEnv>, error: ApiError) {
    for (const [name, value] of Object.entries(error.options.headers ?? {})) c.header(name, value);
    if (error.status === 404) return c.html(<NotFoundPage path={new URL(c.req.url).pathname} />, 404);
    return c.html(
      <ErrorPage title={error.title} detail={error.detail} requestId={c.var.requestId} />,
      error.status as 400,
    );
  },
  notFound(c: Context<AppEnv>, path: string) {
    return c.html(<NotFoundPage path={path} />, 404);
  },
};

/** A route group of pages: its errors are the console's error pages. */
export function newPageApp() {
  const app = newApp('page', consoleErrorPages);
  app.use('*', pageSecurityHeaders);
  return app;
}
