/**
 * The contracts' charges as meter events (docs/design/billing.md), in the shape outside billing
 * systems take (Stripe's meter events, for one): one event per overage charge, its `identifier`
 * the ledger entry's id (so a resend is deduplicated there), its customer the contract's
 * `reference` (else its id). `npm run admin -- meter-events --since=…` prints them as JSON lines.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, gte, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';

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

/** Charges since a time, oldest first, `limit` at most after the entry `after` (the previous page's last). */
export async function meterEvents(
  db: Database,
  query: { since: number; after: string | null; limit: number },
): Promise<{ data: MeterEvent[]; next_after: string | null }> {
  const afterSeq = query.after ? sql`(SELECT seq FROM ${ledgerEntries} WHERE id = ${query.after})` : sql`0`;
  const rows = await db
    .select({
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
        gte(ledgerEntries.createdAt, query.since),
        gt(ledgerEntries.seq, afterSeq),
      ),
    )
    .orderBy(asc(ledgerEntries.seq))
    .limit(query.limit);
  const data = rows.map((row) => ({
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
  return { data, next_after: rows.length === query.limit ? (rows.at(-1)?.id ?? null) : null };
}
