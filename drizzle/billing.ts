/**
 * The platform core's entitlement, billing and settlement relations (docs/design/billing.md):
 * contracts, escrows, the double-entry ledger, the monthly meters of a contract, statements and
 * lead-fee refund requests. Money is integer minor units of one currency per account.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { type ContractMeter, ESCROW_OWNERS, LEDGER_KINDS, REFUND_REASONS, REFUND_STATUSES } from '../worker/vocabulary';

const createdAt = () => integer('created_at').notNull();

/**
 * The written contract a workspace is provisioned under, recorded by an admin. At most one is in
 * force at a time: the one with the latest `starts_at` not after now, unless its `ends_at` passed.
 * A later contract ends the one before it at its own start. Its terms never change once recorded.
 */
export const contracts = sqliteTable(
  'contracts',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    plan: text('plan').notNull(),
    /** ISO 4217, upper case: the currency of its escrow, its prices and its charges. */
    currency: text('currency').notNull(),
    startsAt: integer('starts_at').notNull(),
    endsAt: integer('ends_at'),
    /** The customer's id in the operator's billing system (meter events name it). */
    reference: text('reference'),
    /** Units included per calendar month (UTC), by meter. */
    allowances: text('allowances', { mode: 'json' }).$type<Partial<Record<ContractMeter, number>>>().notNull(),
    /** The price of each unit past the allowance, by meter; a meter without one is blocked past it. */
    overage: text('overage', { mode: 'json' })
      .$type<Partial<Record<ContractMeter, { unit_price_minor: number }>>>()
      .notNull(),
    escrowId: text('escrow_id').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('contracts_workspace_idx').on(table.workspaceId, table.startsAt)],
);

/**
 * A prepaid balance: one per contract (its workspace's) and one per provider (for lead fees). Its
 * balance is its last ledger entry's `balance_after`, never stored apart.
 */
export const escrows = sqliteTable(
  'escrows',
  {
    id: text('id').primaryKey(),
    ownerKind: text('owner_kind', { enum: ESCROW_OWNERS }).notNull(),
    /** The workspace (a contract's escrow) or the provider. */
    ownerId: text('owner_id').notNull(),
    contractId: text('contract_id'),
    currency: text('currency').notNull(),
    /** Below this balance, `escrow.low_balance` is sent (once, until a credit lifts it above again). */
    lowBalanceMinor: integer('low_balance_minor').notNull(),
    /** Whether the sweep has told the owner the balance is low (a credit above the threshold clears it). */
    lowBalanceNotified: integer('low_balance_notified', { mode: 'boolean' }).notNull().default(false),
    /**
     * Set while a card payment into it is disputed (docs/design/billing.md#card-top-ups): the database refuses
     * its charges and lead fees (migrations/0044) until an admin lifts the hold.
     */
    heldAt: integer('held_at'),
    createdAt: createdAt(),
  },
  (table) => [
    index('escrows_owner_idx').on(table.ownerKind, table.ownerId),
    uniqueIndex('escrows_one_per_provider').on(table.ownerId).where(sql`${table.ownerKind} = 'provider'`),
    // The admin's list of held escrows (a disputed card payment): only those rows.
    index('escrows_held_idx').on(table.heldAt).where(sql`held_at IS NOT NULL`),
  ],
);

/**
 * Every account money may be on: each escrow (its row is written with the escrow, by a trigger),
 * and per currency the platform's revenue account (`platform:revenue:EUR`: what charges and fees
 * earn, less refunds) and funding account (`platform:funding:EUR`: the outside money credits
 * record). A transfer between accounts that are not here, or not in its currency, is refused.
 */
export const ledgerAccounts = sqliteTable(
  'ledger_accounts',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['escrow', 'revenue', 'funding'] }).notNull(),
    currency: text('currency').notNull(),
    createdAt: createdAt(),
  },
  (table) => [check('ledger_account_currency', sql`length(${table.currency}) = 3`)],
);

/**
 * The ledger's one writer: a transfer moves `amount_minor` (> 0) from one account to another of
 * the same currency, in the batch of its cause: credits (funding → escrow), charges and lead fees
 * (escrow → revenue), refunds (revenue → escrow). The database does the rest (migration 0027):
 * `transfers_refuse_*` refuse an unknown account or a currency that is not the accounts', and
 * `transfers_post` writes its two ledger entries, so every transfer sums to zero by construction.
 * Append-only, like the entries.
 */
