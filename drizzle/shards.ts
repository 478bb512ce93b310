/**
 * Where each organisation's rows are (docs/design/scale.md#the-layout): a directory table, read
 * through the isolate's cache by every request that names an organisation, key or channel.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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

/**
 * The directory's maps from what names a request to its organisation (then to its shard through
 * `organization_shards`): a workspace's id, an API key's id and its token's hash, a channel's key.
 * An entry never changes once written (a move changes the organisation's shard, not its entries),
 * so each isolate caches it beside the key context.
 */
export const directoryEntries = sqliteTable(
  'directory_entries',
  {
    kind: text('kind', { enum: ['workspace', 'key', 'key_hash', 'channel'] }).notNull(),
    value: text('value').notNull(),
    organizationId: text('organization_id').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.kind, table.value] }),
    // An organisation's entries, for a move's checks and an erasure.
    index('directory_entries_organization_idx').on(table.organizationId),
  ],
);
