/**
 * The contracts' charges as meter events (docs/design/billing.md), in the shape outside billing
 * systems take (Stripe's meter events, for one): one event per overage charge, its `identifier`
 * the ledger entry's id (so a resend is deduplicated there), its customer the contract's
 * `reference` (else its id). `npm run admin -- meter-events --since=…` prints them as JSON lines.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, gte } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { databasesHolding } from '../shards';

const { ledgerEntries, escrows, contracts } = schema;

export const meterEventSchema = z.object({
  event_name: z.string().openapi({ example: 'executions.overage' }),
  timestamp: z.string(),
  identifier: z.string(),
  payload: z.object({
    customer: z.string(),
    value: z.string().openapi({ description: 'Units charged past the allowance.' }),
    amount_minor: z.string(),
    currency: z.string(),
  }),
});
export type MeterEvent = z.infer<typeof meterEventSchema>;

/**
 * Charges since a time, oldest first, `limit` at most after the cursor `after` (the previous page's
 * `next_after`). The contracts' charges are on their organisations' shards, each database with its
 * own sequence, so the cursor is how far each database's charges were read (`<database>:<seq>`,
 * comma-separated), and a page is the databases' next charges merged by time.
 */
export async function meterEvents(
  db: Database,
  query: { since: number; after: string | null; limit: number },
): Promise<{ data: MeterEvent[]; next_after: string | null }> {
  const cursor = parseCursor(query.after);
  const pages = await Promise.all(
    databasesHolding(db, contracts).map(async (each, database) => ({
      database,
      rows: await chargesAfter(each, query.since, cursor.get(database) ?? 0, query.limit),
    })),
  );
  // Merged by time, each database's charges kept in its own order, so what a page takes of each is
  // a prefix of it and its cursor never passes a charge not yet printed.
  const merged: Array<Charge & { database: number }> = [];
  while (merged.length < query.limit) {
    const next = pages
      .filter((page) => page.rows.length > 0)
      .reduce<(typeof pages)[number] | undefined>(
        (earliest, page) => (!earliest || page.rows[0]!.createdAt < earliest.rows[0]!.createdAt ? page : earliest),
        undefined,
      );
    if (!next) break;
    const row = next.rows.shift()!;
    merged.push({ ...row, database: next.database });
    cursor.set(next.database, row.seq);
  }
  const data = merged.map((row) => ({
    event_name: `${row.meter ?? 'usage'}.overage`,
    timestamp: new Date(row.createdAt).toISOString(),
    identifier: row.id,
    payload: {
      customer: row.reference ?? row.contractId,
      value: String(row.quantity ?? 0),
      amount_minor: String(-row.amount),
      currency: row.currency,
    },
  }));
  const more = merged.length === query.limit;
  return { data, next_after: more ? [...cursor].map(([database, seq]) => `${database}:${seq}`).join(',') : null };
}

/** A cursor's sequence per database; an unreadable one is `bad_request`, never a silent restart. */
function parseCursor(after: string | null): Map<number, number> {
  const cursor = new Map<number, number>();
  for (const part of after ? after.split(',') : []) {
    const match = /^(\d{1,4}):(\d{1,15})$/.exec(part);
    if (!match) throw new ApiError('validation_failed', 'after is the next_after of a previous page.');
    cursor.set(Number(match[1]), Number(match[2]));
  }
  return cursor;
}

type Charge = Awaited<ReturnType<typeof chargesAfter>>[number];

/** One database's overage charges after a sequence number, in its order. */
function chargesAfter(each: Database, since: number, afterSeq: number, limit: number) {
  return each
    .select({
      seq: ledgerEntries.seq,
      id: ledgerEntries.id,
      meter: ledgerEntries.meter,
      quantity: ledgerEntries.quantity,
      amount: ledgerEntries.amountMinor,
      currency: ledgerEntries.currency,
      createdAt: ledgerEntries.createdAt,
      contractId: contracts.id,
      reference: contracts.reference,
    })
    .from(ledgerEntries)
    .innerJoin(escrows, eq(escrows.id, ledgerEntries.account))
    .innerJoin(contracts, eq(contracts.id, escrows.contractId))
    .where(
      and(
        eq(ledgerEntries.kind, 'charge'),
        eq(ledgerEntries.accountKind, 'escrow'),
        gte(ledgerEntries.createdAt, since),
        gt(ledgerEntries.seq, afterSeq),
      ),
    )
    .orderBy(asc(ledgerEntries.seq))
    .limit(limit)
    .all();
}
