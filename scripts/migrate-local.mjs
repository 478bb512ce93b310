// Applies the migrations to the local directory and every local shard in one Miniflare, exactly as
// `wrangler d1 migrations apply --local` records them (its d1_migrations table), so a later wrangler
// run sees them applied. Wrangler starts a runtime per migration file (about 11 s for the three
// databases each): one runtime for all of them keeps a test Worker's start short.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { ROOT } from './lib.mjs';

/** The D1 databases of wrangler.toml: binding → local database id. */
function localDatabases() {
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const blocks = toml.split('[[d1_databases]]').slice(1);
  return Object.fromEntries(
    blocks.map((block) => [/binding = "([^"]+)"/.exec(block)[1], /database_id = "([^"]+)"/.exec(block)[1]]),
  );
}

/** Applies what each local database has not had yet; `persistTo` as wrangler's --persist-to. */
export async function applyLocalMigrations({ persistTo } = {}) {
  const databases = localDatabases();
  const miniflare = new Miniflare({
    modules: true,
    script: 'export default {}',
    d1Persist: join(persistTo ?? join(ROOT, '.wrangler/state'), 'v3', 'd1'),
    d1Databases: databases,
  });
  const files = readdirSync(join(ROOT, 'migrations'))
    .filter((name) => name.endsWith('.sql'))
    .sort();
  try {
    for (const binding of Object.keys(databases)) {
      const db = await miniflare.getD1Database(binding);
      // wrangler's own table, as it creates it.
      await db.exec(
        'CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, ' +
          'applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL);',
      );
      const applied = new Set(
        (await db.prepare('SELECT name FROM d1_migrations').all()).results.map((row) => row.name),
      );
      for (const file of files.filter((name) => !applied.has(name))) {
        const statements = readFileSync(join(ROOT, 'migrations', file), 'utf8')
          .split('--> statement-breakpoint')
          .map((statement) => statement.trim())
          .filter((statement) => statement.replace(/^--.*$/gm, '').trim());
        await db.batch([
          ...statements.map((statement) => db.prepare(statement)),
          db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(file),
        ]);
      }
    }
  } finally {
    await miniflare.dispose();
  }
}
