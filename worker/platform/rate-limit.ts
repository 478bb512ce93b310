import { inArray, sql } from 'drizzle-orm';
import { schema, type Database } from '../lib/db';

const { rateLimitWindows } = schema;
export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * Counters in fixed windows, one row per subject: an API key (`key_…`), a channel and client
 * (`intake:…`), or failed sign-ins (`signin:…`). A window opens at the first event after the
 * previous one closed.
 */
export async function countInWindow(db: Database, subject: string, now: number, windowMs: number): Promise<{ count: number; windowStart: number }> {
  const windowExpired = sql`${now} - ${rateLimitWindows.windowStart} >= ${windowMs}`;
  const row = await db
    .insert(rateLimitWindows)
    .values({ keyId: subject, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimitWindows.keyId,
      set: {
        windowStart: sql`CASE WHEN ${windowExpired} THEN ${now} ELSE ${rateLimitWindows.windowStart} END`,
        count: sql`CASE WHEN ${windowExpired} THEN 1 ELSE ${rateLimitWindows.count} + 1 END`,
      },
    })
    .returning({ windowStart: rateLimitWindows.windowStart, count: rateLimitWindows.count })
    .get();
  return { count: row?.count ?? 1, windowStart: row?.windowStart ?? now };
}

/** The open windows of these subjects, without counting anything. */
export async function readWindows(db: Database, subjects: string[], now: number, windowMs: number) {
  const rows = await db.select().from(rateLimitWindows).where(inArray(rateLimitWindows.keyId, subjects));
  return rows
    .filter((row) => now - row.windowStart < windowMs)
    .map((row) => ({ subject: row.keyId, count: row.count, resetAt: row.windowStart + windowMs }));
}

export async function clearWindow(db: Database, subject: string): Promise<void> {
  await db.delete(rateLimitWindows).where(inArray(rateLimitWindows.keyId, [subject]));
}

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window closes, at least 1. */
  resetSeconds: number;
}

/**
 * Counts one request against a one-minute window with a single atomic upsert. D1 serialises
 * writes, so exactly `limit` requests pass per window however many arrive at once.
 */
export async function consumeRateLimit(db: Database, subject: string, limit: number, now: number): Promise<RateLimitOutcome> {
  const { count, windowStart } = await countInWindow(db, subject, now, RATE_LIMIT_WINDOW_MS);
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + RATE_LIMIT_WINDOW_MS - now) / 1000)),
  };
}
