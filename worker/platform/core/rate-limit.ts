import { inArray, sql } from 'drizzle-orm';
import { insertRowsSql, schema, type Database } from '../../lib/db';

const { rateLimitWindows } = schema;
export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * The upsert that counts one event for `subject` in a fixed window: a window opens at the first
 * event after the previous one closed. With `maxCount`, the CHECK on the table refuses the
 * increment that would pass it, which fails the statement's whole batch: a limit taken this way
 * holds under any concurrency, and a refused attempt leaves no trace.
 */
export function windowIncrement(db: Database, subject: string, now: number, windowMs: number, maxCount: number | null = null) {
  // Written as SQL text (it runs on every execution; see insertRowsSql). SET reads the old row.
  const windowExpired = sql`${now} - window_start >= ${windowMs}`;
  return db.all<{ windowStart: number; count: number }>(
    insertRowsSql(
      rateLimitWindows,
      [{ keyId: subject, windowStart: now, count: 1, maxCount }],
      sql`ON CONFLICT (key_id) DO UPDATE SET
        window_start = CASE WHEN ${windowExpired} THEN ${now} ELSE window_start END,
        count = CASE WHEN ${windowExpired} THEN 1 ELSE count + 1 END,
        max_count = ${maxCount}
      RETURNING window_start AS "windowStart", count`,
    ),
  );
}

/** The open windows of these subjects, without counting anything. */
export async function readWindows(db: Database, subjects: string[], now: number, windowMs: number) {
  const rows = await db.select().from(rateLimitWindows).where(inArray(rateLimitWindows.keyId, subjects));
  return rows
    .filter((row) => now - row.windowStart < windowMs)
    .map((row) => ({ subject: row.keyId, count: row.count, maxCount: row.maxCount, resetAt: row.windowStart + windowMs }));
}

/** Ends a subject's window (a successful sign-in forgives the account's earlier failures). */
export function clearWindow(db: Database, subject: string) {
  return db.delete(rateLimitWindows).where(inArray(rateLimitWindows.keyId, [subject]));
}

/** Gives one event back to a subject's window, as when an attempt turned out to be a success. */
export function releaseWindowSlot(db: Database, subject: string) {
  return db
    .update(rateLimitWindows)
    .set({ count: sql`MAX(${rateLimitWindows.count} - 1, 0)` })
    .where(inArray(rateLimitWindows.keyId, [subject]));
}

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window closes, at least 1. */
  resetSeconds: number;
}
