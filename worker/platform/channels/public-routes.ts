/**
 * The public widget routes, each served at both addresses the spec names:
 *   /api/public/channels/{channelKey}/widget-config  and  /api/public/widget/{channel_key}/config
 * and the gate of every public channel route (intake, in gateway/intake.ts, included): the channel
 * must be active and the page origin on its lists. CORS is an exact-origin allowlist (the
 * channel's allowed and first-party origins, and the console), answered with `Vary: Origin` and
 * never `*`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { newApp } from '../../lib/app';
import { consoleOrigin, resolvePlatformUrls, type AppEnv } from '../../env';
import { sha256Hex } from '../../lib/crypto';
import { ApiError } from '../../lib/errors';
import { problemResponses } from '../../lib/openapi';
import { visitorThread, visitorThreadSchema } from '../conversations';
import { publicWidgetConfigSchema } from './schemas';
import {
  findActiveChannel,
  findActiveChannelForIntake,
  isOriginAllowed,
  publicWidgetConfig,
  reverifyCachedChannel,
  type ActiveChannel,
} from './service';

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

/**
 * Admits a public widget request: the channel must be active, and the page origin on its list.
 * Afterwards, every answer (errors too) carries the exact origin, so the widget can read it.
 */
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
    const read = options.forIntake
      ? await findActiveChannelForIntake(c.var.db, channelKey)
      : { value: await findActiveChannel(c.var.db, channelKey), fromCache: false };
    c.set('channel', admit(read.value));
    c.set('pageOrigin', origin);
    c.set('channelOriginToGuard', origin === undefined || origin === consoleOrigin(urls) ? null : origin);
    await next();
    // A disabled channel or a removed origin gets its own answer (404 or 403) whatever the cache held.
    const refused = await reverifyCachedChannel(c.var.db, read, channelKey, c.error, admit);
    if (refused) throw refused;
    const requestOrigin = c.req.header('Origin');
    if (requestOrigin) {
      c.header('Access-Control-Allow-Origin', requestOrigin);
      c.header('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After, ETag');
    }
    c.header('Vary', 'Origin');
  });
}

/** The channel that channelGate admitted. */
export function admittedChannel(c: Context<AppEnv>) {
  const channel = c.get('channel');
  if (!channel) throw new Error('channelGate must run before this handler');
  return channel;
}

/** The two addresses of each public channel route (SPEC.md names both). */
export interface PublicPaths {
  param: string;
  config: string;
  intake: string;
  /** The visitor's thread (PRODUCT.md section 11). */
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
export function publicWidgetRoutes() {
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
        middleware: [channelGate(paths.param, { requireOrigin: false })],
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
        const config = publicWidgetConfig(
          admittedChannel(c),
          resolvePlatformUrls(c.var.settings, c.req.url),
          c.var.pageOrigin,
        );
        const body = JSON.stringify(config);
        const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`;
        c.header('ETag', etag);
        c.header('Cache-Control', 'public, max-age=60, stale-while-revalidate=300');
        if (c.req.header('If-None-Match') === etag) return c.body(null, 304);
        return c.body(body, 200, { 'Content-Type': 'application/json' });
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
        middleware: [channelGate(paths.param, { requireOrigin: false })],
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
        const thread = await visitorThread(c.var.db, admittedChannel(c).id, token, after, readUpTo);
        return c.json(thread, 200);
      },
    );

    // CORS preflight: only for admitted origins.
    for (const path of [paths.config, paths.intake, paths.messages, paths.liveTicket]) {
      app.options(honoPath(path), channelGate(paths.param, { requireOrigin: true }), (c) => {
        c.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        c.header('Access-Control-Allow-Headers', 'Content-Type, Authorization');
        c.header('Access-Control-Max-Age', '600');
        return c.body(null, 204);
      });
    }
  }
  return app;
}
