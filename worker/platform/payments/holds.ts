/**
 * A disputed card payment holds its escrow (webhook.ts): the database refuses its charges and
 * lead fees until a platform admin, having settled the dispute with Stripe, lifts the hold.
 */
import { readEveryShard } from '../shards';
import { sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { auditInsertWhere, type AuditContext } from '../audit';

const { escrows } = schema;

/** An escrow on hold, as the admin's billing page lists it. */
export interface HeldEscrow {
  escrow_id: string;
  owner_kind: string;
  owner_id: string;
  currency: string;
  held_at: number;
}

/**
 * Every held escrow, oldest hold first (the partial index holds only these), from every database
 * that has escrows (a workspace's on its shard, an expert's in the directory).
 */
export async function heldEscrows(db: Database): Promise<HeldEscrow[]> {
  const everyShard = await readEveryShard(db, escrows, (each) =>
    each.all<HeldEscrow>(sql`SELECT id AS escrow_id, owner_kind, owner_id, currency, held_at FROM ${escrows}
      WHERE held_at IS NOT NULL ORDER BY held_at`),
  );
  return everyShard.flat().sort((a, b) => a.held_at - b.held_at);
}

/** Lifts a hold (404 when the escrow is not held), with its audit entry. */
export async function liftHold(db: Database, audit: AuditContext, escrowId: string, now: number): Promise<void> {
  // The audit entry first, written only while the hold is there; then the hold goes, in the same batch.
  const [, lifted] = (await db.batch([
    auditInsertWhere(
      db,
      audit,
      { action: 'escrow.hold_lifted', targetId: escrowId },
      sql`EXISTS (SELECT 1 FROM ${escrows} WHERE id = ${escrowId} AND held_at IS NOT NULL)`,
      now,
    ),
    db.all<{ id: string }>(sql`UPDATE ${escrows} SET held_at = NULL WHERE id = ${escrowId} AND held_at IS NOT NULL
      RETURNING id`),
  ])) as [unknown, Array<{ id: string }>];
  if (lifted.length === 0) throw new ApiError('not_found', 'No such escrow on hold.');
}
