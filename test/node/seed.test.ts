/**
 * The local demo seed (`npm run dev`) is idempotent: a second run over the real migrations changes
 * nothing, and it stores no secret in clear. Its directory's part and its shard's part run here on
 * two D1s in this process, each as one batch, as scripts/migrate-local.mjs runs them for
 * `npm run dev` and the Node suite's own Worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ES modules shared with the Node scripts.
import { DEMO_TEST_PASSWORD, REFERENCE_AGENT_TEST_SECRET } from '../../scripts/local-worker.mjs';
// @ts-expect-error: plain ES modules shared with the Node scripts.
import { seedSql } from '../../scripts/seed.mjs';
import { applyMigration, localD1, migrationFiles, type LocalD1 } from './d1';

let directory: LocalD1;
let shard: LocalD1;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  for (const which of ['directory', 'shard'] as const) {
    const { db, close } = await localD1();
    closers.push(close);
    for (const file of migrationFiles) await applyMigration(db, file);
    if (which === 'directory') directory = db;
    else shard = db;
  }
});
afterAll(() => Promise.all(closers.map((close) => close())));

const demoApiKey = 'egk_DemoKey4TheSeededTenantXq7Rs9';
const seed = () =>
  seedSql({
    demoApiKey,
    demoPassword: DEMO_TEST_PASSWORD,
    pepper: 'seed-test-pepper-0123456789',
    secretsKey: 'seed-test-secrets-key-0123456789',
    referenceAgent: { port: 48788, secret: REFERENCE_AGENT_TEST_SECRET },
  }) as { directory: string[]; shard: string[]; shardIndex: number };

/** Runs each database's part of the seed in one batch, as scripts/migrate-local.mjs does. */
async function runSeed(): Promise<void> {
  const { directory: directoryPart, shard: shardPart } = seed();
  await directory.batch(directoryPart.map((statement) => directory.prepare(statement)));
  await shard.batch(shardPart.map((statement) => shard.prepare(statement)));
}

/** Every row of every table of both databases, as JSON text. */
async function dumpDatabase(): Promise<string> {
  return `${await dumpOne(directory)}\n${await dumpOne(shard)}`;
}

async function dumpOne(db: LocalD1): Promise<string> {
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
    // The demo's contract and funded escrow on its shard, the experts' credits in the directory:
    // balanced books in each.
    expect(await dumpOne(shard)).toContain('"ctr_demo"');
    const books = (db: LocalD1) =>
      db
        .prepare(
          "SELECT SUM(amount_minor) AS total, SUM(CASE WHEN account = 'esc_demo' THEN amount_minor END) AS demo, " +
            'COUNT(DISTINCT account) AS accounts FROM ledger_entries',
        )
        .first<{ total: number; demo: number | null; accounts: number }>();
    expect(await books(shard)).toEqual({ total: 0, demo: 10_000, accounts: 2 });
    expect(await books(directory)).toEqual({ total: 0, demo: null, accounts: 3 });
    // The organisation is on its shard only; the accounts in the directory only; the catalog in both.
    const count = (db: LocalD1, table: string) =>
      db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>();
    expect([await count(directory, 'organizations'), await count(shard, 'organizations')]).toEqual([
      { n: 0 },
      { n: 1 },
    ]);
    expect([await count(directory, 'users'), await count(shard, 'users')]).toEqual([{ n: 5 }, { n: 0 }]);
    expect(await count(shard, 'providers')).toEqual(await count(directory, 'providers'));
    await runSeed();
    expect(await dumpDatabase()).toBe(first);
  });
});
