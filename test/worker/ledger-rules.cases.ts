import { describe, expect, it } from 'vitest';
import { clock } from '../../worker/lib/clock';
import { balanceOf, credit, expectBalancedBooks, recordContract } from './billing-helpers';
import { createTenant, execute, executeBody, json } from './helpers';
import { platformDb } from './platform-db';

/** A fresh workspace escrow in `currency`, credited with `amount`. */
async function fundedEscrow(amount: number, currency = 'EUR'): Promise<string> {
  const tenant = await createTenant();
  const contract = await recordContract(tenant.workspaceId, { currency });
  if (amount > 0) await credit(contract.escrow_id, amount);
  return contract.escrow_id as string;
}

let counter = 0;
/** A raw transfer insert, as any code could write one. */
const rawTransfer = (fields: { from: string; to: string; amount: number; currency?: string; id?: string }) =>
  platformDb
    .prepare(
      `INSERT INTO transfers (id, kind, currency, from_account, to_account, amount_minor, ref, created_at)
     VALUES (?, 'charge', ?, ?, ?, ?, 'raw-test', ?)`,
    )
    .bind(
      fields.id ?? `trf_raw${++counter}`,
      fields.currency ?? 'EUR',
      fields.from,
      fields.to,
      fields.amount,
      clock.now(),
    )
    .run();

/** A raw ledger entry insert. */
const rawEntry = (fields: { id: string; transferId: string; account: string; amount: number; balance: number }) =>
  platformDb
    .prepare(
      `INSERT INTO ledger_entries (id, transfer_id, account, account_kind, amount_minor, balance_after, currency, kind,
       ref, created_at) VALUES (?, ?, ?, 'escrow', ?, ?, 'EUR', 'charge', 'raw-test', ?)`,
    )
    .bind(fields.id, fields.transferId, fields.account, fields.amount, fields.balance, clock.now())
    .run();

const refusedWith = async (write: Promise<unknown>, reason: RegExp) => {
  const error = await write.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the database refused it').toBeInstanceOf(Error);
  expect(String((error as Error).message) + String((error as Error).cause ?? '')).toMatch(reason);
};

