/**
 * Escrows (docs/design/billing.md): prepaid balances, one per contract and one per provider. A
 * payment made elsewhere is recorded as a credit with its external reference, once per reference;
 * what an escrow holds is its last ledger entry's balance.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsertWhere, type AuditContext } from '../audit';
import { DEFAULT_LOW_BALANCE_MINOR } from './contracts';
import { balanceOf, balances, entryOf, fundingAccount, transferInsert, transferWritten } from './ledger';
import type { LedgerEntryView } from './schemas';
import { readEveryShard } from '../shards';
import type { LeadStatus } from '../../vocabulary';

const { escrows, ledgerEntries, leads, transfers } = schema;

/** A lead's reference as its visitor reads it (`D-` and the end of its demand's id, brain/demandReference). */
export const leadReference = sql<string | null>`('D-' || upper(substr(${leads.demandId}, -6)))`;

type EscrowRow = typeof escrows.$inferSelect;

/** An entry as the API shows it. */
export function entryView(
  row: typeof ledgerEntries.$inferSelect,
  lead: LedgerEntryView['lead'] = null,
): LedgerEntryView {
  return {
    entry_id: row.id,
    account: row.account,
    amount_minor: row.amountMinor,
    balance_after: row.balanceAfter,
    currency: row.currency,
    kind: row.kind,
    meter: row.meter,
    quantity: row.quantity,
    ref: row.ref,
    lead,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

/** An account's latest entries, newest first; a lead's fee or refund names its lead as people know it. */
export async function latestEntries(db: Database, account: string, limit = 100): Promise<LedgerEntryView[]> {
  const rows = await db
    .select()
    .from(ledgerEntries)
    .where(eq(ledgerEntries.account, account))
    .orderBy(desc(ledgerEntries.seq))
    .limit(limit);
  const aboutLeads = await leadsAbout(
    db,
    rows.filter((row) => row.kind === 'lead_fee' || row.kind === 'refund').map((row) => row.ref),
  );
  return rows.map((row) => entryView(row, aboutLeads.get(row.ref) ?? null));
}

/**
 * Leads by id, as a page about money names them (their reference and status), read from every
 * shard that holds leads at once: an expert's fees are for leads of many organisations.
 */
export async function leadsAbout(
  db: Database,
  leadIds: readonly string[],
): Promise<Map<string, { reference: string; status: LeadStatus }>> {
  const ids = [...new Set(leadIds)];
  if (ids.length === 0) return new Map();
  const found = await readEveryShard(db, leads, (shardDb) =>
    shardDb
      .select({ id: leads.id, reference: leadReference, status: leads.status })
      .from(leads)
      .where(inArray(leads.id, ids)),
  );
  return new Map(found.flat().map((lead) => [lead.id, { reference: lead.reference ?? '', status: lead.status }]));
}

/** One escrow, or 404. */
export async function findEscrow(db: Database, escrowId: string): Promise<EscrowRow> {
  const row = await db.select().from(escrows).where(eq(escrows.id, escrowId)).get();
  if (!row) throw new ApiError('not_found', `No escrow ${escrowId}.`);
  return row;
}

/** An escrow with its balance and latest entries, as the admin API shows it. */
export async function escrowView(db: Database, escrowId: string) {
  const row = await findEscrow(db, escrowId);
  const [balance, entries] = await Promise.all([balances(db, [row.id]), latestEntries(db, row.id)]);
  return {
    escrow_id: row.id,
    owner: { kind: row.ownerKind, id: row.ownerId },
    contract_id: row.contractId,
    currency: row.currency,
    balance_minor: balance.get(row.id) ?? 0,
    low_balance_minor: row.lowBalanceMinor,
    entries,
  };
}

/**
 * Records a payment into an escrow: the escrow against the funding account. A second credit with
 * the same reference changes nothing and answers the first (409 when its amount differs).
 */
export async function creditEscrow(
  db: Database,
  audit: AuditContext,
  escrowId: string,
  credit: { amount_minor: number; reference: string },
  now: number,
): Promise<{ entry_id: string; balance_minor: number; already_recorded: boolean }> {
  const escrow = await findEscrow(db, escrowId);
  const firstTime = sql`NOT EXISTS (SELECT 1 FROM ${transfers} WHERE to_account = ${escrow.id} AND kind = 'credit' AND
    ref = ${credit.reference})`;
  const transferId = newId('trf', now);
  const [, entries] = (await db.batch([
    transferInsert(
      db,
      {
        kind: 'credit',
        currency: escrow.currency,
        from: fundingAccount(escrow.currency),
        to: escrow.id,
        amount: credit.amount_minor,
        ref: credit.reference,
        workspaceId: escrow.ownerKind === 'workspace' ? escrow.ownerId : null,
        transferId,
        when: firstTime,
      },
      now,
    ),
    entryOf(db, transferId, escrow.id),
    // A balance back above the threshold may be low again later, and be told so again.
    db
      .update(escrows)
      .set({ lowBalanceNotified: false })
      .where(and(eq(escrows.id, escrow.id), sql`${balanceOf(escrow.id)} >= ${escrows.lowBalanceMinor}`)),
    auditInsertWhere(
      db,
      audit,
      {
        action: 'escrow.credited',
        targetId: escrow.id,
        workspaceId: escrow.ownerKind === 'workspace' ? escrow.ownerId : null,
        metadata: { amount_minor: credit.amount_minor, reference: credit.reference },
      },
      transferWritten(transferId),
      now,
    ),
  ])) as [unknown, Array<{ id: string; balance: number }>, ...unknown[]];
  const written = entries[0];
  if (written) return { entry_id: written.id, balance_minor: written.balance, already_recorded: false };
  // Recorded before with this reference: answer that entry, unless the amount differs.
  const first = await db
    .select()
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.account, escrow.id),
        eq(ledgerEntries.kind, 'credit'),
        eq(ledgerEntries.ref, credit.reference),
      ),
    )
    .get();
  if (!first || first.amountMinor !== credit.amount_minor) {
    throw new ApiError(
      'credit_reference_reused',
      `The reference ${credit.reference} already recorded a credit of ${first?.amountMinor ?? '?'} to ${escrow.id}.`,
      { errors: [{ pointer: '/reference', detail: 'Already used for another amount.' }] },
    );
  }
  const balance = await balances(db, [escrow.id]);
  return { entry_id: first.id, balance_minor: balance.get(escrow.id) ?? 0, already_recorded: true };
}

/**
 * Opens a provider's escrow, in the batch of their approval (once: a second approval after a
 * suspension keeps the first escrow).
 */
export function openProviderEscrow(
  db: Database,
  providerId: string,
  currency: string,
  now: number,
): BatchItem<'sqlite'> {
  return db.run(sql`INSERT INTO ${escrows} (id, owner_kind, owner_id, contract_id, currency, low_balance_minor,
      low_balance_notified, created_at)
    VALUES (${newId('esc', now)}, 'provider', ${providerId}, NULL, ${currency}, ${DEFAULT_LOW_BALANCE_MINOR}, 0, ${now})
    ON CONFLICT DO NOTHING`);
}

/** A provider's escrow id as SQL (null when they have none), for the claim's batch. */
export function providerEscrowSql(providerId: string) {
  return sql`(SELECT id FROM ${escrows} WHERE owner_kind = 'provider' AND owner_id = ${providerId})`;
}

/** A provider's escrow, if opened. */
export async function providerEscrow(db: Database, providerId: string): Promise<EscrowRow | undefined> {
  return db
    .select()
    .from(escrows)
    .where(and(eq(escrows.ownerKind, 'provider'), eq(escrows.ownerId, providerId)))
    .get();
}
