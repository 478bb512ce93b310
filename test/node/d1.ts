/** A throwaway D1 database in this process (Miniflare), for tests of migrations and the seed. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';

export const MIGRATIONS = join(process.cwd(), 'migrations');
export const migrationFiles = readdirSync(MIGRATIONS)
  .filter((name) => name.endsWith('.sql'))
  .sort();

export type LocalD1 = Awaited<ReturnType<Miniflare['getD1Database']>>;

/** A fresh database, and a way to close it. */
export async function localD1(): Promise<{ db: LocalD1; close(): Promise<void> }> {
  const miniflare = new Miniflare({
    modules: true,
    script: 'export default { fetch: () => new Response("") }',
    d1Databases: ['DB'],
  });
  return { db: await miniflare.getD1Database('DB'), close: () => miniflare.dispose() };
}

/** Applies one migration file as `wrangler d1 migrations apply` does: its statements in one batch. */
export async function applyMigration(db: LocalD1, file: string): Promise<void> {
  const statements = readFileSync(join(MIGRATIONS, file), 'utf8')
    .split('--> statement-breakpoint')
    .map((statement) => statement.trim())
    .filter(Boolean);
  await db.batch(statements.map((statement) => db.prepare(statement)));
}
