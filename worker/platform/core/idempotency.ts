/**
 * Idempotency per (key, idempotency_key), kept 24 hours (docs/design/execution.md, step 7).
 * The key is claimed, with its completed response, in the execution's own batch, so a stored
 * response always matches a committed execution and a fresh key costs no extra round trip. The
 * agent path reserves it first (its call has effects outside D1) and completes it in its batch.
 */
import { and, eq, lt, sql, type SQL } from 'drizzle-orm';
import { sha256Hex } from '../../lib/crypto';
import { insertRowsSql, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';

const { idempotencyRecords } = schema;

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A reservation older than this belongs to a request that died; it may be taken over. */
export const STALE_RESERVATION_MS = 60_000;

/** JSON with object keys sorted, so the fingerprint does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The request's fingerprint: the body without its correlation ids. */
export function requestFingerprint(body: Record<string, unknown>): Promise<string> {
  const { request_id: _requestId, trace_id: _traceId, ...rest } = body;
  return sha256Hex(canonicalJson(rest));
}

/**
 * The statement that claims (key, idempotency_key) inside the execution's batch: an upsert that
 * may only take over an expired record, or a reservation whose request died. Any other conflict
 * sets the state to 'taken', which the CHECK idempotency_key_free refuses, rolling the whole
 * batch back (then `storedOutcome` says what to answer). `state` is what the claim leaves:
 * 'completed' with the response (the lead path, one round trip), or 'in_progress' (a reservation
 * before an agent call, completed by the final batch).
 */
export function claimIdempotencyKey(
  db: Database,
  claim: { keyId: string; idempotencyKey: string; fingerprint: string; now: number },
  result: { state: 'in_progress' } | { state: 'completed'; responseBody: SQL },
) {
  const { keyId, idempotencyKey, fingerprint, now } = claim;
  // Written as SQL text (it runs on every execution with a key; see insertRowsSql). SET reads the old row.
  const free = sql`(expires_at <= ${now} OR (state = 'in_progress' AND created_at <= ${now - STALE_RESERVATION_MS}))`;
  const [responseStatus, responseBody] = result.state === 'completed' ? [200, result.responseBody] : [null, null];
  return db.all<{ body: string | null }>(
    insertRowsSql(
      idempotencyRecords,
      [
        {
          keyId,
          idempotencyKey,
          fingerprint,
          state: result.state,
          responseStatus,
          responseBody,
          createdAt: now,
          expiresAt: now + IDEMPOTENCY_TTL_MS,
        },
      ],
      sql`ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
        fingerprint = ${fingerprint},
        state = CASE WHEN ${free} THEN ${result.state} ELSE 'taken' END,
        response_status = ${responseStatus},
        response_body = ${responseBody},
        created_at = ${now},
        expires_at = ${now + IDEMPOTENCY_TTL_MS}
      RETURNING response_body AS body`,
    ),
  );
}

/** The stored record of a key that is taken: what an earlier request with the same key left. */
export function storedRecord(db: Database, keyId: string, idempotencyKey: string) {
  return db
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.keyId, keyId), eq(idempotencyRecords.idempotencyKey, idempotencyKey)));
}

/** What a taken key answers: a replay of the stored response, 422 for another body, 409 while it still runs. */
export function storedOutcome(
  existing: typeof idempotencyRecords.$inferSelect | undefined,
  fingerprint: string,
): { status: number; body: string } {
  if (existing && existing.fingerprint !== fingerprint) {
    throw new ApiError(
      'idempotency_key_reused',
      'This idempotency_key was already used with a different request body, or through another door (/api/execute, ' +
        'MCP or A2A). Use a new key for a new request.',
      {
        errors: [
          { pointer: '/idempotency_key', detail: 'Already used with a different body or through another door.' },
        ],
      },
    );
  }
  if (existing?.state === 'completed' && existing.responseStatus !== null && existing.responseBody !== null) {
    return { status: existing.responseStatus, body: existing.responseBody };
  }
  // Still running, or released since the batch failed: either way, try again shortly.
  throw new ApiError(
    'idempotency_in_progress',
    'A request with this idempotency_key is still in progress. Retry shortly.',
    {
      headers: { 'Retry-After': '1' },
    },
  );
}

/** Frees a reservation whose execution failed, so a retry can run. */
export async function releaseIdempotencyKey(db: Database, keyId: string, idempotencyKey: string): Promise<void> {
  await db
    .delete(idempotencyRecords)
    .where(
      and(
        eq(idempotencyRecords.keyId, keyId),
        eq(idempotencyRecords.idempotencyKey, idempotencyKey),
        eq(idempotencyRecords.state, 'in_progress'),
      ),
    );
}

/** Housekeeping: deletes the records past their 24 hours. */
export function purgeExpiredIdempotencyRecords(db: Database, now: number) {
  return db.delete(idempotencyRecords).where(lt(idempotencyRecords.expiresAt, now));
}
