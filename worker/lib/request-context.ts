import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import { urlsFollowHost, type AppEnv } from '../env';
import type { Database, QueryCounter } from './db';
import { getCookie, setCookie } from 'hono/cookie';
import { BOOKMARK_COOKIE, BOOKMARK_COOKIE_SECONDS, BOOKMARK_HEADER, bookmarkFrom } from './d1-sessions';
import { newId, newTraceId, traceIdFromTraceparent } from './ids';
import { buildServices } from './services';
import { clock } from './clock';

/** One structured line per request. Never put a token, password or contact detail in here. */
export interface RequestLogLine {
  level: 'info' | 'warn' | 'error';
  message: 'request';
  request_id: string;
  /** The caller's own correlation id, when an execute body sent one. */
  caller_request_id?: string;
  trace_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  actor_kind: 'admin' | 'api_key' | 'user' | 'anonymous';
  key_id: string | null;
  /** The console user, for requests made with a session. */
  user_id: string | null;
  d1_round_trips: number;
  d1_statements: number;
}

/** Writes one structured log line (JSON on stdout, which Workers Logs collects). */
export function logLine(line: object): void {
  console.log(JSON.stringify(line));
}

/**
 * Caching rules that hold for every response, decided in one place:
 * - an error is never stored;
 * - while platform URLs follow the Host header, a response marked `public` (which may embed
 *   such URLs) is downgraded to `private` and varies on Host, so no shared cache hands one
 *   host's links to another.
 */
function applyCachingRules(c: Context<AppEnv>): void {
  const cacheControl = c.res.headers.get('Cache-Control');
  if (c.res.status >= 400 && !cacheControl) c.header('Cache-Control', 'no-store');
  if (cacheControl?.includes('public') && c.var.settings && urlsFollowHost(c.var.settings)) {
    c.header('Cache-Control', cacheControl.replace('public', 'private'));
    c.header('Vary', 'Host', { append: true });
  }
}

declare module 'hono' {
  interface ContextVariableMap {
    /**
     * The request's reads that decide nothing (docs/design/scale.md): a replica's session, at least
     * as new as the caller's bookmark, read-only; the primary's on routes that decide.
     */
    reads: Database;
  }
}

/** `__Host-` on https, as the session cookie (identity/sessions.ts). */
const bookmarkCookieName = (c: Context) =>
  new URL(c.req.url).protocol === 'https:' ? `__Host-${BOOKMARK_COOKIE}` : BOOKMARK_COOKIE;

/**
 * Hands the newest bookmark back: in a header (the widget keeps it beside the visitor's token and
 * sends it with its next read), and, after a console form changed something, in a short cookie, so
 * the page it lands on reads at least that change.
 */
function handBackBookmark(c: Context<AppEnv>, bookmark: string | null): void {
  if (!bookmark) return;
  c.header(BOOKMARK_HEADER, bookmark);
  if (c.req.method === 'POST' && c.res.status >= 300 && c.res.status < 400)
    setCookie(c, bookmarkCookieName(c), bookmark, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      secure: new URL(c.req.url).protocol === 'https:',
      maxAge: BOOKMARK_COOKIE_SECONDS,
    });
}

/**
 * Builds the request's services (its database, settings, limits… lib/services.ts) and sets them,
 * with the request and trace ids, for the rest of the chain; writes the request log line and the
 * X-Request-Id header once everything else has run.
 */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const startedAt = clock.now();
  const counter: QueryCounter = { roundTrips: 0, statements: 0 };
  c.set('requestId', newId('req'));
  c.set('traceId', traceIdFromTraceparent(c.req.header('traceparent')) ?? newTraceId());
  try {
    const services = buildServices(c.env, {
      kind: 'request',
      url: c.req.url,
      requestId: c.var.requestId,
      traceId: c.var.traceId,
      counter,
      readAfter: bookmarkFrom(c.req.header(BOOKMARK_HEADER) ?? getCookie(c, bookmarkCookieName(c))),
    });
    c.set('services', services);
    c.set('settings', services.settings);
    c.set('db', services.db);
    c.set('reads', services.reads);
    await next();
    handBackBookmark(c, services.bookmark());
  } finally {
    applyCachingRules(c);
    c.header('X-Request-Id', c.var.requestId);
    if (c.var.settings?.EXPOSE_DB_METRICS) {
      c.header('X-D1-Replica-Queries', `${counter.replicaRoundTrips ?? 0}`);
      c.header('X-D1-Queries', `${counter.roundTrips}`);
      c.header('X-D1-Statements', `${counter.statements}`);
      c.header('X-D1-Rows-Read', `${counter.rowsRead ?? 0}`);
    }
    const actor = c.var.actor;
    const status = c.res.status;
    const line: RequestLogLine = {
      level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info',
      message: 'request',
      request_id: c.var.requestId,
      ...(c.var.callerRequestId ? { caller_request_id: c.var.callerRequestId } : {}),
      trace_id: c.var.traceId,
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status,
      duration_ms: clock.now() - startedAt,
      actor_kind: actor?.kind ?? (c.var.user ? 'user' : 'anonymous'),
      key_id: actor?.kind === 'api_key' ? actor.key.id : null,
      user_id: c.var.user?.id ?? null,
      d1_round_trips: counter.roundTrips,
      d1_statements: counter.statements,
    };
    logLine(line);
  }
});
