/**
 * The double-entry ledger's one write (docs/design/billing.md): a transfer, one entry per account
 * it moves, summing to zero, written by one INSERT … SELECT in the batch of its cause. Each
 * entry's `balance_after` is its account's last `balance_after` plus what the transfer moved on
 * that account so far, read inside the statement, so concurrent batches (which D1 runs one after
 * another) can never read a stale balance; the CHECK `escrow_funds_left` refuses the one that
 * would take an escrow below zero, and with it the whole batch.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { LedgerKind } from '../../lib/vocabulary';

const { ledgerEntries } = schema;

export type AccountKind = 'escrow' | 'revenue' | 'funding';

/** The platform's revenue account in a currency: what charges and fees earn, less refunds. */
export const revenueAccount = (currency: string) => `platform:revenue:${currency}`;

/** The platform's funding account in a currency: the outside money credits record (its balance is their negative). */
export const fundingAccount = (currency: string) => `platform:funding:${currency}`;

/** One side of a transfer. `amount` is signed (negative takes from the account); an SQL amount is read in the batch. */
export interface Leg {
  account: string | SQL;
  accountKind: AccountKind;
  amount: number | SQL;
  kind: LedgerKind;
  ref: string;
  meter?: string;
  quantity?: number | SQL;
  workspaceId?: string | null;
}

/** An account's balance as SQL: its last entry's `balance_after`, or 0. */
export function balanceOf(account: string | SQL): SQL {
  return sql`coalesce((SELECT balance_after FROM ${ledgerEntries} WHERE account = ${account} ORDER BY seq DESC
    LIMIT 1), 0)`;
}

/**
 * A transfer between accounts of one currency, as one statement; legs whose amount is 0 when it
 * runs are not written, and with `when` nothing is written unless it holds. It returns the
 * entries written (`id`, `account`, `amount`, `balance`).
 */
export function transferInsert(
  db: Database,
  transfer: { currency: string; legs: Leg[]; when?: SQL; transferId?: string },
  now: number,
): BatchItem<'sqlite'> {
  const transferId = transfer.transferId ?? newId('trf', now);
  // One row per leg, as a CASE over the leg's index (D1 caps compound SELECTs at a few terms).
  const column = (name: string, value: (leg: Leg, index: number) => unknown) =>
    sql`CASE ord ${sql.join(
      transfer.legs.map((leg, index) => sql`WHEN ${index} THEN ${value(leg, index)}`),
      sql` `,
    )} END AS ${sql.raw(name)}`;
  const legs = sql`SELECT ord, ${sql.join(
    [
      column('id', () => newId('led', now)),
      column('account', (leg) => leg.account),
      column('account_kind', (leg) => leg.accountKind),
      column('amount', (leg) => leg.amount),
      column('kind', (leg) => leg.kind),
      column('meter', (leg) => leg.meter ?? null),
      column('quantity', (leg) => leg.quantity ?? null),
      column('ref', (leg) => leg.ref),
      column('workspace_id', (leg) => leg.workspaceId ?? null),
    ],
    sql`, `,
  )} FROM (SELECT key AS ord FROM json_each(${JSON.stringify(transfer.legs.map(() => 0))}))`;
  return db.all<{ id: string; account: string; amount: number; balance: number }>(sql`INSERT INTO ${ledgerEntries}
      (id, transfer_id, account, account_kind, amount_minor, balance_after, currency, kind, meter, quantity, ref,
      workspace_id, created_at)
    SELECT id, ${transferId}, account, account_kind, amount,
      ${balanceOf(sql`legs.account`)} + sum(amount) OVER (PARTITION BY account ORDER BY ord ROWS UNBOUNDED PRECEDING),
      ${transfer.currency}, kind, meter, quantity, ref, workspace_id, ${now}
    FROM (${legs}) AS legs
    WHERE amount <> 0 AND ${transfer.when ?? sql`1`}
    ORDER BY ord
    RETURNING id, account, amount_minor AS amount, balance_after AS balance`);
}

/** Whether a transfer was written (its legs were not all 0, and its `when` held), as SQL for a later statement. */
export function transferWritten(transferId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${ledgerEntries} WHERE transfer_id = ${transferId})`;
}

/** The current balances of some accounts, by account (0 for one without entries). */
export async function balances(db: Database, accounts: string[]): Promise<Map<string, number>> {
  if (accounts.length === 0) return new Map();
  const rows = await db.all<{ account: string; balance: number }>(sql`SELECT value AS account,
      ${balanceOf(sql`value`)} AS balance
    FROM json_each(${JSON.stringify(accounts)})`);
  return new Map(rows.map((row) => [row.account, row.balance]));
}
