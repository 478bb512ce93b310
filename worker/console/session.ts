/** Session handling for the console and auth pages: who is signed in, and where they may go next. */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { ApiError } from '../lib/errors';
import { clearSessionCookie, readSessionToken, setSessionCookie, validateSession } from '../lib/sessions';

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

export function currentUser(c: Context<AppEnv>) {
  const user = c.get('user');
  if (!user) throw new ApiError('session_required', 'Sign in first.');
  return user;
}

/**
 * Where to go after signing in: a path on this site only. Anything that could leave it
 * (`//host`, `/\host`, a scheme, control characters or spaces that URL parsing strips) falls
 * back to the safe default.
 */
export function safeReturnTo(value: string | undefined | null, fallback: string): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return fallback;
  if (/[\u0000-\u0020\u007f]/.test(value)) return fallback;
  try {
    const base = 'https://console.invalid';
    const url = new URL(value, base);
    if (url.origin !== base || url.pathname.startsWith('/auth/')) return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}
