/**
 * Lead fees (docs/design/billing.md), as lead marketplaces charge them: a domain may price its
 * leads, and an expert who claims one pays it from their escrow when the claim settles, once
 * per lead (a release and a new claim do not charge again; nor do they refund). An expert may ask
 * for the fee back within 7 days when the lead was spam or unreachable, once; an admin decides,
 * and an accepted request credits the fee back in the decision's batch.
 */
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, isConstraintViolation, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsert, auditInsertWhere, type AuditContext } from '../audit';
import { findEscrow, latestEntries, leadsAbout, providerEscrow, providerEscrowSql } from './escrows';
import { balances, revenueAccount, transferInsert } from './ledger';
import type { RefundRequestView } from './schemas';
import { iso } from '../../lib/periods';

const { leadRefundRequests, ledgerEntries, providers, transfers } = schema;

/** How long after paying a lead's fee an expert may ask for it back. */
export const REFUND_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The fee of claiming a lead, for the batch that settles the claim (leads/claim-reservations.ts):
 * the provider's escrow pays what the reservation held (the lead's domain's price, in its
 * currency) to the platform's revenue, when `when` holds and it has not paid for this lead before
 * (a release and a new claim do not charge again; the ledger's once-per-lead index agrees).
 */
export function leadFeeInsert(
  db: Database,
  fee: { providerId: string; leadId: string; transferId: string; amount: SQL; currency: SQL; when: SQL },
  now: number,
): BatchItem<'sqlite'> {
  const escrow = providerEscrowSql(fee.providerId);
  return transferInsert(
    db,
    {
      transferId: fee.transferId,
      kind: 'lead_fee',
      currency: fee.currency,
      from: escrow,
      to: sql`'platform:revenue:' || ${fee.currency}`,
      amount: fee.amount,
      ref: fee.leadId,
      when: sql`${fee.when} AND NOT ${leadFeePaid(fee.providerId, fee.leadId)}`,
    },
    now,
  );
}

/** The expert has paid this lead's fee before, as SQL. */
export function leadFeePaid(providerId: string, leadId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${transfers} WHERE ref = ${leadId} AND kind = 'lead_fee' AND
    from_account = ${providerEscrowSql(providerId)})`;
}

/** What claiming a lead costs: its domain's price (none when the domain sets no price). */
export interface LeadPrice {
  domain: string;
  minor: number | null;
  currency: string | null;
}

/** The 409 of a claim whose fee is in another currency than the expert's credits (read in the directory). */
export async function feeInOtherCurrency(directory: Database, providerId: string, price: LeadPrice): Promise<ApiError> {
  const escrow = await providerEscrow(directory, providerId);
  return new ApiError(
    'currency_mismatch',
    `Claiming a ${price.domain} lead costs ${price.minor ?? 0} minor units of ${price.currency ?? '?'}; your ` +
      `credits are in ${escrow?.currency ?? '?'}, so they cannot pay it. Ask the platform to move your credits.`,
    { extensions: { lead_price_minor: price.minor, lead_price_currency: price.currency } },
  );
}

/** The 402 of a claim without the funds for its fee. */
export function insufficientCredits(price: LeadPrice): ApiError {
  return new ApiError(
    'insufficient_credits',
    `Claiming a ${price.domain} lead costs ${price.minor ?? 0} minor units, more than your credits hold.`,
    { extensions: { lead_price_minor: price.minor } },
  );
}

type RefundRow = typeof leadRefundRequests.$inferSelect;

/** A refund request as the APIs show it. */
export function refundRequestView(
  row: RefundRow,
  about: { lead: RefundRequestView['lead']; providerName: string | null } = { lead: null, providerName: null },
): RefundRequestView {
  return {
    refund_request_id: row.id,
    lead_id: row.leadId,
    lead: about.lead,
    provider_id: row.providerId,
    provider_name: about.providerName,
    amount_minor: row.amountMinor,
    currency: row.currency,
    reason: row.reason,
    note: row.note,
    status: row.status,
    decision_note: row.decisionNote,
    created_at: iso(row.createdAt)!,
    decided_at: iso(row.decidedAt),
  };
}

/**
 * An expert asks for a lead's fee back: they paid one for it, at most 7 days ago, and have not
 * asked before (409 `refund_not_allowed` otherwise).
 */
export async function requestRefund(
  db: Database,
  audit: AuditContext,
  request: { providerId: string; leadId: string; reason: RefundRow['reason']; note: string | null },
  now: number,
): Promise<RefundRequestView> {
  const escrow = await providerEscrow(db, request.providerId);
  const fee = escrow
    ? await db
        .select()
        .from(ledgerEntries)
        .where(
          and(
            eq(ledgerEntries.account, escrow.id),
            eq(ledgerEntries.kind, 'lead_fee'),
            eq(ledgerEntries.ref, request.leadId),
          ),
        )
        .get()
    : undefined;
  if (!escrow || !fee) throw new ApiError('not_found', `You paid no fee for lead ${request.leadId}.`);
  await refuseWonLead(db, request.leadId);
  if (now - fee.createdAt > REFUND_WINDOW_MS)
    throw new ApiError('refund_not_allowed', 'A fee can be asked back within 7 days of the claim; this one is older.');
  const row: RefundRow = {
    id: newId('rfr', now),
    leadId: request.leadId,
    providerId: request.providerId,
    escrowId: escrow.id,
    amountMinor: -fee.amountMinor,
    currency: fee.currency,
    reason: request.reason,
    note: request.note,
    status: 'pending',
    decisionNote: null,
    decidedBy: null,
    decidedAt: null,
    createdAt: now,
  };
  try {
    await db.batch([
      db.insert(leadRefundRequests).values(row),
      auditInsert(
        db,
        audit,
        { action: 'lead.refund_requested', targetId: request.leadId, metadata: { refund_request_id: row.id } },
        now,
      ),
    ]);
  } catch (error) {
    if (isConstraintViolation(error, 'lead_refund_requests.lead_id'))
      throw new ApiError(
        'refund_not_allowed',
        `You asked for this lead's fee back already; a lead's fee is asked once.`,
      );
    throw error;
  }
  return refundRequestView(row);
}

/** A lead the expert marked won was neither spam nor unreachable: its fee is not given back. */
async function refuseWonLead(db: Database, leadId: string): Promise<void> {
  if ((await leadsAbout(db, [leadId])).get(leadId)?.status === 'won')
    throw new ApiError(
      'refund_not_allowed',
      'This lead was marked won: a fee is given back for spam or an unreachable visitor only.',
    );
}

/**
 * Refund requests, newest first: all (admins, by status) or one provider's. They are the
 * directory's, with the experts' escrows; their leads are read from the shards that hold them.
 */
export async function listRefundRequests(
  db: Database,
  filter: { status?: RefundRow['status']; providerId?: string },
): Promise<RefundRequestView[]> {
  const conditions = [
    ...(filter.status ? [eq(leadRefundRequests.status, filter.status)] : []),
    ...(filter.providerId ? [eq(leadRefundRequests.providerId, filter.providerId)] : []),
  ];
  const rows = await db
    .select({ request: leadRefundRequests, providerName: providers.displayName })
    .from(leadRefundRequests)
    .leftJoin(providers, eq(providers.id, leadRefundRequests.providerId))
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(leadRefundRequests.createdAt))
    .limit(200);
  const aboutLeads = await leadsAbout(
    db,
    rows.map((row) => row.request.leadId),
  );
  return rows.map((row) =>
    refundRequestView(row.request, {
      lead: aboutLeads.get(row.request.leadId) ?? null,
      providerName: row.providerName,
    }),
  );
}

/**
 * An admin accepts or declines a pending request (one conditional UPDATE: two admins deciding at
 * once cannot both win). An accepted one credits the fee back, from revenue, in the same batch.
 */
export async function decideRefund(
  db: Database,
  audit: AuditContext,
  refundRequestId: string,
  decision: { decision: 'accept' | 'decline'; note: string | null },
  now: number,
): Promise<RefundRequestView> {
  const row = await db.select().from(leadRefundRequests).where(eq(leadRefundRequests.id, refundRequestId)).get();
  if (!row) throw new ApiError('not_found', `No refund request ${refundRequestId}.`);
  if (row.status !== 'pending') throw new ApiError('invalid_transition', `Refund request ${row.id} is ${row.status}.`);
  if (decision.decision === 'accept') await refuseWonLead(db, row.leadId);
  const escrow = await findEscrow(db, row.escrowId);
  const status = decision.decision === 'accept' ? 'accepted' : 'declined';
  const decided = sql`EXISTS (SELECT 1 FROM ${leadRefundRequests} WHERE id = ${row.id} AND status = ${status} AND
    decided_at = ${now} AND decided_by = ${audit.actorId})`;
  const [updated] = await db
    .batch([
      db
        .update(leadRefundRequests)
        .set({ status, decisionNote: decision.note, decidedBy: audit.actorId, decidedAt: now })
        .where(and(eq(leadRefundRequests.id, row.id), eq(leadRefundRequests.status, 'pending')))
        .returning({ id: leadRefundRequests.id }),
      transferInsert(
        db,
        {
          kind: 'refund',
          currency: row.currency,
          from: revenueAccount(row.currency),
          to: escrow.id,
          amount: row.amountMinor,
          ref: row.leadId,
          when: status === 'accepted' ? decided : sql`0`,
        },
        now,
      ),
      auditInsertWhere(
        db,
        audit,
        { action: `lead.refund_${status}`, targetId: row.leadId, metadata: { refund_request_id: row.id } },
        decided,
        now,
      ),
    ])
    .catch((error: unknown) => {
      // Two decisions in the same millisecond by the same admin both pass the marker; the escrow's
      // credit-back-once index refuses the second one's transfer, and the whole batch with it.
      if (isConstraintViolation(error, 'ledger_entries.account')) return [[]] as const;
      throw error;
    });
  if (updated.length === 0) throw new ApiError('invalid_transition', `Refund request ${row.id} was decided already.`);
  return refundRequestView({ ...row, status, decisionNote: decision.note, decidedBy: audit.actorId, decidedAt: now });
}

/** An expert's credits: their escrow's balance, latest entries and refund requests. */
export async function providerCredits(db: Database, providerId: string, currency: string) {
  const escrow = await providerEscrow(db, providerId);
  const [balance, entries, refundRequests] = await Promise.all([
    escrow ? balances(db, [escrow.id]) : Promise.resolve(new Map<string, number>()),
    escrow ? latestEntries(db, escrow.id, 50) : Promise.resolve([]),
    listRefundRequests(db, { providerId }),
  ]);
  return {
    escrow_id: escrow?.id ?? '',
    currency: escrow?.currency ?? currency,
    balance_minor: escrow ? (balance.get(escrow.id) ?? 0) : 0,
    entries,
    refund_requests: refundRequests,
  };
}

/**
 * The fees paid for leads that an erasure took the contact of, given back (docs/design/billing.md):
 * one refund transfer per fee, from revenue to the escrow that paid it, unless that escrow has had
 * it back already (an admin’s accepted request, or an earlier erasure). `db` is the directory’s,
 * where the experts’ escrows and the fees they paid are.
 */
export async function erasedLeadRefunds(db: Database, leadIds: string[], now: number): Promise<BatchItem<'sqlite'>[]> {
  if (leadIds.length === 0) return [];
  const fees = await db.all<{ ref: string; from_account: string; currency: string; amount_minor: number }>(sql`
    SELECT ref, from_account, currency, amount_minor FROM ${transfers}
    WHERE kind = 'lead_fee' AND ref IN (SELECT value FROM json_each(${JSON.stringify(leadIds)}))`);
  return fees.map((fee) =>
    transferInsert(
      db,
      {
        kind: 'refund',
        currency: fee.currency,
        from: revenueAccount(fee.currency),
        to: fee.from_account,
        amount: fee.amount_minor,
        ref: fee.ref,
        when: sql`NOT EXISTS (SELECT 1 FROM ${ledgerEntries} WHERE account = ${fee.from_account} AND kind = 'refund'
          AND ref = ${fee.ref})`,
      },
      now,
    ),
  );
}
