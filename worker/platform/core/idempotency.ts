/**
 * Idempotency per (key, idempotency_key), kept 24 hours (PRODUCT.md section 2, step 7).
 * A key first seen is reserved with one atomic upsert; the completed response is written in
 * the execution's own batch, so a stored response always matches a committed execution.
 */
import { and, eq, or, sql } from 'drizzle-orm';
import { sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';
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

export type Reservation = { kind: 'reserved' } | { kind: 'replay'; status: number; body: string };

/**
 * Reserves (key, idempotency_key) with one atomic upsert, or answers what an earlier request
 * with the same key left: a replay, 422 for another body, 409 while it still runs.
 */
export async function reserveIdempotencyKey(
  db: Database,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  now: number,
): Promise<Reservation> {
  const reserved = await db
    .insert(idempotencyRecords)
    .values({ keyId, idempotencyKey, fingerprint, state: 'in_progress', createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS })
    .onConflictDoUpdate({
      target: [idempotencyRecords.keyId, idempotencyRecords.idempotencyKey],
      set: {
        fingerprint,
        state: 'in_progress',
        responseStatus: null,
        responseBody: null,
        createdAt: now,
        expiresAt: now + IDEMPOTENCY_TTL_MS,
      },
      // Only an expired record, or a reservation whose request died, may be taken over.
      setWhere: or(
        sql`${idempotencyRecords.expiresAt} <= ${now}`,
        and(eq(idempotencyRecords.state, 'in_progress'), sql`${idempotencyRecords.createdAt} <= ${now - STALE_RESERVATION_MS}`),
      ),
    })
    .returning({ keyId: idempotencyRecords.keyId })
    .get();
  if (reserved) return { kind: 'reserved' };

  const existing = await db
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.keyId, keyId), eq(idempotencyRecords.idempotencyKey, idempotencyKey)))
    .get();
  if (existing && existing.fingerprint !== fingerprint) {
    throw new ApiError(
      'idempotency_key_reused',
      'This idempotency_key was already used with a different request body. Use a new key for a new request.',
      { errors: [{ pointer: '/idempotency_key', detail: 'Already used with a different body.' }] },
    );
  }
  if (existing?.state === 'completed' && existing.responseStatus !== null && existing.responseBody !== null) {
    return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
  }
  // Still running, or released between our two statements: either way, try again shortly.
  throw new ApiError('idempotency_in_progress', 'A request with this idempotency_key is still in progress. Retry shortly.', {
    headers: { 'Retry-After': '1' },
  });
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
