/**
 * Console sessions, following the Lucia guide: the cookie holds a random 256-bit token, D1 keeps
 * only its SHA-256. Expiry slides (a session in use is extended), the token is new at every
 * sign-in, and sign-out deletes the row, so a copied cookie stops working at once.
 */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { base58, sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';

const { userSessions, users } = schema;

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A session is extended once less than this is left, so most requests write nothing. */
export const SESSION_RENEW_WITHIN_MS = 15 * 24 * 60 * 60 * 1000;

export type SessionUser = Pick<typeof users.$inferSelect, 'id' | 'email' | 'role'>;

declare module 'hono' {
  interface ContextVariableMap {
    /** The signed-in console user, when the request carries a valid session cookie. */
    user: SessionUser;
  }
}

function isSecure(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:';
}

/** `__Host-` pins the cookie to this exact host over https; plain http (local dev) cannot use it. */
export function sessionCookieName(c: Context): string {
  return isSecure(c) ? '__Host-egw_session' : 'egw_session';
}

/** The session token the browser sent, if any. */
export function readSessionToken(c: Context): string | undefined {
  return getCookie(c, sessionCookieName(c));
}

/** A new session for the user: a fresh random token, of which D1 keeps only the hash. */
export async function createSession(db: Database, userId: string, now = Date.now()): Promise<{ token: string; expiresAt: number }> {
  const token = base58(crypto.getRandomValues(new Uint8Array(32)));
  const expiresAt = now + SESSION_TTL_MS;
  await db.insert(userSessions).values({ tokenHash: await sha256Hex(token), userId, createdAt: now, expiresAt });
  return { token, expiresAt };
}

/** The session's user, extending the session when it is past half its life; undefined when invalid. */
export async function validateSession(
  db: Database,
  token: string,
  now = Date.now(),
): Promise<{ user: SessionUser; expiresAt: number; renewed: boolean } | undefined> {
  const tokenHash = await sha256Hex(token);
  const row = await db
    .select({ expiresAt: userSessions.expiresAt, id: users.id, email: users.email, role: users.role })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .where(eq(userSessions.tokenHash, tokenHash))
    .get();
  if (!row) return undefined;
  if (row.expiresAt <= now) {
    await db.delete(userSessions).where(eq(userSessions.tokenHash, tokenHash));
    return undefined;
  }
  const { expiresAt, ...user } = row;
  if (expiresAt - now < SESSION_RENEW_WITHIN_MS) {
    const renewed = now + SESSION_TTL_MS;
    await db.update(userSessions).set({ expiresAt: renewed }).where(eq(userSessions.tokenHash, tokenHash));
    return { user, expiresAt: renewed, renewed: true };
  }
  return { user, expiresAt, renewed: false };
}

/** Ends a session at once (sign-out, or the old session at sign-in). */
export async function revokeSession(db: Database, token: string): Promise<void> {
  await db.delete(userSessions).where(eq(userSessions.tokenHash, await sha256Hex(token)));
}

/** Sets the session cookie: HttpOnly, SameSite=Lax, and Secure with the __Host- prefix on https. */
export function setSessionCookie(c: Context, token: string, expiresAt: number): void {
  setCookie(c, sessionCookieName(c), token, {
    httpOnly: true,
    secure: isSecure(c),
    sameSite: 'Lax',
    path: '/',
    expires: new Date(expiresAt),
  });
}

/** Removes the session cookie from the browser. */
export function clearSessionCookie(c: Context): void {
  deleteCookie(c, sessionCookieName(c), { path: '/', secure: isSecure(c) });
}
