import { sql } from 'drizzle-orm';
import { schema, type Database } from '../lib/db';

const { rateLimitWindows } = schema;
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window closes, at least 1. */
  resetSeconds: number;
}

/**
 * Counts one request against the key's one-minute window with a single atomic upsert. D1
 * serialises writes, so exactly `limit` requests pass per window however many arrive at once.
 * The window opens at the first request after the previous one closed.
 */
export async function consumeRateLimit(db: Database, keyId: string, limit: number, now: number): Promise<RateLimitOutcome> {
  const windowExpired = sql`${now} - ${rateLimitWindows.windowStart} >= ${RATE_LIMIT_WINDOW_MS}`;
  const row = await db
    .insert(rateLimitWindows)
    .values({ keyId, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimitWindows.keyId,
      set: {
        windowStart: sql`CASE WHEN ${windowExpired} THEN ${now} ELSE ${rateLimitWindows.windowStart} END`,
        count: sql`CASE WHEN ${windowExpired} THEN 1 ELSE ${rateLimitWindows.count} + 1 END`,
      },
    })
    .returning({ windowStart: rateLimitWindows.windowStart, count: rateLimitWindows.count })
    .get();
  const windowStart = row?.windowStart ?? now;
  const count = row?.count ?? 1;
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + RATE_LIMIT_WINDOW_MS - now) / 1000)),
  };
}
