/** The steps every way of signing in ends with: the session, its event, and where to land. */
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { clock } from '../../lib/clock';
import {
  createSession,
  listMemberships,
  pendingSignInToken,
  pendingSignInUser,
  readPendingSignIn,
  spendPendingSignIn,
  readSessionToken,
  revokeSession,
  recordSignIn,
  setSessionCookie,
  type SessionUser,
} from '../../platform/identity';
import { providerOf } from '../../platform/providers';
import { linkSecret, placeOf } from './settings';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

/** The cookie of a pending sign-in: the password done, the second factor not yet. */
const PENDING_COOKIE = 'egw_pending';

/** After the password, for an account with a second factor: a signed 5-minute pending sign-in. */
export async function startPendingSignIn(c: Context<AppEnv>, userId: string): Promise<void> {
  setCookie(c, PENDING_COOKIE, await pendingSignInToken(linkSecret(c), userId, clock.now()), {
    httpOnly: true,
    secure: new URL(c.req.url).protocol === 'https:',
    sameSite: 'Lax',
    path: '/auth',
    maxAge: 300,
  });
}

/** The account of this browser's pending sign-in, when it holds a genuine one that has not ended. */
export function pendingSignIn(c: Context<AppEnv>): Promise<string | undefined> {
  return readPendingSignIn(c.var.db, linkSecret(c), getCookie(c, PENDING_COOKIE), clock.now());
}

/** Finishes a pending sign-in whose second factor was given: it is spent, and its session starts. */
export async function finishPendingSignIn(c: Context<AppEnv>, userId: string): Promise<SessionUser | undefined> {
  const user = await pendingSignInUser(c.var.db, userId);
  if (!user) return undefined;
  if (!(await spendPendingSignIn(c.var.db, getCookie(c, PENDING_COOKIE), clock.now()))) return undefined;
  deleteCookie(c, PENDING_COOKIE, { path: '/auth' });
  await startSession(c, user);
  return user;
}

/** Where a user lands after signing in when no (safe) return_to is given. */
export async function landingFor(c: Context<AppEnv>, user: SessionUser): Promise<string> {
  if (user.role === 'provider') {
    const provider = await providerOf(c.var.db, user.id);
    if (provider?.status !== 'active') return '/provider/onboarding';
    return provider.kind === 'expert' ? '/provider/workbench' : '/provider/operations';
  }
  if ((await listMemberships(c.var.db, user.id)).length > 0) return '/integrations';
  return user.isPlatformAdmin ? '/admin/providers' : '/onboarding/workspace';
}

/**
 * Starts a session for a user who proved who they are (the old one of this browser ended), and
 * records it. A sign-in from a device the account has not signed in from before is emailed to its
 * owner (not the first one, at sign-up): a stolen password used elsewhere is noticed.
 */
export async function startSession(c: Context<AppEnv>, user: SessionUser): Promise<void> {
  // A new token at every sign-in; the session the browser held before is ended.
  const previous = readSessionToken(c);
  if (previous) await revokeSession(c.var.db, previous);
  const where = placeOf(c);
  const now = clock.now();
  const session = await createSession(c.var.db, user.id, now, where);
  await recordSignIn(c.var.db, { userId: user.id, where, linkOrigin: c.var.services.mail.linkOrigin }, now);
  setSessionCookie(c, session.token, session.expiresAt);
}
