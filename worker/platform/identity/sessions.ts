/**
 * Console sessions, following the Lucia guide: the cookie holds a random 256-bit token, D1 keeps
 * only its SHA-256. Expiry slides (a session in use is extended), the token is new at every
 * sign-in, and sign-out deletes the row, so a copied cookie stops working at once.
 */
import { eq, lt, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { base58, sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';
import { clock } from '../../lib/clock';

const { userSessions, users } = schema;

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A session is extended once less than this is left, so most requests write nothing. */
export const SESSION_RENEW_WITHIN_MS = 15 * 24 * 60 * 60 * 1000;

export type SessionUser = Pick<typeof users.$inferSelect, 'id' | 'email' | 'role' | 'isPlatformAdmin'>;

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
export async function createSession(
  db: Database,
  userId: string,
  now = clock.now(),
): Promise<{ token: string; expiresAt: number }> {
  const token = base58(crypto.getRandomValues(new Uint8Array(32)));
  const expiresAt = now + SESSION_TTL_MS;
  await db.insert(userSessions).values({ tokenHash: await sha256Hex(token), userId, createdAt: now, expiresAt });
  return { token, expiresAt };
}

export interface ValidSession {
  user: SessionUser;
  expiresAt: number;
  renewed: boolean;
}

/** The user of the session a token names, whoever's user id a companion query may look up by. */
const sessionUserId = (tokenHash: string) =>
  sql`(SELECT ${userSessions.userId} FROM ${userSessions} WHERE ${userSessions.tokenHash} = ${tokenHash})`;

/**
 * The session's user, extending the session when it is past half its life; undefined when
 * invalid. A `companion` query, built on the session's user id, is read in the same round trip
 * (the provider routes read the provider record this way).
 */
export async function validateSession<C extends BatchItem<'sqlite'> = never>(
  db: Database,
  token: string,
  now = clock.now(),
  companion?: (userId: SQL) => C,
): Promise<(ValidSession & { companion: C extends { _: { result: infer R } } ? R : Awaited<C> }) | undefined> {
  const tokenHash = await sha256Hex(token);
  const sessionQuery = db
    .select({
      expiresAt: userSessions.expiresAt,
      id: users.id,
      email: users.email,
      role: users.role,
      isPlatformAdmin: users.isPlatformAdmin,
    })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .where(eq(userSessions.tokenHash, tokenHash));
  const [rows, companionResult] = companion
    ? await db.batch([sessionQuery, companion(sessionUserId(tokenHash))])
    : [await sessionQuery, undefined];
  const row = rows[0];
  if (!row) return undefined;
  if (row.expiresAt <= now) {
    await db.delete(userSessions).where(eq(userSessions.tokenHash, tokenHash));
    return undefined;
  }
  const { expiresAt, ...user } = row;
  let session: ValidSession = { user, expiresAt, renewed: false };
  if (expiresAt - now < SESSION_RENEW_WITHIN_MS) {
    const renewed = now + SESSION_TTL_MS;
    await db.update(userSessions).set({ expiresAt: renewed }).where(eq(userSessions.tokenHash, tokenHash));
    session = { user, expiresAt: renewed, renewed: true };
  }
  return { ...session, companion: companionResult as never };
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

/** Housekeeping: deletes the sessions that have ended. */
export function purgeEndedSessions(db: Database, now: number) {
  return db.delete(userSessions).where(lt(userSessions.expiresAt, now));
}
