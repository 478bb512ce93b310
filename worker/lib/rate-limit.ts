/**
 * Fixed-window counters in D1, for every limit of the platform: API keys, intake, sign-in
 * failures, card fetches. A limit is a CHECK on the row, so it holds under any concurrency.
 */
import { inArray, lt, sql, type SQL } from 'drizzle-orm';
import { insertRowsSql, isConstraintViolation, schema, type Database } from './db';
import { ApiError } from './errors';

const { rateLimitWindows } = schema;
export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * An execution's guard, as SQL read fresh inside the statement (see GuardTarget in batch-admission.ts); null: not
 * involved.
 */
export interface WindowGuard {
  keyUsable: SQL | null;
  tenantActive: SQL | null;
  channelActive: SQL | null;
  quotaLeft: SQL | null;
  contractCurrent: SQL | null;
  allowanceLeft: SQL | null;
}

const NO_GUARD: WindowGuard = {
  keyUsable: null,
  tenantActive: null,
  channelActive: null,
  quotaLeft: null,
  contractCurrent: null,
  allowanceLeft: null,
};

/**
 * The upsert that counts `increment` events (1, 0 to re-check only, or an SQL condition that
 * counts 1 only if it holds when the statement runs: a claim that applied) for `subject` in a fixed
 * window: a window opens at the first event after the previous one closed. With `maxCount`, the
 * CHECK on the table refuses the increment that would pass it, which fails the statement's whole
 * batch: a limit taken this way holds under any concurrency, and a refused attempt leaves no
 * trace. An execution's `guard` travels in the same row (its CHECKs refuse in the same way).
 */
export function windowIncrement(
  db: Database,
  subject: string,
  now: number,
  windowMs: number,
  maxCount: number | null = null,
  options: { guard?: WindowGuard; increment?: 0 | 1 | SQL } = {},
) {
  const increment = options.increment ?? 1;
  const guard = options.guard ?? NO_GUARD;
  // Written as SQL text (it runs on every execution; see insertRowsSql). SET reads the old row;
  // `excluded` is the row the INSERT proposed, whose guard subqueries ran once.
  const windowExpired = sql`${now} - window_start >= ${windowMs}`;
  return db.all<{ windowStart: number; count: number }>(
    insertRowsSql(
      rateLimitWindows,
      [{ keyId: subject, windowStart: now, count: increment, maxCount, ...guard }],
      sql`ON CONFLICT (key_id) DO UPDATE SET
        window_start = CASE WHEN ${windowExpired} THEN ${now} ELSE window_start END,
        count = CASE WHEN ${windowExpired} THEN ${increment} ELSE count + ${increment} END,
        max_count = ${maxCount},
        key_usable = excluded.key_usable,
        tenant_active = excluded.tenant_active,
        channel_active = excluded.channel_active,
        quota_left = excluded.quota_left,
        contract_current = excluded.contract_current,
        allowance_left = excluded.allowance_left
      RETURNING window_start AS "windowStart", count`,
    ),
  );
}

/** The open windows of these subjects, without counting anything. */
export async function readWindows(db: Database, subjects: string[], now: number, windowMs: number) {
  const rows = await db.select().from(rateLimitWindows).where(inArray(rateLimitWindows.keyId, subjects));
  return rows
    .filter((row) => now - row.windowStart < windowMs)
    .map((row) => ({
      subject: row.keyId,
      count: row.count,
      maxCount: row.maxCount,
      resetAt: row.windowStart + windowMs,
    }));
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

/**
 * Takes one slot of `subject`'s window (at most `max` per `windowMs`), alone, or throws 429
 * `rate_limited` with `Retry-After` and `detail`. For limits on single actions, such as a
 * provider's card fetches; a refused attempt leaves no trace.
 */
export async function takeSlotOrRefuse(
  db: Database,
  subject: string,
  now: number,
  limit: { windowMs: number; max: number; detail: string },
): Promise<void> {
  try {
    await windowIncrement(db, subject, now, limit.windowMs, limit.max);
  } catch (error) {
    if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    const [window] = await readWindows(db, [subject], now, limit.windowMs);
    const retryAfter = Math.max(1, Math.ceil(((window?.resetAt ?? now + limit.windowMs) - now) / 1000));
    throw new ApiError('rate_limited', limit.detail, { headers: { 'Retry-After': String(retryAfter) } });
  }
}

/** No window (per minute, sign-in's 15 minutes, card fetches' 10) outlives a day; older rows count nothing. */
const WINDOW_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Housekeeping: deletes the windows closed long ago. */
export function purgeOldWindows(db: Database, now: number) {
  return db.delete(rateLimitWindows).where(lt(rateLimitWindows.windowStart, now - WINDOW_RETENTION_MS));
}
