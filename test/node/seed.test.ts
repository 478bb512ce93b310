/**
 * The local demo seed (`npm run dev`) is idempotent: a second run over the real migrations changes
 * nothing, and it stores no secret in clear. It runs here on a D1 in this process; the wrangler
 * CLI path that `npm run dev` takes (migrations apply, then execute the seed file) is the one the
 * Node suite's own Worker is prepared with (global-setup.ts), and CI applies the migrations with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ES modules shared with the Node scripts.
import { DEMO_TEST_PASSWORD, REFERENCE_AGENT_TEST_SECRET } from '../../scripts/local-worker.mjs';
// @ts-expect-error: plain ES modules shared with the Node scripts.
import { seedSql } from '../../scripts/seed.mjs';
import { applyMigration, localD1, migrationFiles, type LocalD1 } from './d1';

let db: LocalD1;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await localD1());
  for (const file of migrationFiles) await applyMigration(db, file);
});
afterAll(() => close());

const demoApiKey = 'egk_DemoKey4TheSeededTenantXq7Rs9';
const seed = () =>
  seedSql({
    demoApiKey,
    demoPassword: DEMO_TEST_PASSWORD,
    pepper: 'seed-test-pepper-0123456789',
    secretsKey: 'seed-test-secrets-key-0123456789',
    referenceAgent: { port: 48788, secret: REFERENCE_AGENT_TEST_SECRET },
  }) as string;

/** Runs the seed file's statements, as `wrangler d1 execute --file` does. */
async function runSeed(): Promise<void> {
  const statements = seed()
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter(Boolean);
  await db.batch(statements.map((statement) => db.prepare(statement)));
}

/** Every row of every table, as JSON text. */
async function dumpDatabase(): Promise<string> {
  const tables = (
    await db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' " +
          'ORDER BY name',
      )
      .all<{ name: string }>()
  ).results;
  const rows = [];
  for (const { name } of tables)
    rows.push(name, (await db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all()).results);
  return JSON.stringify(rows, null, 1);
}

describe('the local demo seed', () => {
  it('is idempotent: a second run changes nothing, and no secret is stored in clear', async () => {
    await runSeed();
    const first = await dumpDatabase();
    expect(first).toContain('"ch_demo"');
    expect(first).toContain('"key_demo"');
    expect(first).not.toContain(demoApiKey);
    expect(first).toContain('"owner@demo.test"');
    expect(first).not.toContain(DEMO_TEST_PASSWORD);
    // The reference agent is active for faq; its signing secret is stored encrypted only.
    expect(first).toContain('"prv_demo_agent"');
    expect(first).toContain('http://127.0.0.1:48788/a2a/jsonrpc');
    expect(first).not.toContain(REFERENCE_AGENT_TEST_SECRET.slice(6, 30));
    // The demo's contract, its funded escrow and the experts' credits, in balanced books.
    expect(first).toContain('"ctr_demo"');
    const books = await db
      .prepare(
        "SELECT SUM(amount_minor) AS total, SUM(CASE WHEN account = 'esc_demo' THEN amount_minor END) AS demo, " +
          'COUNT(DISTINCT account) AS accounts FROM ledger_entries',
      )
      .first<{ total: number; demo: number; accounts: number }>();
    expect(books).toEqual({ total: 0, demo: 10_000, accounts: 4 });
    await runSeed();
    expect(await dumpDatabase()).toBe(first);
  });
});
