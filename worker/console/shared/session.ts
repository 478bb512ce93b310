/** Session handling for the console and auth pages: who is signed in, and where they may go next. */
import type { Context, MiddlewareHandler } from 'hono';
import { csrf } from 'hono/csrf';
import { createMiddleware } from 'hono/factory';
import { HTTPException } from 'hono/http-exception';
import { consoleOrigin, resolvePlatformUrls, type AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import {
  clearSessionCookie,
  hasSecondFactor,
  readSessionToken,
  setSessionCookie,
  validateSession,
} from '../../platform/identity';
import { requireFormBody } from './form-input';

/** Reads the session cookie, if any; renews the cookie when the session slid forward. */
export const loadSession = createMiddleware<AppEnv>(async (c, next) => {
  const token = readSessionToken(c);
  if (token) {
    const session = await validateSession(c.var.db, token);
    if (session) {
      c.set('user', session.user);
      if (session.renewed) setSessionCookie(c, token, session.expiresAt);
    } else {
      clearSessionCookie(c);
    }
  }
  await next();
});

/** Console pages: a signed-in user, else the sign-in page with a way back. Never cached. */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  c.header('Cache-Control', 'no-store');
  if (!c.var.user) {
    const url = new URL(c.req.url);
    return c.redirect(`/auth/sign-in?return_to=${encodeURIComponent(url.pathname + url.search)}`, 303);
  }
  await next();
});

/**
 * The platform's admin pages (docs/design/identity-and-access.md#second-factor): a platform
 * administrator with a second factor. Without one, a page opens the security page to set it up
 * and a change is refused (403 `second_factor_required`); anyone else gets 403.
 */
export const requirePlatformAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const user = currentUser(c);
  if (!user.isPlatformAdmin) throw new ApiError('admin_required', 'This page is for platform administrators.');
  if (!(await hasSecondFactor(c.var.db, user.id))) {
    if (c.req.method === 'GET') return c.redirect('/account/security?notice=admin_factor', 303);
    throw new ApiError(
      'second_factor_required',
      'Platform administrators turn on two-step sign-in first, on the account security page.',
    );
  }
  await next();
});

/** The signed-in user (requireUser ran before). */
export function currentUser(c: Context<AppEnv>) {
  const user = c.get('user');
  if (!user) throw new ApiError('session_required', 'Sign in first.');
  return user;
}

const RETURN_BASE = 'https://console.invalid';

/** A path that a browser would read as another host (`//host`, `/\\host`), or that leaves the site. */
function leavesSite(path: string): boolean {
  return !path.startsWith('/') || path.startsWith('//') || path.includes('\\');
}

/**
 * Where to go after signing in: a path on this site only. The decision is made on the form the
 * browser will follow, after URL normalisation (dot segments resolved), and that form is checked
 * again before it is returned. Anything that could leave the site falls back to the default:
 * `//host` and `/\\host` however spelled, schemes, control characters and spaces (which URL
 * parsing would strip), and percent-encoded dots, slashes and backslashes (our own paths never
 * contain them, and some clients decode them).
 */
export function safeReturnTo(value: string | undefined | null, fallback: string): string {
  if (!value || leavesSite(value)) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(value)) return fallback;
  if (/%(2e|2f|5c|25|0[0-9a-f]|1[0-9a-f]|7f)/i.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, RETURN_BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== RETURN_BASE) return fallback;
  const normalised = url.pathname + url.search + url.hash;
  if (leavesSite(normalised) || normalised === '/auth' || normalised.startsWith('/auth/')) return fallback;
  return normalised;
}

const honoCsrf = csrf({
  origin: (origin, c) => origin === consoleOrigin(resolvePlatformUrls(c.var.settings, c.req.url)),
});

/** Hono's csrf check against the console origin; its refusal is our `csrf_rejected` (and only its). */
const sameOriginChanges: MiddlewareHandler<AppEnv> = async (c, next) => {
  try {
    await honoCsrf(c, async () => {});
  } catch (error) {
    if (error instanceof HTTPException && error.status === 403) {
      throw new ApiError('csrf_rejected', 'This change must come from a page of the console (its Origin).');
    }
    throw error;
  }
  await next();
};

/** The csrf check against the console origin, and forms only on POST (the page headers are the group's). */
export const pageGuards: MiddlewareHandler<AppEnv>[] = [sameOriginChanges, requireFormBody];

/** Everything a signed-in console page runs first: the page guards, the session, a signed-in user. */
export const consolePageGuards: MiddlewareHandler<AppEnv>[] = [...pageGuards, loadSession, requireUser];
