/**
 * Guesses at a secret (a password, a second factor's code), bounded under any concurrency: an
 * attempt takes a slot before the secret is checked, and gives it back when it settles. Per
 * subject, two rate-limit windows: its failures (the lock: `max` in `windowMs`), and its attempts
 * in flight, whose CHECK lets in only as many as the failures leave room for, so a burst of
 * parallel guesses gets no more than `max` checked. Only failures lock: a right answer in flight
 * blocks nobody for long (its slot comes back in milliseconds), and a slot a crash never gave back
 * is forgotten after IN_FLIGHT_MS.
 */
import { inArray, sql } from 'drizzle-orm';
import { type Database, isConstraintViolation, schema } from './db';
import { ApiError } from './errors';
import { clearWindow, windowIncrement } from './rate-limit';

const { rateLimitWindows } = schema;

/** A slot in flight that was never given back (its Worker died) stops counting after this long. */
export const IN_FLIGHT_MS = 30_000;
/** How long an attempt waits for others in flight to settle before it is told to retry. */
const BUSY_WAIT_MS = 3_000;
const BUSY_STEP_MS = 100;

/** One limit on attempts: at most `max` failures of `subject` in `windowMs`. */
export interface AttemptLimit {
  subject: string;
  max: number;
  windowMs: number;
}

const flight = (subject: string) => `${subject}:flight`;

/** The statement that takes one slot in flight for a limit, refused (CHECK) when failures and flights fill it. */
function takeSlot(db: Database, limit: AttemptLimit, now: number) {
  const key = flight(limit.subject);
  const failures = sql`coalesce((SELECT count FROM ${rateLimitWindows} WHERE key_id = ${limit.subject}
    AND ${now} - window_start < ${limit.windowMs}), 0)`;
  const stale = sql`${now} - window_start >= ${IN_FLIGHT_MS}`;
  return db.run(sql`INSERT INTO ${rateLimitWindows} (key_id, window_start, count, max_count)
    VALUES (${key}, ${now}, 1, ${limit.max} - ${failures})
    ON CONFLICT (key_id) DO UPDATE SET
      window_start = CASE WHEN ${stale} THEN ${now} ELSE window_start END,
      count = CASE WHEN ${stale} THEN 1 ELSE count + 1 END,
      max_count = excluded.max_count`);
}

/** Gives the slots in flight back. */
function releaseSlots(db: Database, limits: AttemptLimit[]) {
  return db
    .update(rateLimitWindows)
    .set({ count: sql`MAX(${rateLimitWindows.count} - 1, 0)`, maxCount: null })
    .where(
      inArray(
        rateLimitWindows.keyId,
        limits.map((limit) => flight(limit.subject)),
      ),
    );
}

function tooMany(detail: string, retryAfterMs: number) {
  return new ApiError('too_many_attempts', detail, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  });
}

/**
 * Takes a slot of every limit, all or none, before the secret is checked; throws 429
 * `too_many_attempts` when a limit's failures are used up (`locked` words it), or, when only
 * attempts in flight fill it, after waiting up to BUSY_WAIT_MS for them to settle.
 */
export async function takeAttempt(
  db: Database,
  limits: AttemptLimit[],
  now: () => number,
  locked: (minutes: number) => string,
): Promise<void> {
  const started = now();
  for (;;) {
    const at = now();
    try {
      const [first, ...rest] = limits.map((limit) => takeSlot(db, limit, at));
      await db.batch([first!, ...rest]);
      return;
    } catch (error) {
      if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    }
    const rows = await db
      .select({ subject: rateLimitWindows.keyId, start: rateLimitWindows.windowStart, count: rateLimitWindows.count })
      .from(rateLimitWindows)
      .where(
        inArray(
          rateLimitWindows.keyId,
          limits.map((limit) => limit.subject),
        ),
      );
    // A limit whose failures are used up locks until its window ends; otherwise others are in flight.
    const lockedUntil = limits.flatMap((limit) => {
      const row = rows.find((candidate) => candidate.subject === limit.subject);
      const open = row && at - row.start < limit.windowMs;
      return open && row.count >= limit.max ? [row.start + limit.windowMs] : [];
    });
    if (lockedUntil.length > 0) {
      const resetAt = Math.max(...lockedUntil);
      throw tooMany(locked(Math.max(1, Math.ceil((resetAt - at) / 60_000))), resetAt - at);
    }
    if (at - started >= BUSY_WAIT_MS)
      throw tooMany('Several attempts are being checked at once: try again in a few seconds.', 5_000);
    await new Promise((resolve) => setTimeout(resolve, BUSY_STEP_MS));
  }
}

/**
 * Settles an attempt: its slots come back; a failure counts against each limit (which may lock
 * it), a success forgives the failures of the limits named in `forgive`.
 */
export async function settleAttempt(
  db: Database,
  limits: AttemptLimit[],
  outcome: { failed: true } | { failed: false; forgive?: string[] },
  now: number,
): Promise<void> {
  const counted = outcome.failed
    ? limits.map((limit) => windowIncrement(db, limit.subject, now, limit.windowMs))
    : (outcome.forgive ?? []).map((subject) => clearWindow(db, subject));
  await db.batch([releaseSlots(db, limits), ...counted]);
}
