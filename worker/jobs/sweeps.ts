/**
 * Sweeps run by the cron trigger. Expired records would otherwise only ever grow: idempotency
 * records past their 24 hours, ended console sessions, and rate-limit windows long closed.
 */
import { lt } from 'drizzle-orm';
import { schema, type Database } from '../lib/db';

const { idempotencyRecords, userSessions, rateLimitWindows } = schema;

/** No window (per minute, or sign-in's 15 minutes) outlives this; older rows count nothing. */
const WINDOW_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Deletes what has expired, in one batch, and says how many rows of each went. */
export async function purgeExpiredRecords(db: Database, now: number) {
  const [idempotency, sessions, windows] = await db.batch([
    db.delete(idempotencyRecords).where(lt(idempotencyRecords.expiresAt, now)),
    db.delete(userSessions).where(lt(userSessions.expiresAt, now)),
    db.delete(rateLimitWindows).where(lt(rateLimitWindows.windowStart, now - WINDOW_RETENTION_MS)),
  ]);
  return { idempotency_records: idempotency.meta.changes, user_sessions: sessions.meta.changes, rate_limit_windows: windows.meta.changes };
}
