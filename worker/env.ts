import { z } from 'zod';
import type { Actor } from './lib/auth';
import type { Database } from './lib/db';
import type { SessionUser } from './lib/sessions';
import type { ActiveChannel } from './platform/channels/service';
import type { WorkspaceAccess } from './platform/workspace-access';

/** Bindings and vars as wrangler.toml and .dev.vars declare them. */
export interface Bindings {
  DB: D1Database;
  BASE_URL?: string;
  CONSOLE_URL?: string;
  AUTH_URL?: string;
  DEFAULT_RATE_LIMIT_PER_MINUTE?: string;
  /** Intake requests per minute per channel and client IP. */
  INTAKE_RATE_LIMIT_PER_MINUTE?: string;
  /** Server-side secret mixed into every password hash (secret). */
  PASSWORD_PEPPER?: string;
  /** Bootstrap administrator token (secret). */
  ADMIN_TOKEN?: string;
  /** Set by `npm run bench` only: adds X-D1-Queries to every response. */
  EXPOSE_DB_METRICS?: string;
}

const optionalUrl = z
  .string()
  .optional()
  .transform((value) => (value ? value.replace(/\/+$/, '') : undefined))
  .pipe(z.url().optional());

const settingsSchema = z.object({
  BASE_URL: optionalUrl,
  CONSOLE_URL: optionalUrl,
  AUTH_URL: optionalUrl,
  DEFAULT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  INTAKE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(30),
  ADMIN_TOKEN: z
    .string()
    .min(24, 'ADMIN_TOKEN must be at least 24 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PASSWORD_PEPPER: z.string().min(16, 'PASSWORD_PEPPER must be at least 16 characters').optional(),
  EXPOSE_DB_METRICS: z
    .string()
    .optional()
    .transform((value) => value === '1' || value === 'true'),
});

export type Settings = z.infer<typeof settingsSchema>;

const settingsCache = new WeakMap<object, Settings>();

/**
 * Parses the environment once per isolate and env object. A misconfigured deployment fails
 * loudly on its first request (as a 500 problem without details) rather than behaving oddly.
 */
export function readSettings(env: Bindings): Settings {
  let settings = settingsCache.get(env);
  if (!settings) {
    settings = settingsSchema.parse(env);
    settingsCache.set(env, settings);
  }
  return settings;
}

/** Public addresses of the platform, resolved against the request's own origin. */
export interface PlatformUrls {
  baseUrl: string;
  consoleUrl: string;
  authUrl: string;
}

export function resolvePlatformUrls(settings: Settings, requestUrl: string): PlatformUrls {
  const ownOrigin = new URL(requestUrl).origin;
  const baseUrl = settings.BASE_URL ?? ownOrigin;
  const consoleUrl = settings.CONSOLE_URL ?? ownOrigin;
  return { baseUrl, consoleUrl, authUrl: settings.AUTH_URL ?? `${consoleUrl}/auth` };
}

/**
 * Whether some platform URL is taken from the request's Host header (BASE_URL or CONSOLE_URL
 * unset). Responses that embed such a URL must then not be shared by caches across hosts.
 */
export function urlsFollowHost(settings: Settings): boolean {
  return !settings.BASE_URL || !settings.CONSOLE_URL;
}

export interface Variables {
  /** Our own id of this request (`req_…`): X-Request-Id and the log line's request_id, always. */
  requestId: string;
  /** The caller's own `request_id` from an execute body: echoed in output, logged as its own field. */
  callerRequestId?: string;
  traceId: string;
  settings: Settings;
  db: Database;
  /** Set by bearer authentication on protected routes. */
  actor?: Actor;
  /** Set on the public widget routes once the channel and origin are admitted. */
  channel?: ActiveChannel;
  /** The page origin a public widget request comes from (undefined: not a browser page). */
  pageOrigin?: string;
  /** The signed-in console user, when the request carries a valid session cookie. */
  user?: SessionUser;
  /** Set on platform-core routes: the workspace acted on. */
  workspace?: WorkspaceAccess;
  /** The parsed JSON request body (parseJsonBody), for error messages about it. */
  jsonBody?: unknown;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
