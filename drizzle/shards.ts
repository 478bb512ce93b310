/**
 * Where each organisation's rows are (docs/design/scale.md#the-layout): a directory table, read
 * through the isolate's cache by every request that names an organisation, key or channel.
 */
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const organizationShards = sqliteTable(
  'organization_shards',
  {
    organizationId: text('organization_id').primaryKey(),
    /** The index of the shard binding (`DB_0`, `DB_1`, …) that holds the organisation's rows. */
    shard: integer('shard').notNull(),
    placedAt: integer('placed_at').notNull(),
    /** While a move runs: the shard it copies to, and the last step it finished (shards/move.ts). */
    movingTo: integer('moving_to'),
    moveStep: text('move_step'),
    moveUpdatedAt: integer('move_updated_at'),
  },
  // The moves still running, for `npm run admin -- move-organization` to resume after a crash.
  (table) => [index('organization_shards_moving_idx').on(table.movingTo).where(sql`${table.movingTo} IS NOT NULL`)],
);
