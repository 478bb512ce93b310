/**
 * The double-entry ledger's one write (docs/design/billing.md): a transfer, one row that moves an
 * amount from one account to another, inserted in the batch of its cause. The database does the
 * rest (migrations/0027_ledger_transfers.sql): it refuses an unknown account or another currency,
 * writes the two entries with each account's balance read as they are written (so concurrent
 * batches, which D1 runs one after another, never read a stale one), and the CHECK
 * `escrow_funds_left` refuses the entry that would take an escrow below zero, and with it the
 * whole batch.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { LedgerKind } from '../../vocabulary';

const { ledgerEntries, transfers } = schema;

export type AccountKind = 'escrow' | 'revenue' | 'funding';

/** The platform's revenue account in a currency: what charges and fees earn, less refunds. */
export const revenueAccount = (currency: string) => `platform:revenue:${currency}`;

/** The platform's funding account in a currency: the outside money credits record (its balance is their negative). */
export const fundingAccount = (currency: string) => `platform:funding:${currency}`;

/** Why the database refused a transfer, by the name its trigger raises (or the CHECK's, for want of funds). */
export const LEDGER_REFUSALS = {
  unknownAccount: 'ledger_unknown_account',
  currencyMismatch: 'ledger_currency_mismatch',
  fundsLeft: 'escrow_funds_left',
} as const;

/** Whether a batch failed because the ledger refused one of its transfers for `rule`. */
export function ledgerRefused(error: unknown, rule: (typeof LEDGER_REFUSALS)[keyof typeof LEDGER_REFUSALS]): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error);
  return text.includes(rule);
}

/** A transfer: `amount` (> 0, or nothing is written) from one account to another, both in `currency`. */
export interface Transfer {
  kind: LedgerKind;
  currency: string | SQL;
  from: string | SQL;
  to: string | SQL;
  /** Minor units; an SQL amount is read in the batch. */
  amount: number | SQL;
  ref: string;
  meter?: string;
  quantity?: number | SQL;
  workspaceId?: string | null;
  /** Nothing is written unless this holds. */
  when?: SQL;
  transferId?: string;
}

/** An account's balance as SQL: its last entry's `balance_after`, or 0. */
export function balanceOf(account: string | SQL): SQL {
  return sql`coalesce((SELECT balance_after FROM ${ledgerEntries} WHERE account = ${account} ORDER BY seq DESC
    LIMIT 1), 0)`;
}

/** A transfer as one statement, for the batch of its cause; it returns the transfer's id when written. */
export function transferInsert(db: Database, transfer: Transfer, now: number): BatchItem<'sqlite'> {
  const id = transfer.transferId ?? newId('trf', now);
  return db.all<{ id: string }>(sql`INSERT INTO ${transfers}
      (id, kind, currency, from_account, to_account, amount_minor, meter, quantity, ref, workspace_id, created_at)
    SELECT * FROM (SELECT ${id} AS id, ${transfer.kind} AS kind, ${transfer.currency} AS currency,
      ${transfer.from} AS from_account, ${transfer.to} AS to_account, ${transfer.amount} AS amount_minor,
      ${transfer.meter ?? null} AS meter, ${transfer.quantity ?? null} AS quantity, ${transfer.ref} AS ref,
      ${transfer.workspaceId ?? null} AS workspace_id, ${now} AS created_at)
    WHERE amount_minor > 0 AND ${transfer.when ?? sql`1`}
    RETURNING id`);
}

/** Whether a transfer was written, as SQL for a later statement of its batch. */
export function transferWritten(transferId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${transfers} WHERE id = ${transferId})`;
}

/** The entry a transfer wrote on one account (`id`, `balance`), read in its batch. */
export function entryOf(db: Database, transferId: string, account: string): BatchItem<'sqlite'> {
  return db.all<{ id: string; balance: number }>(sql`SELECT id, balance_after AS balance FROM ${ledgerEntries}
    WHERE transfer_id = ${transferId} AND account = ${account}`);
}

/** The current balances of some accounts, by account (0 for one without entries). */
export async function balances(db: Database, accounts: string[]): Promise<Map<string, number>> {
  if (accounts.length === 0) return new Map();
  const rows = await db.all<{ account: string; balance: number }>(sql`SELECT value AS account,
      ${balanceOf(sql`value`)} AS balance
    FROM json_each(${JSON.stringify(accounts)})`);
  return new Map(rows.map((row) => [row.account, row.balance]));
}
