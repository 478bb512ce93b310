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

/**
 * Runs inside workerd: applies the migrations a database has not had, each file with its
 * d1_migrations row in one batch. (Node's D1 proxy prepares statements through a synchronous
 * channel that loses a reply now and then under load; inside the Worker nothing is synchronous.)
 */
const APPLIER = `export default {
  async fetch(request, env) {
    const { binding, files, statements, query } = await request.json();
    const db = env[binding];
    try {
      if (query) return Response.json((await db.prepare(query).all()).results);
      if (statements) {
        await db.batch(statements.map((statement) => db.prepare(statement)));
        return new Response('ok');
      }
      await db.prepare('CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, ' +
        'name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)').run();
      const { results } = await db.prepare('SELECT name FROM d1_migrations').all();
      const applied = new Set(results.map((row) => row.name));
      for (const file of files) {
        if (applied.has(file.name)) continue;
        await db.batch([
          ...file.statements.map((statement) => db.prepare(statement)),
          db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(file.name),
        ]);
      }
      return new Response('ok');
    } catch (error) {
      return new Response(String(error?.stack ?? error), { status: 500 });
    }
  },
};`;

/**
 * Applies what each local database has not had yet; `persistTo` as wrangler's --persist-to. Then
 * runs `seeds` (binding → statements, or a function of a query on the databases that answers
 * them), each database's in one batch, in order.
 */
export async function applyLocalMigrations({ persistTo, seeds = [] } = {}) {
  const databases = localDatabases();
  const miniflare = new Miniflare({
    modules: true,
    script: APPLIER,
    d1Persist: join(persistTo ?? join(ROOT, '.wrangler/state'), 'v3', 'd1'),
    d1Databases: databases,
  });
  const files = readdirSync(join(ROOT, 'migrations'))
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({
      name,
      statements: readFileSync(join(ROOT, 'migrations', name), 'utf8')
        .split('--> statement-breakpoint')
        .map((statement) => statement.trim())
        .filter((statement) => statement.replace(/^--.*$/gm, '').trim()),
    }));
  try {
    for (const binding of Object.keys(databases)) {
      const response = await miniflare.dispatchFetch('http://migrations.local/', {
        method: 'POST',
        body: JSON.stringify({ binding, files }),
      });
      const answer = await response.text();
      if (!response.ok) throw new Error(`migrations of ${binding} failed: ${answer}`);
    }
    const ask = async (body) => {
      const response = await miniflare.dispatchFetch('http://migrations.local/', {
        method: 'POST',
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`the seed of ${body.binding} failed: ${await response.text()}`);
      return response;
    };
    const query = async (binding, text) => (await ask({ binding, query: text })).json();
    for (const seed of seeds) {
      const { binding, statements } = typeof seed === 'function' ? await seed(query) : seed;
      await ask({ binding, statements });
    }
  } finally {
    await miniflare.dispose();
  }
}
