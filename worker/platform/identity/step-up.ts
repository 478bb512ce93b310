/**
 * Step-up (docs/design/identity-and-access.md#step-up): what adds a way into the account (a
 * passkey, an authenticator app) asks that the session's owner proved who they are within the last
 * STEP_UP_MS: signed in, or typed the password again. A copied session cookie alone then cannot
 * plant a credential that outlives a password reset.
 */
import { eq, sql } from 'drizzle-orm';
import { sha256Hex } from '../../lib/crypto';
import { type Database, schema } from '../../lib/db';

const { userSessions } = schema;

/** How long a sign-in, or the password typed again, lets a session add credentials. */
export const STEP_UP_MS = 5 * 60 * 1000;

/** Whether the session proved its owner within STEP_UP_MS of `now`. */
export async function sessionRecentlyConfirmed(db: Database, token: string | undefined, now: number): Promise<boolean> {
  if (!token) return false;
  const row = await db
    .select({ at: sql<number>`max(${userSessions.createdAt}, coalesce(${userSessions.confirmedAt}, 0))` })
    .from(userSessions)
    .where(eq(userSessions.tokenHash, await sha256Hex(token)))
    .get();
  return row !== undefined && now - row.at < STEP_UP_MS;
}

/** Notes that the session's owner just proved who they are (typed the password again). */
export async function markSessionConfirmed(db: Database, token: string | undefined, now: number): Promise<void> {
  if (!token) return;
  await db
    .update(userSessions)
    .set({ confirmedAt: now })
    .where(eq(userSessions.tokenHash, await sha256Hex(token)));
}