export const transfers = sqliteTable(
  'transfers',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: LEDGER_KINDS }).notNull(),
    currency: text('currency').notNull(),
    fromAccount: text('from_account').notNull(),
    toAccount: text('to_account').notNull(),
    amountMinor: integer('amount_minor').notNull(),
    /** A charge's meter and units. */
    meter: text('meter'),
    quantity: integer('quantity'),
    /** What caused it: a credit's external reference, the execution, the lead, the refund request. */
    ref: text('ref').notNull(),
    /** The workspace whose contract it concerns (usage by workspace), when it does. */
    workspaceId: text('workspace_id'),
    createdAt: createdAt(),
  },
  (table) => [
    check('transfer_amount_positive', sql`${table.amountMinor} > 0`),
    check('transfer_between_two_accounts', sql`${table.fromAccount} <> ${table.toAccount}`),
    index('transfers_ref_idx').on(table.ref, table.kind),
  ],
);

/**
 * The ledger: append-only, double entry, written only by `transfers_post` (a direct insert is
 * refused by `ledger_entries_refuse_*`): one entry per account a transfer moves, the first taking
 * from `from_account`, the second giving to `to_account`. An account's balance is its last entry's
 * `balance_after`, which must be the one before plus the amount; an escrow's may never go below zero.
 */
export const ledgerEntries = sqliteTable(
  'ledger_entries',
  {
    /** The order entries were written in (SQLite's rowid): the last one of an account holds its balance. */
    seq: integer('seq').primaryKey(),
    id: text('id').notNull().unique(),
    transferId: text('transfer_id').notNull(),
    account: text('account').notNull(),
    accountKind: text('account_kind', { enum: ['escrow', 'revenue', 'funding'] }).notNull(),
    amountMinor: integer('amount_minor').notNull(),
    balanceAfter: integer('balance_after').notNull(),
    currency: text('currency').notNull(),
    kind: text('kind', { enum: LEDGER_KINDS }).notNull(),
    meter: text('meter'),
    quantity: integer('quantity'),
    /** What caused it: a credit's external reference, the execution, the lead, the refund request. */
    ref: text('ref').notNull(),
    /** The workspace whose contract it concerns (usage by workspace), when it does. */
    workspaceId: text('workspace_id'),
    createdAt: createdAt(),
  },
  (table) => [
    check('escrow_funds_left', sql`${table.accountKind} <> 'escrow' OR ${table.balanceAfter} >= 0`),
    index('ledger_account_idx').on(table.account, table.seq),
    index('ledger_account_time_idx').on(table.account, table.createdAt),
    // An escrow is credited once per external reference, pays a lead's fee once, and gets it back once.
    uniqueIndex('ledger_escrow_once')
      .on(table.account, table.kind, table.ref)
      .where(sql`${table.accountKind} = 'escrow' AND ${table.kind} <> 'charge'`),
  ],
);

/** A month's statement of one escrow, issued once when the month closes. */
export const statements = sqliteTable(
  'statements',
  {
    id: text('id').primaryKey(),
    escrowId: text('escrow_id').notNull(),
    ownerKind: text('owner_kind', { enum: ESCROW_OWNERS }).notNull(),
    ownerId: text('owner_id').notNull(),
    contractId: text('contract_id'),
    period: text('period').notNull(),
    currency: text('currency').notNull(),
    openingMinor: integer('opening_minor').notNull(),
    creditsMinor: integer('credits_minor').notNull(),
    chargesMinor: integer('charges_minor').notNull(),
    feesMinor: integer('fees_minor').notNull(),
    refundsMinor: integer('refunds_minor').notNull(),
    closingMinor: integer('closing_minor').notNull(),
    /** The contract's meters that month: `[{meter, used, included, overage, charged_minor}]`. */
    meters: text('meters', { mode: 'json' })
      .$type<Array<{ meter: string; used: number; included: number; overage: number; charged_minor: number }>>()
      .notNull(),
    issuedAt: integer('issued_at').notNull(),
  },
  (table) => [
    uniqueIndex('statements_once').on(table.escrowId, table.period),
    index('statements_owner_idx').on(table.ownerKind, table.ownerId, table.period),
  ],
);

/** An expert's request for a lead fee back (spam, unreachable): one per lead, decided by an admin. */
export const leadRefundRequests = sqliteTable(
  'lead_refund_requests',
  {
    id: text('id').primaryKey(),
    leadId: text('lead_id').notNull(),
    providerId: text('provider_id').notNull(),
    escrowId: text('escrow_id').notNull(),
    /** The fee asked back, as the fee's entry took it. */
    amountMinor: integer('amount_minor').notNull(),
    currency: text('currency').notNull(),
    reason: text('reason', { enum: REFUND_REASONS }).notNull(),
    note: text('note'),
    status: text('status', { enum: REFUND_STATUSES }).notNull(),
    decisionNote: text('decision_note'),
    decidedBy: text('decided_by'),
    decidedAt: integer('decided_at'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('lead_refund_once').on(table.leadId, table.providerId),
    index('lead_refund_status_idx').on(table.status, table.createdAt),
    index('lead_refund_provider_idx').on(table.providerId, table.createdAt),
  ],
);
