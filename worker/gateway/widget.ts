/**
 * The public widget API, one family at both addresses the spec names
 * (`/api/public/channels/{channelKey}/…` and `/api/public/widget/{channel_key}/…`): the widget
 * configuration, intake (a thin adapter over the execution core, as /api/execute is), the visitor's
 * thread, their CORS preflights, and the gate every one of them passes (live tickets too): the
 * channel must be active and the page origin on its lists (the admission decision is the channels
 * module's). CORS is hono/cors with an exact-origin allowlist (the channel's allowed and first-party
 * origins, and the console), answered with `Vary: Origin` and never `*`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { cors } from 'hono/cors';
import { etag } from 'hono/etag';
import { createMiddleware } from 'hono/factory';
import { consoleOrigin, resolvePlatformUrls, type AppEnv } from '../env';
import { newApp } from '../lib/app';
import { BOOKMARK_HEADER } from '../lib/d1-sessions';
import { parseJsonBody, readJsonBody } from '../lib/body';
import { ApiError } from '../lib/errors';
import { problemResponses } from '../lib/openapi';
import {
  type ActiveChannel,
  findActiveChannel,
  findActiveChannelForIntake,
  intakeRequestSchema,
  intakeResponseSchema,
  isOriginAllowed,
  publicWidgetConfig,
  visitorLanguage,
  publicWidgetConfigSchema,
  reverifyCachedChannel,
} from '../platform/channels';
import { visitorThread, visitorThreadSchema } from '../platform/conversations';
import { runIntake } from '../platform/core';

const INTAKE_MAX_BYTES = 16 * 1024;
/** The widget configuration's ETag (a 304 to a matching If-None-Match). */
const widgetConfigEtag = etag();

const TAG = 'Widget (public)';
const BEARER = /^Bearer +(egv_[A-Za-z0-9]{1,64}) *$/i;

/** The page origin: the Origin header, or the console itself for a same-origin GET (which sends none). */
function pageOriginOf(c: Context<AppEnv>): string | undefined {
  const origin = c.req.header('Origin');
  if (origin) return origin;
  if (c.req.header('Sec-Fetch-Site') === 'same-origin')
    return consoleOrigin(resolvePlatformUrls(c.var.settings, c.req.url));
  return undefined;
}

/** Admits a public widget request: the channel must be active, and the page origin on its list. */
export function channelGate(param: string, options: { requireOrigin: boolean; forIntake?: boolean }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.header('Vary', 'Origin');
    const channelKey = c.req.param(param) ?? '';
    const origin = pageOriginOf(c);
    const urls = resolvePlatformUrls(c.var.settings, c.req.url);
    const admit = (channel: ActiveChannel | undefined) => {
      if (!channel) throw new ApiError('not_found', 'No such channel, or it is disabled.');
      if (origin === undefined ? options.requireOrigin : !isOriginAllowed(channel, urls, origin)) {
        throw new ApiError(
          'origin_not_allowed',
          'This site is not allowed to use this channel. Add its origin to the channel’s allowed origins.',
        );
      }
      return channel;
    };
    // Intake may take the channel from the cache: its execution batch guards the channel's state and origins.
    // A read of the public configuration or the thread decides nothing that a write does not check
    // again on the primary (intake's batch guards the channel): it reads the channel from a replica.
    const read = options.forIntake
      ? await findActiveChannelForIntake(c.var.db, channelKey)
      : {
          value: await findActiveChannel(c.req.method === 'GET' ? c.var.reads : c.var.db, channelKey),
          fromCache: false,
        };
    c.set('channel', admit(read.value));
    c.set('pageOrigin', origin);
    c.set('channelOriginToGuard', origin === undefined || origin === consoleOrigin(urls) ? null : origin);
    await next();
    // A disabled channel or a removed origin gets its own answer (404 or 403) whatever the cache held.
    const refused = await reverifyCachedChannel(c.var.db, read, channelKey, c.error, admit);
    if (refused) throw refused;
  });
}

/**
 * CORS for the admitted page origin only (the gate ran first): every answer, errors included, and
 * the preflight, which it answers itself (204).
 */
export const widgetCors = cors({
  origin: (origin, c) => (origin && c.get('pageOrigin') === origin ? origin : null),
  allowMethods: ['GET', 'POST', 'OPTIONS'],
  allowHeaders: ['Content-Type', 'Authorization', BOOKMARK_HEADER],
  exposeHeaders: ['X-Request-Id', 'Retry-After', 'ETag', BOOKMARK_HEADER],
  maxAge: 600,
});

/** The channel that channelGate admitted. */
export function admittedChannel(c: Context<AppEnv>) {
  const channel = c.get('channel');
  if (!channel) throw new Error('channelGate must run before this handler');
  return channel;
}

/** The two addresses of each public channel route (docs/design/channels-and-widget.md). */
export interface PublicPaths {
  param: string;
  config: string;
  intake: string;
  /** The visitor's thread (docs/design/live.md). */
  messages: string;
  /** A ticket for the visitor's live socket. */
  liveTicket: string;
  idSuffix: string;
}

export const PUBLIC_CHANNEL_PATHS: PublicPaths[] = [
  {
    param: 'channelKey',
    config: '/api/public/channels/{channelKey}/widget-config',
    intake: '/api/public/channels/{channelKey}/intake',
    messages: '/api/public/channels/{channelKey}/messages',
    liveTicket: '/api/public/channels/{channelKey}/live-ticket',
    idSuffix: '',
  },
  {
    param: 'channel_key',
    config: '/api/public/widget/{channel_key}/config',
    intake: '/api/public/widget/{channel_key}/intake',
    messages: '/api/public/widget/{channel_key}/messages',
    liveTicket: '/api/public/widget/{channel_key}/live-ticket',
    idSuffix: 'ByWidgetPath',
  },
];

const honoPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/** The public widget routes, at both addresses each. */
export function widgetRoutes() {
  const app = newApp('problem');
  for (const paths of PUBLIC_CHANNEL_PATHS) {
    const params = z.object({ [paths.param]: z.string().min(1).max(64).openapi({ example: 'ch_demo' }) });

    app.openapi(
      createRoute({
        method: 'get',
        path: paths.config,
        operationId: `getWidgetConfig${paths.idSuffix}`,
        tags: [TAG],
        summary: 'Public widget configuration of a channel',
        description:
          '`provider_entry.enabled` is resolved for the requesting page: on for first-party origins under `auto`, ' +
          'off for third-party embeds unless the channel forces it on. Cached briefly, with an ETag.',
        security: [],
        middleware: [channelGate(paths.param, { requireOrigin: false }), widgetCors, widgetConfigEtag],
        request: { params },
        responses: {
          200: {
            description: 'The configuration.',
            content: { 'application/json': { schema: publicWidgetConfigSchema } },
          },
          304: { description: 'Not modified (If-None-Match).' },
          ...problemResponses([403, 404] as const),
        },
      }),
      async (c) => {
        const channel = admittedChannel(c);
        const language = visitorLanguage(channel, {
          lang: c.req.query('lang'),
          acceptLanguage: c.req.header('Accept-Language'),
        });
        const config = publicWidgetConfig(
          channel,
          resolvePlatformUrls(c.var.settings, c.req.url),
          c.var.pageOrigin,
          language,
        );
        c.header('Cache-Control', 'public, max-age=60, stale-while-revalidate=300');
        // The language follows the browser's under `auto`: a cache keeps one answer per language.
        c.header('Vary', 'Origin, Accept-Language');
        return c.json(config, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: paths.messages,
        operationId: `getVisitorThread${paths.idSuffix}`,
        tags: [TAG],
        summary: 'The visitor’s conversation: its messages, oldest first',
        description:
          'With `Authorization: Bearer egv_…` (the `session_id` intake issued), so the thread survives a new device ' +
          'or a cleared store. At most 100 messages after `after`; `has_more` says to read again from the last. A ' +
          'session of another channel, or none, is 401 `invalid_session`. The polling fallback of the live socket.',
        security: [{ visitorSession: [] }],
        middleware: [channelGate(paths.param, { requireOrigin: false }), widgetCors],
        request: {
          params,
          query: z.object({
            after: z
              .string()
              .startsWith('msg_')
              .max(64)
              .optional()
              .openapi({ description: 'The last message you have.' }),
            read_up_to: z
              .string()
              .startsWith('msg_')
              .max(64)
              .optional()
              .openapi({
                description:
                  'The last message the visitor has seen (a read mark, for a client that polls instead of holding a ' +
                  'socket): a reply read in time is not sent again by email.',
              }),
          }),
        },
        responses: {
          200: { description: 'The thread.', content: { 'application/json': { schema: visitorThreadSchema } } },
          ...problemResponses([401, 403, 404, 422] as const),
        },
      }),
      async (c) => {
        c.header('Cache-Control', 'no-store');
        const token = BEARER.exec(c.req.header('Authorization') ?? '')?.[1];
        const { after, read_up_to: readUpTo } = c.req.valid('query');
        const thread = await visitorThread(
          c.var.db,
          admittedChannel(c).id,
          token,
          after,
          readUpTo,
          c.var.services.clock.now(),
          c.var.reads,
        );
        return c.json(thread, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'post',
        path: paths.intake,
        operationId: `submitIntake${paths.idSuffix}`,
        tags: [TAG],
        summary: 'Send a visitor message, handoff or contact details',
        description:
          'Starts or continues a visitor session and answers with the reply to show. Admission: active channel, ' +
          'allowed origin, a rate limit per channel and client, a honeypot, and 4,000 characters per message. The ' +
          'demand then runs through the same executor as /api/execute.',
        security: [],
        middleware: [
          channelGate(paths.param, { requireOrigin: true, forIntake: true }),
          widgetCors,
          readJsonBody(INTAKE_MAX_BYTES),
          parseJsonBody,
        ],
        request: {
          params,
          body: {
            required: true,
            content: {
              'application/json': {
                schema: intakeRequestSchema,
                example: { trigger: 'consultation', message: { text: 'Do you do payroll audits?' } },
              },
            },
          },
        },
        responses: {
          200: {
            description: 'What to show the visitor next.',
            content: { 'application/json': { schema: intakeResponseSchema } },
          },
          ...problemResponses([400, 403, 404, 413, 415, 422, 429, 503] as const),
        },
      }),
      async (c) => {
        const response = await runIntake(c.var.services, {
          channel: admittedChannel(c),
          request: c.req.valid('json'),
          clientIp: c.req.header('CF-Connecting-IP') ?? 'unknown',
          origin: c.var.channelOriginToGuard ?? null,
          visitor: {
            acceptLanguage: c.req.header('Accept-Language'),
            country: c.req.header('CF-IPCountry'),
          },
        });
        c.header('Cache-Control', 'no-store');
        return c.json(response, 200);
      },
    );

    // CORS preflight: only for admitted origins (hono/cors answers it).
    for (const path of [paths.config, paths.intake, paths.messages, paths.liveTicket]) {
      app.options(honoPath(path), channelGate(paths.param, { requireOrigin: true }), widgetCors);
    }
  }
  return app;
}
