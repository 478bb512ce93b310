/**
 * Console sessions, following the Lucia guide: the cookie holds a random 256-bit token, D1 keeps
 * only its SHA-256. Expiry slides (a session in use is extended), the token is new at every
 * sign-in, and sign-out deletes the row, so a copied cookie stops working at once.
 */
import { and, desc, eq, gt, lt, ne, sql, type SQL } from 'drizzle-orm';
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

export type SessionUser = Pick<
  typeof users.$inferSelect,
  'id' | 'email' | 'role' | 'isPlatformAdmin' | 'emailVerifiedAt'
>;

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

/** Where a session was opened, as its owner sees it: the browser and system, and the country. */
export interface SessionPlace {
  device: string | null;
  place: string | null;
}

/** A new session for the user: a fresh random token, of which D1 keeps only the hash. */
export async function createSession(
  db: Database,
  userId: string,
  now = clock.now(),
  where: SessionPlace = { device: null, place: null },
): Promise<{ token: string; expiresAt: number }> {
  const token = base58(crypto.getRandomValues(new Uint8Array(32)));
  const expiresAt = now + SESSION_TTL_MS;
  await db
    .insert(userSessions)
    .values({ tokenHash: await sha256Hex(token), userId, createdAt: now, expiresAt, ...where, lastSeenAt: now });
  return { token, expiresAt };
}

/** How often a session's last use is written: at most once in this long. */
export const LAST_SEEN_EVERY_MS = 10 * 60 * 1000;

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
      lastSeenAt: userSessions.lastSeenAt,
      id: users.id,
      email: users.email,
      role: users.role,
      isPlatformAdmin: users.isPlatformAdmin,
      emailVerifiedAt: users.emailVerifiedAt,
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
  const { expiresAt, lastSeenAt, ...user } = row;
  let session: ValidSession = { user, expiresAt, renewed: false };
  const renew = expiresAt - now < SESSION_RENEW_WITHIN_MS;
  if (renew || (lastSeenAt ?? 0) < now - LAST_SEEN_EVERY_MS) {
    const renewed = renew ? now + SESSION_TTL_MS : expiresAt;
    await db
      .update(userSessions)
      .set({ expiresAt: renewed, lastSeenAt: now })
      .where(eq(userSessions.tokenHash, tokenHash));
    session = { user, expiresAt: renewed, renewed: renew };
  }
  return { ...session, companion: companionResult as never };
}

/** Ends a session at once (sign-out, or the old session at sign-in). */
export async function revokeSession(db: Database, token: string): Promise<void> {
  await db.delete(userSessions).where(eq(userSessions.tokenHash, await sha256Hex(token)));
}

/**
 * Sets the session cookie: HttpOnly, SameSite=Lax, and Secure with the __Host- prefix on https. Its
 * lifetime is a Max-Age from the platform's clock, so neither the browser's clock nor a test's
 * moved clock makes it end early or late.
 */
export function setSessionCookie(c: Context, token: string, expiresAt: number): void {
  setCookie(c, sessionCookieName(c), token, {
    httpOnly: true,
    secure: isSecure(c),
    sameSite: 'Lax',
    path: '/',
    maxAge: Math.max(0, Math.floor((expiresAt - clock.now()) / 1000)),
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

/** The first characters of a session's hash: how its owner's page names it (never the token). */
const sessionHandle = (tokenHash: string) => tokenHash.slice(0, 16);

/** The account's open sessions, the newest use first, marking the one of `currentToken`. */
export async function listSessions(db: Database, userId: string, currentToken: string | undefined, now = clock.now()) {
  const current = currentToken ? await sha256Hex(currentToken) : '';
  const rows = await db
    .select()
    .from(userSessions)
    .where(and(eq(userSessions.userId, userId), gt(userSessions.expiresAt, now)))
    .orderBy(desc(userSessions.lastSeenAt));
  return rows.map((row) => ({
    handle: sessionHandle(row.tokenHash),
    device: row.device,
    place: row.place,
    createdAt: row.createdAt,
    lastSeenAt: row.lastSeenAt ?? row.createdAt,
    current: row.tokenHash === current,
  }));
}

/** Ends one of the account's sessions by its handle (another account's is never matched). */
export async function revokeSessionByHandle(db: Database, userId: string, handle: string): Promise<boolean> {
  if (!/^[0-9a-f]{16}$/.test(handle)) return false;
  const ended = await db
    .delete(userSessions)
    .where(and(eq(userSessions.userId, userId), sql`substr(${userSessions.tokenHash}, 1, 16) = ${handle}`))
    .returning({ userId: userSessions.userId });
  return ended.length > 0;
}

/** Ends every session of the account but the current one; answers how many. */
export async function revokeOtherSessions(db: Database, userId: string, currentToken: string): Promise<number> {
  const current = await sha256Hex(currentToken);
  const ended = await db
    .delete(userSessions)
    .where(and(eq(userSessions.userId, userId), ne(userSessions.tokenHash, current)))
    .returning({ userId: userSessions.userId });
  return ended.length;
}

/** A browser and system in a few words, from a User-Agent ("Firefox on Windows"), or null. */
export function deviceOf(userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : /curl\//i.test(userAgent)
            ? 'curl'
            : 'A browser';
  const system = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad|iOS/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  return system ? `${browser} on ${system}` : browser;
}