describe('the database refuses a raw insert that breaks a rule', () => {
  it('a transfer posts its two entries itself, and they sum to zero', async () => {
    const escrow = await fundedEscrow(500);
    await rawTransfer({ from: escrow, to: 'platform:revenue:EUR', amount: 120, id: 'trf_rawposted' });
    const entries = await platformDb
      .prepare('SELECT id, account, amount_minor FROM ledger_entries WHERE transfer_id = ? ORDER BY seq')
      .bind('trf_rawposted')
      .all();
    expect(entries.results).toEqual([
      { id: 'led_rawposted_1', account: escrow, amount_minor: -120 },
      { id: 'led_rawposted_2', account: 'platform:revenue:EUR', amount_minor: 120 },
    ]);
    expect(await balanceOf(escrow)).toBe(380);
    await expectBalancedBooks();
  });

  it('an account that does not exist, a pseudo-account included', async () => {
    const escrow = await fundedEscrow(100);
    await refusedWith(
      rawTransfer({ from: 'esc_nosuchescrow', to: 'platform:revenue:EUR', amount: 1 }),
      /ledger_unknown_account/,
    );
    await refusedWith(rawTransfer({ from: escrow, to: 'no-escrow:prv_x', amount: 1 }), /ledger_unknown_account/);
    await refusedWith(rawTransfer({ from: escrow, to: 'platform:revenue:XXX', amount: 1 }), /ledger_unknown_account/);
  });

  it('a currency that is not its accounts’', async () => {
    const euros = await fundedEscrow(100);
    const dollars = await fundedEscrow(100, 'USD');
    await refusedWith(
      rawTransfer({ from: euros, to: 'platform:revenue:EUR', amount: 1, currency: 'USD' }),
      /ledger_currency_mismatch/,
    );
    await refusedWith(rawTransfer({ from: euros, to: 'platform:revenue:USD', amount: 1 }), /ledger_currency_mismatch/);
    await refusedWith(
      rawTransfer({ from: dollars, to: 'platform:revenue:EUR', amount: 1, currency: 'USD' }),
      /ledger_currency_mismatch/,
    );
  });

  it('an amount of zero or less, or a transfer to the account it comes from', async () => {
    const escrow = await fundedEscrow(100);
    await refusedWith(rawTransfer({ from: escrow, to: 'platform:revenue:EUR', amount: 0 }), /transfer_amount_positive/);
    await refusedWith(
      rawTransfer({ from: escrow, to: 'platform:revenue:EUR', amount: -5 }),
      /transfer_amount_positive/,
    );
    await refusedWith(rawTransfer({ from: escrow, to: escrow, amount: 5 }), /transfer_between_two_accounts/);
  });

  it('an escrow taken below zero', async () => {
    const escrow = await fundedEscrow(100);
    await refusedWith(rawTransfer({ from: escrow, to: 'platform:revenue:EUR', amount: 101 }), /escrow_funds_left/);
    expect(await balanceOf(escrow)).toBe(100);
  });

  it('an entry without its transfer, a third leg, a leg of the wrong amount, a broken balance chain', async () => {
    const escrow = await fundedEscrow(100);
    await refusedWith(
      rawEntry({ id: 'led_orphan_1', transferId: 'trf_orphan', account: escrow, amount: 50, balance: 150 }),
      /ledger_entry_without_transfer/,
    );
    await rawTransfer({ from: escrow, to: 'platform:revenue:EUR', amount: 10, id: 'trf_rawlegs' });
    // A third leg that would make it sum to something else, under a new id or the first leg's.
    await refusedWith(
      rawEntry({ id: 'led_rawlegs_3', transferId: 'trf_rawlegs', account: escrow, amount: -10, balance: 80 }),
      /ledger_entry_without_transfer/,
    );
    await refusedWith(
      rawEntry({ id: 'led_rawlegs_1', transferId: 'trf_rawlegs', account: escrow, amount: -10, balance: 80 }),
      /ledger_entry_without_transfer|UNIQUE constraint failed: ledger_entries.id/,
    );
    await refusedWith(
      rawEntry({ id: 'led_rawlegs_1', transferId: 'trf_rawlegs', account: escrow, amount: -7, balance: 83 }),
      /ledger_entry_without_transfer|UNIQUE constraint failed/,
    );
    // An entry whose balance does not continue its account's.
    await refusedWith(
      rawEntry({ id: 'led_rawlegs_9', transferId: 'trf_rawlegs', account: escrow, amount: -10, balance: 1_000 }),
      /ledger_balance_chain|ledger_entry_without_transfer/,
    );
    expect(await balanceOf(escrow)).toBe(90);
    await expectBalancedBooks();
  });

  it('a change or a deletion of what was written', async () => {
    const escrow = await fundedEscrow(100);
    await refusedWith(
      platformDb.prepare('UPDATE ledger_entries SET amount_minor = 1000 WHERE account = ?').bind(escrow).run(),
      /ledger_append_only/,
    );
    await refusedWith(
      platformDb.prepare('DELETE FROM ledger_entries WHERE account = ?').bind(escrow).run(),
      /ledger_append_only/,
    );
    await refusedWith(
      platformDb.prepare('UPDATE transfers SET amount_minor = 1 WHERE to_account = ?').bind(escrow).run(),
      /ledger_append_only/,
    );
    await refusedWith(
      platformDb.prepare('DELETE FROM transfers WHERE to_account = ?').bind(escrow).run(),
      /ledger_append_only/,
    );
    expect(await balanceOf(escrow)).toBe(100);
  });
});

describe('50 charges at once', () => {
  it('each is paid or refused whole: the escrow pays exactly what it holds, and the books balance', async () => {
    const tenant = await createTenant({ rate_limit_per_minute: 1000 });
    const contract = await recordContract(tenant.workspaceId, {
      allowances: { executions: 0 },
      overage: { executions: { unit_price_minor: 7 } },
    });
    await credit(contract.escrow_id, 7 * 20 + 3);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        execute(tenant.token, executeBody({ text: `Concurrent ${index}`, session_id: `c${index}` })),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 402)).toHaveLength(30);
    for (const answer of answers.filter((candidate) => candidate.status === 200))
      expect((await json(answer)).usage_applications).toEqual(
        expect.arrayContaining([expect.objectContaining({ meter: 'executions', charged_minor: 7 })]),
      );
    expect(await balanceOf(contract.escrow_id)).toBe(3);
    const charges = await platformDb
      .prepare("SELECT COUNT(*) AS n FROM transfers WHERE kind = 'charge' AND from_account = ?")
      .bind(contract.escrow_id)
      .first<{ n: number }>();
    expect(charges?.n).toBe(20);
    await expectBalancedBooks();
  });
});
