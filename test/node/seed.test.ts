import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ES modules shared with the Node scripts.
import { wrangler } from '../../scripts/lib.mjs';
// @ts-expect-error: plain ES modules shared with the Node scripts.
import { DEMO_TEST_PASSWORD, prepareLocalDatabase, REFERENCE_AGENT_TEST_SECRET } from '../../scripts/local-worker.mjs';

const folder = mkdtempSync(join(tmpdir(), 'egw-seed-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Every row of every table (and the migrations record), as JSON text. */
async function dumpDatabase(): Promise<string> {
  const query = (sql: string) => wrangler(['d1', 'execute', 'DB', '--local', '--persist-to', join(folder, 'state'), '--json', '--command', sql]);
  const tables = JSON.parse(await query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name"))[0]
    .results as { name: string }[];
  const statements = tables.map(({ name }) => `SELECT '${name}' AS table_name, * FROM "${name}" ORDER BY 2`).join('; ');
  // Only the rows: the meta block carries timings that differ between runs.
  return JSON.stringify((JSON.parse(await query(statements)) as { results: unknown[] }[]).map((entry) => entry.results), null, 1);
}

describe('the local demo seed', () => {
  it('is idempotent: a second run of migrations and seed changes nothing', async () => {
    const demoApiKey = 'egk_DemoKey4TheSeededTenantXq7Rs9';
    const seed = {
      persistTo: join(folder, 'state'),
      demoApiKey,
      demoPassword: DEMO_TEST_PASSWORD,
      pepper: 'seed-test-pepper-0123456789',
      secretsKey: 'seed-test-secrets-key-0123456789',
      referenceAgent: { port: 48788, secret: REFERENCE_AGENT_TEST_SECRET },
    };
    await prepareLocalDatabase(seed);
    const first = await dumpDatabase();
    expect(first).toContain('"ch_demo"');
    expect(first).toContain('"key_demo"');
    expect(first).toContain('"0003_drop_sign_in_failures.sql"');
    expect(first).not.toContain(demoApiKey);
    expect(first).toContain('"owner@demo.test"');
    expect(first).not.toContain(DEMO_TEST_PASSWORD);
    // The reference agent is active for faq; its signing secret is stored encrypted only.
    expect(first).toContain('"prv_demo_agent"');
    expect(first).toContain('http://127.0.0.1:48788/a2a/jsonrpc');
    expect(first).not.toContain(REFERENCE_AGENT_TEST_SECRET.slice(6, 30));
    await prepareLocalDatabase(seed);
    expect(await dumpDatabase()).toBe(first);
  });
});
