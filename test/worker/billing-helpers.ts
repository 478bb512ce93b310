import { expect } from 'vitest';
import { ADMIN_TOKEN, call, json } from './helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

export interface ContractTerms {
  allowances?: Record<string, number>;
  overage?: Record<string, { unit_price_minor: number }>;
  starts_at?: string;
  ends_at?: string;
  currency?: string;
  reference?: string;
  low_balance_minor?: number;
}

/** Records a contract for a workspace (in force from a minute ago unless told), and answers it. */
export async function recordContract(workspaceId: string, terms: ContractTerms = {}): Promise<Record<string, any>> {
  const response = await call('/api/admin/contracts', {
    token: ADMIN_TOKEN,
    body: {
      workspace_id: workspaceId,
      plan: 'Test plan',
      currency: terms.currency ?? 'EUR',
      starts_at: terms.starts_at ?? new Date(clock.now() - 60_000).toISOString(),
      allowances: terms.allowances ?? {},
      overage: terms.overage ?? {},
      ...(terms.ends_at ? { ends_at: terms.ends_at } : {}),
      ...(terms.reference ? { reference: terms.reference } : {}),
      ...(terms.low_balance_minor !== undefined ? { low_balance_minor: terms.low_balance_minor } : {}),
    },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return json(response);
}

/** Credits an escrow; answers the credit's answer. */
export async function credit(escrowId: string, amount: number, reference = crypto.randomUUID()) {
  const response = await call(`/api/admin/escrows/${escrowId}/credits`, {
    token: ADMIN_TOKEN,
    body: { amount_minor: amount, reference },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return json<{ entry_id: string; balance_minor: number; already_recorded: boolean }>(response);
}

/** An account's balance: its last entry's balance_after, or 0. */
export async function balanceOf(account: string): Promise<number> {
  const row = await platformDb
    .prepare('SELECT balance_after AS b FROM ledger_entries WHERE account = ? ORDER BY seq DESC LIMIT 1')
    .bind(account)
    .first<{ b: number }>();
  return row?.b ?? 0;
}

/**
 * The books' checks, over every entry of the ledger: each transfer has its two entries and sums to
 * zero, each currency sums to zero, every account's last balance equals the sum of its entries,
 * and no escrow is below zero at any entry.
 */
export async function expectBalancedBooks(): Promise<void> {
  const unposted = await platformDb
    .prepare(
      'SELECT t.id FROM transfers t WHERE (SELECT COUNT(*) FROM ledger_entries e WHERE e.transfer_id = t.id) <> 2',
    )
    .all();
  expect(unposted.results).toEqual([]);
  const unbalancedTransfers = await platformDb
    .prepare('SELECT transfer_id, SUM(amount_minor) AS s FROM ledger_entries GROUP BY transfer_id HAVING s <> 0')
    .all();
  expect(unbalancedTransfers.results).toEqual([]);
  const currencies = await platformDb
    .prepare('SELECT currency, SUM(amount_minor) AS s FROM ledger_entries GROUP BY currency HAVING s <> 0')
    .all();
  expect(currencies.results).toEqual([]);
  const drift = await platformDb
    .prepare(
      `SELECT account, SUM(amount_minor) AS total,
       (SELECT balance_after FROM ledger_entries l WHERE l.account = e.account ORDER BY seq DESC LIMIT 1) AS last
     FROM ledger_entries e GROUP BY account HAVING total <> last`,
    )
    .all();
  expect(drift.results).toEqual([]);
  const negative = await platformDb
    .prepare("SELECT COUNT(*) AS n FROM ledger_entries WHERE account_kind = 'escrow' AND balance_after < 0")
    .first<{ n: number }>();
  expect(negative?.n).toBe(0);
}
