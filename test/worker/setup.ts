import { applyD1Migrations, env } from 'cloudflare:test';

// The same migrations `wrangler d1 migrations apply` runs, to the directory and to both shards;
// applying twice is a no-op.
await Promise.all(
  [env.DIRECTORY, env.DB_0, env.DB_1].map((database) => applyD1Migrations(database, env.TEST_MIGRATIONS)),
);
