/**
 * The ledger's move to transfers (migrations/0027): the entries written before become transfers
 * with their accounts, a priced domain gets its currency, the charged metrics carry theirs, and
 * from then on the database posts every transfer and refuses what breaks its rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigration, localD1, migrationFiles as files, type LocalD1 } from './d1';

let db: LocalD1;
let close: () => Promise<void>;
const AT = Date.parse('2026-10-01T10:00:00Z');

beforeAll(async () => {
  ({ db, close } = await localD1());
  for (const file of files.filter((name) => name < '0027')) await applyMigration(db, file);
  const entry = (id: string, transfer: string, account: string, kind: string, amount: number, balance: number) =>
    `('${id}', '${transfer}', '${account}', '${kind}', ${amount}, ${balance}, 'EUR', 'credit', 'INV-1', ${AT})`;
  await db.batch(
    [
      "UPDATE domains SET lead_price_minor = 250 WHERE slug = 'consultation'",
      `INSERT INTO escrows (id, owner_kind, owner_id, contract_id, currency, low_balance_minor, low_balance_notified,
        created_at) VALUES ('esc_w', 'workspace', 'ws_w', 'ctr_w', 'EUR', 0, 0, ${AT})`,
      `INSERT INTO contracts (id, workspace_id, plan, currency, starts_at, allowances, overage, escrow_id, created_at)
        VALUES ('ctr_w', 'ws_w', 'P', 'EUR', ${AT}, '{}', '{}', 'esc_w', ${AT})`,
      `INSERT INTO ledger_entries (id, transfer_id, account, account_kind, amount_minor, balance_after, currency, kind,
        ref, created_at) VALUES ${entry('led_a', 'trf_a', 'esc_w', 'escrow', 1000, 1000)},
        ${entry('led_b', 'trf_a', 'platform:funding:EUR', 'funding', -1000, -1000)}`,
      `INSERT INTO daily_rollups (workspace_id, day, metric, channel_key, key_id, value)
        VALUES ('ws_w', '2026-10-01', 'charged_minor.executions', '', '', 14)`,
    ].map((statement) => db.prepare(statement)),
  );
  await applyMigration(db, files.find((name) => name.startsWith('0027'))!);
});
afterAll(() => close());

describe('the move to transfers', () => {
  it('keeps what was written as transfers between real accounts', async () => {
    expect(
      await db
        .prepare('SELECT * FROM transfers')
        .all()
        .then((result) => result.results),
    ).toEqual([
      expect.objectContaining({
        id: 'trf_a',
        kind: 'credit',
        from_account: 'platform:funding:EUR',
        to_account: 'esc_w',
        amount_minor: 1000,
      }),
    ]);
    const accounts = await db.prepare('SELECT id, kind, currency FROM ledger_accounts ORDER BY id').all();
    expect(accounts.results).toEqual(
      expect.arrayContaining([
        { id: 'esc_w', kind: 'escrow', currency: 'EUR' },
        { id: 'platform:funding:EUR', kind: 'funding', currency: 'EUR' },
        { id: 'platform:revenue:EUR', kind: 'revenue', currency: 'EUR' },
      ]),
    );
    expect(
      await db.prepare("SELECT lead_price_currency AS c FROM domains WHERE slug = 'consultation'").first(),
    ).toEqual({
      c: 'EUR',
    });
    expect(await db.prepare('SELECT metric FROM daily_rollups').first()).toEqual({
      metric: 'charged_minor.executions.EUR',
    });
  });

  it('posts the next transfer after the old entries, and refuses a raw entry', async () => {
    await db
      .prepare(
        `INSERT INTO transfers (id, kind, currency, from_account, to_account, amount_minor, ref, created_at)
         VALUES ('trf_next', 'charge', 'EUR', 'esc_w', 'platform:revenue:EUR', 300, 'exe_1', ${AT + 1})`,
      )
      .run();
    const last = await db
      .prepare("SELECT balance_after AS b FROM ledger_entries WHERE account = 'esc_w' ORDER BY seq DESC LIMIT 1")
      .first();
    expect(last).toEqual({ b: 700 });
    await expect(
      db
        .prepare(
          `INSERT INTO ledger_entries (id, transfer_id, account, account_kind, amount_minor, balance_after, currency,
            kind, ref, created_at) VALUES ('led_x', 'trf_x', 'esc_w', 'escrow', 5, 705, 'EUR', 'credit', 'x', 1)`,
        )
        .run(),
    ).rejects.toThrow(/ledger_entry_without_transfer/);
  });
});
