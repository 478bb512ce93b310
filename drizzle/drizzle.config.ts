import { defineConfig } from 'drizzle-kit';

// Writes plain SQL files to migrations/, which `wrangler d1 migrations apply` runs in order.
export default defineConfig({
  dialect: 'sqlite',
  schema: './drizzle/schema.ts',
  out: './migrations',
});
